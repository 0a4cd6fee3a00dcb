"""A large live document read with only the per-second fields (core/fio/live_decode.py): the
same seconds as the whole document gives, fio's whole report on demand, and the whole parse
wherever a document does not fit the fields' types."""

from __future__ import annotations

import copy
import json

import pytest

from iotui.core.fio import live_decode, status
from iotui.core.fio.intervals import snapshot_from_document
from iotui.core.fio.section_seconds import SectionSecondsDeriver
from iotui.core.fio.status import FioDocument, StatusSplitter
from tests.conftest import FIO_FIXTURES, recorded_fio_outputs

pytestmark = pytest.mark.skipif(not live_decode.available(),
                                reason="msgspec (the fast extra, in the test extras) is not installed")


def _documents(data: bytes, *, live: bool) -> list[FioDocument]:
    splitter = StatusSplitter(live=live)
    return [item for item in splitter.feed(data) + splitter.close() if isinstance(item, FioDocument)]


def _seconds(documents: list[FioDocument]) -> list:
    deriver = SectionSecondsDeriver()
    return [deriver.feed(item.doc) for item in documents]


def test_every_recorded_capture_gives_the_same_seconds_read_live(monkeypatch) -> None:
    monkeypatch.setattr(status, "LARGE_DOCUMENT_BYTES", 0)  # every document the live way
    for name in recorded_fio_outputs():
        data = (FIO_FIXTURES / name).read_bytes()
        whole = _documents(data, live=False)
        live = _documents(data, live=True)
        assert all(item.raw is not None for item in live), name  # each fitted the live fields' types
        assert [snapshot_from_document(i.doc) for i in live] == [snapshot_from_document(i.doc) for i in whole], name
        assert _seconds(live) == _seconds(whole), name
        assert [item.whole() for item in live] == [item.doc for item in whole], name


def test_a_published_report_reads_the_same_live() -> None:
    raw = (FIO_FIXTURES / "published" / "fio-tests-steadystate.json").read_bytes()
    doc = live_decode.decode_live(raw)
    assert doc is not None
    assert snapshot_from_document(doc) == snapshot_from_document(json.loads(raw))


def _widened(jobs: int) -> bytes:
    """A real 3-job capture's last document with ``jobs`` entries, printed as fio prints it."""
    data = (FIO_FIXTURES / "randread-3jobs-json+.txt").read_bytes()
    document = _documents(data, live=False)[-1].doc
    wide = copy.deepcopy(document)
    wide["jobs"] = []
    for index in range(jobs):
        entry = copy.deepcopy(document["jobs"][index % len(document["jobs"])])
        entry["jobname"] = f"{entry['jobname']}-{index}"
        wide["jobs"].append(entry)
    return (json.dumps(wide, indent=2, separators=(",", " : ")) + "\n").encode()


def test_a_large_document_is_read_live_and_whole_on_demand() -> None:
    data = _widened(300)
    assert len(data) >= status.LARGE_DOCUMENT_BYTES
    [live] = _documents(data, live=True)
    [whole] = _documents(data, live=False)
    assert whole.raw is None and live.raw == data.rstrip(b"\n")
    job = live.doc["jobs"][0]
    assert set(job) <= {"jobname", "groupid", "read", "write", "trim", "mixed"}
    assert set(job["read"]) <= {"total_ios", "io_bytes", "runtime", "clat_ns"}
    assert all(type(value) is str for value in job["read"]["clat_ns"]["bins"])  # keys as fio wrote them
    assert snapshot_from_document(live.doc) == snapshot_from_document(whole.doc)
    assert live.whole() == whole.doc


@pytest.mark.parametrize("spoil", [
    (b'"groupid" : 0', b'"groupid" : "0"'),   # a string where a number is
    (b'"io_bytes" : ', b'"io_bytes" : NaN, "x" : '),  # NaN: only the standard library reads it
])
def test_a_document_that_does_not_fit_the_types_is_parsed_whole(spoil: tuple[bytes, bytes]) -> None:
    data = _widened(300).replace(*spoil, 1)
    assert data != _widened(300)
    [item] = _documents(data, live=True)
    assert item.raw is None
    assert item.doc == _documents(data, live=False)[0].doc


def test_without_msgspec_every_document_is_parsed_whole(monkeypatch) -> None:
    monkeypatch.setattr(live_decode, "_DECODER", None)
    data = _widened(300)
    [item] = _documents(data, live=True)
    assert item.raw is None and "job options" in item.doc["jobs"][0]
