"""The incremental splitter: bytes in, documents and text lines out."""

from __future__ import annotations

import json

import pytest

from hypothesis import given, settings
from hypothesis import strategies as st

from iotui.core.fio.status import FioDocument, FioText, StatusSplitter
from tests.conftest import FIO_FIXTURES, recorded_fio_outputs


def _split(data: bytes, cut_points: list[int]) -> list:
    splitter = StatusSplitter()
    items = []
    previous = 0
    for cut in sorted(set(cut_points)) + [len(data)]:
        items += splitter.feed(data[previous:cut])
        previous = cut
    return items + splitter.close()


def _summary(items: list) -> list:
    return [
        ("doc", item.doc["timestamp_ms"]) if isinstance(item, FioDocument) else ("text", item.line)
        for item in items
    ]


def test_recorded_output_yields_every_document() -> None:
    data = (FIO_FIXTURES / "randrw-rate200-json+.txt").read_bytes()
    items = _split(data, [])
    docs = [item for item in items if isinstance(item, FioDocument)]
    assert len(docs) == data.count(b"\n{\n") + (1 if data.startswith(b"{\n") else 0)
    assert [d.doc["jobs"][0]["elapsed"] for d in docs] == sorted(d.doc["jobs"][0]["elapsed"] for d in docs)


def test_split_at_every_byte_gives_the_same_items() -> None:
    data = (FIO_FIXTURES / "randread-sigint-json+.txt").read_bytes()
    whole = _summary(_split(data, []))
    splitter = StatusSplitter()
    items = []
    for index in range(len(data)):
        items += splitter.feed(data[index : index + 1])
    items += splitter.close()
    assert _summary(items) == whole
    assert ("text", "fio: terminating on signal 2") in whole


def test_text_before_between_and_after_documents_is_kept_in_order() -> None:
    doc = {"timestamp_ms": 5, "jobs": []}
    pretty = json.dumps(doc, indent=2).encode()
    data = b"note: first\n" + pretty + b"\nfio: between\n" + pretty + b"\nfio: terminating on signal 2\n"
    assert _summary(_split(data, [3, 20])) == [
        ("text", "note: first"),
        ("doc", 5),
        ("text", "fio: between"),
        ("doc", 5),
        ("text", "fio: terminating on signal 2"),
    ]


def test_truncated_document_is_reported_not_raised() -> None:
    pretty = json.dumps({"timestamp_ms": 1, "jobs": [{"a": 1}]}, indent=2).encode()
    truncated = pretty[: len(pretty) // 2]
    items = _split(truncated + b"\n" + pretty + b"\n", [])
    kinds = _summary(items)
    assert kinds[-1] == ("doc", 1)
    assert any(kind == "text" and "incomplete" in text for kind, text in kinds[:-1])


def test_truncated_document_at_end_of_stream_is_reported() -> None:
    pretty = json.dumps({"timestamp_ms": 1}, indent=2).encode()
    items = _split(pretty[:-2], [])
    assert len(items) == 1 and isinstance(items[0], FioText) and "incomplete" in items[0].line


def test_garbage_between_braces_becomes_text() -> None:
    items = _split(b"{\nnot json at all\n}\n", [])
    assert all(isinstance(item, FioText) for item in items)
    assert [item.line for item in items] == ["{", "not json at all", "}"]


def test_crlf_line_endings_are_accepted() -> None:
    pretty = json.dumps({"timestamp_ms": 9}, indent=2).replace("\n", "\r\n").encode()
    assert _summary(_split(pretty + b"\r\n", [])) == [("doc", 9)]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=60000), max_size=40))
def test_property_any_split_gives_the_same_items(cut_points: list[int]) -> None:
    data = (FIO_FIXTURES / "randrw-rate200-json+.txt").read_bytes()
    assert _summary(_split(data, [c % (len(data) + 1) for c in cut_points])) == _summary(_split(data, []))


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=400), st.lists(st.integers(min_value=0, max_value=400), max_size=10))
def test_property_random_bytes_never_raise_and_keep_visible_lines(noise: bytes, cuts: list[int]) -> None:
    items = _split(noise, [c % (len(noise) + 1) for c in cuts])
    for item in items:
        assert isinstance(item, (FioDocument, FioText))
    visible_lines = [line for line in noise.split(b"\n") if line.strip()]
    if b"{" not in noise:
        assert len([i for i in items if isinstance(i, FioText)]) == len(visible_lines)


def test_every_recorded_capture_parses() -> None:
    for name in recorded_fio_outputs():
        data = (FIO_FIXTURES / name).read_bytes()
        docs = [i for i in _split(data, []) if isinstance(i, FioDocument)]
        assert docs, name
        assert all("jobs" in d.doc for d in docs), name


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=4000), max_size=30), st.integers(min_value=5, max_value=200))
def test_property_truncated_then_whole_documents_split_anywhere(cut_points: list[int], cut_at: int) -> None:
    pretty = json.dumps({"timestamp_ms": 7, "jobs": [{"read": {"total_ios": 1}}]}, indent=2).encode()
    data = b"hello\n" + pretty[: min(cut_at, len(pretty) - 3)] + b"\n" + pretty + b"\nbye\n" + pretty + b"\n"
    expected = [("text", "hello"), ("text", "iotui: dropped"), ("doc", 7), ("text", "bye"), ("doc", 7)]
    got = [(kind, text[:14] if kind == "text" else text) for kind, text in _summary(_split(data, [c % (len(data) + 1) for c in cut_points]))]
    assert got == expected


def _standard_library_documents(name: str) -> list[dict]:
    """The capture's documents as the standard library's json reads them (no splitter)."""
    text = (FIO_FIXTURES / name).read_text()
    documents, depth, current = [], 0, []
    for line in text.splitlines():
        if line == "{":
            depth, current = 1, [line]
        elif depth:
            current.append(line)
            if line == "}":
                depth = 0
                documents.append(json.loads("\n".join(current)))
    return documents


def test_every_recorded_document_reads_the_same_with_either_parser(monkeypatch) -> None:
    from iotui.core.fio import status

    pytest.importorskip("orjson", reason="orjson is the optional fast parser; the test extras install it")
    for name in recorded_fio_outputs():
        expected = _standard_library_documents(name)
        with_orjson = [item.doc for item in _split((FIO_FIXTURES / name).read_bytes(), []) if isinstance(item, FioDocument)]
        monkeypatch.setattr(status, "orjson", None)
        without = [item.doc for item in _split((FIO_FIXTURES / name).read_bytes(), []) if isinstance(item, FioDocument)]
        monkeypatch.undo()
        assert with_orjson == expected == without, name


def test_what_orjson_refuses_is_read_by_the_standard_library() -> None:
    from iotui.core.fio.status import parse_json

    raw = b'{\n  "big" : 340282366920938463463374607431768211456,\n  "mean" : NaN,\n  "iops" : 1.5e3\n}'
    doc = parse_json(raw)
    assert doc["big"] == 2**128 and doc["mean"] != doc["mean"] and doc["iops"] == 1500.0
    with pytest.raises(ValueError):
        parse_json(b"{\n  \"cut\" : \n}")


def test_a_large_document_is_parsed_with_the_collector_paused_and_restored() -> None:
    import gc

    from iotui.core.fio import status

    jobs = [{"jobname": f"job{i}", "read": {"iops": float(i), "clat_ns": {"bins": {str(j): j for j in range(40)}}}}
            for i in range(1500)]
    raw = json.dumps({"jobs": jobs}, indent=2).encode()
    assert len(raw) >= status.LARGE_DOCUMENT_BYTES
    seen: list[bool] = []
    real = status.orjson

    class Spy:
        JSONDecodeError = ValueError

        @staticmethod
        def loads(data):  # what the collector's state is while the document is parsed
            seen.append(gc.isenabled())
            return json.loads(bytes(data))

    status.orjson = Spy  # type: ignore[assignment]
    try:
        assert gc.isenabled()
        frozen_before = gc.get_freeze_count()
        doc = status.parse_json(memoryview(raw))
        assert gc.isenabled()  # restored
        # The document's objects went straight to the oldest generation, none left frozen.
        assert gc.get_freeze_count() == frozen_before
        assert any(obj is doc["jobs"] for obj in gc.get_objects(generation=2))
        assert not any(obj is doc["jobs"] for obj in gc.get_objects(generation=0))
        gc.disable()
        try:
            status.parse_json(raw)
            assert not gc.isenabled()  # a caller's own choice is left as it was
        finally:
            gc.enable()
    finally:
        status.orjson = real
    assert seen == [False, False]
    assert doc["jobs"][1499]["read"]["iops"] == 1499.0


def test_a_document_split_from_a_stream_is_parsed_in_place_and_the_stream_goes_on() -> None:
    document = json.dumps({"jobs": [{"jobname": "a", "read": {"iops": 5.0}}]}, indent=2).encode()
    splitter = StatusSplitter()
    items = splitter.feed(document + b"\nfio: a line after\n" + document + b"\n") + splitter.close()
    docs = [item.doc for item in items if isinstance(item, FioDocument)]
    texts = [item.line for item in items if isinstance(item, FioText)]
    assert len(docs) == 2 and docs[0]["jobs"][0]["read"]["iops"] == 5.0
    assert texts == ["fio: a line after"]


def test_two_documents_cut_short_one_after_another_are_each_dropped_then_the_whole_one_read() -> None:
    pretty = json.dumps({"timestamp_ms": 9, "jobs": [{"read": {"total_ios": 3}}]}, indent=2).encode()
    first, second = pretty[:20], pretty[:33]  # each cut inside a line
    for cuts in ([], list(range(0, 200, 7))):
        items = _split(first + b"\n" + second + b"\n" + pretty + b"\n", cuts)
        assert [(kind, text[:14] if kind == "text" else text) for kind, text in _summary(items)] == [
            ("text", "iotui: dropped"), ("text", "iotui: dropped"), ("doc", 9)]
        dropped = [item.line for item in items if isinstance(item, FioText)]
        lines = [len(part.splitlines()) for part in (first, second)]  # each cut line ended by the next "{"
        assert dropped == [f"iotui: dropped an incomplete fio status document ({count} lines)" for count in lines]
