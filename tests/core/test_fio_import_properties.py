"""Property tests: whatever the importer is fed, it imports valid records or refuses cleanly."""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from iotui.core.records.importer import ImportRefused, import_fio_file
from iotui.core.records.files import validate_toml_dict
from tests.conftest import FIXTURES, fio_documents

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# IOTUI_HYPOTHESIS_EXAMPLES=5000 for a longer hunt.
PROPERTY_SETTINGS = settings(
    max_examples=int(os.environ.get("IOTUI_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def _trim_bins(doc: dict, keep: int = 12) -> dict:
    """Keep a few json+ bins per direction so examples stay small."""
    doc = copy.deepcopy(doc)
    for job in doc.get("jobs") or doc.get("client_stats") or []:
        for direction in ("read", "write", "trim"):
            clat = job.get(direction, {}).get("clat_ns") or job.get(direction, {}).get("clat") or {}
            if isinstance(clat.get("bins"), dict):
                clat["bins"] = dict(list(clat["bins"].items())[:keep])
    return doc


def _fio2_document() -> dict:
    text = (FIXTURES / "import" / "fio-2.2.10-randread-json.txt").read_text()
    return json.loads(text[text.index("\n{") + 1:])


def _client_document() -> dict:
    text = (FIXTURES / "import" / "client-server-2hosts-fio-3.33-json+.txt").read_text()
    return _trim_bins(json.loads(text[text.index("\n{") + 1:]))


BASE_DOCUMENTS = {
    "fio3": _trim_bins(fio_documents("randrw-rate200-json+.txt")[-1]),
    "fio3-group": _trim_bins(fio_documents("randwrite-2jobs-group-json+.txt")[-1]),
    "fio2": _fio2_document(),
    "client": _client_document(),
}
STATUS_CAPTURE = [_trim_bins(doc) for doc in fio_documents("randread-sigint-json+.txt")]
TEXT_REPORT = (FIXTURES / "import" / "seaweedfs-fio-3.42-normal.txt").read_text()

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3),
    max_leaves=8,
)


def _mutate(value: Any, data: st.DataObject, depth: int = 0) -> Any:
    """Replace, delete or retype one randomly chosen node of the document."""
    containers = isinstance(value, (dict, list)) and len(value) > 0
    if not containers or (depth > 0 and data.draw(st.integers(0, 4)) == 0):
        return data.draw(json_values)
    if isinstance(value, dict):
        key = data.draw(st.sampled_from(sorted(value)))
        action = data.draw(st.sampled_from(["descend", "descend", "descend", "delete", "replace"]))
        if action == "delete":
            del value[key]
        elif action == "replace":
            value[key] = data.draw(json_values)
        else:
            value[key] = _mutate(value[key], data, depth + 1)
        return value
    index = data.draw(st.integers(0, len(value) - 1))
    value[index] = _mutate(value[index], data, depth + 1)
    return value


def _check(path: Path) -> None:
    """The property: valid, saveable records, or ImportRefused naming the file."""
    try:
        records = import_fio_file(path)
    except ImportRefused as refusal:
        assert str(path) in str(refusal)
        return
    assert records
    for record in records:
        assert record.status == "imported"
        doc = record.to_toml_dict()
        validate_toml_dict(doc, "imported")
        round_tripped = tomllib.loads(tomli_w.dumps(doc))
        validate_toml_dict(round_tripped, "round trip")


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("import-properties") / "input.txt"


@PROPERTY_SETTINGS
@given(name=st.sampled_from(sorted(BASE_DOCUMENTS)), data=st.data(), mutations=st.integers(1, 4),
       before=st.text(max_size=30), after=st.text(max_size=30))
def test_mutated_documents_import_or_refuse(scratch: Path, name: str, data: st.DataObject, mutations: int,
                                             before: str, after: str) -> None:
    doc = copy.deepcopy(BASE_DOCUMENTS[name])
    for _ in range(mutations):
        doc = _mutate(doc, data)
    scratch.write_text(before + "\n" + json.dumps(doc, indent=2) + "\n" + after, errors="surrogatepass")
    _check(scratch)


@PROPERTY_SETTINGS
@given(data=st.data(), which=st.integers(0, len(STATUS_CAPTURE) - 1))
def test_mutated_status_capture_imports_or_refuses(scratch: Path, data: st.DataObject, which: int) -> None:
    docs = copy.deepcopy(STATUS_CAPTURE)
    docs[which] = _mutate(docs[which], data)
    scratch.write_text("\n".join(json.dumps(doc, indent=2) for doc in docs) + "\nfio: terminating on signal 2\n")
    _check(scratch)


@PROPERTY_SETTINGS
@given(content=st.binary(max_size=400))
def test_random_bytes_import_or_refuse(scratch: Path, content: bytes) -> None:
    scratch.write_bytes(content)
    _check(scratch)


@PROPERTY_SETTINGS
@given(data=st.data())
def test_mutated_text_reports_import_or_refuse(scratch: Path, data: st.DataObject) -> None:
    lines = TEXT_REPORT.splitlines()
    for _ in range(data.draw(st.integers(1, 6))):
        index = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["delete", "replace", "garble"]))
        if action == "delete":
            del lines[index]
        elif action == "replace":
            lines[index] = data.draw(st.text(max_size=40))
        else:
            line = lines[index]
            if line:
                at = data.draw(st.integers(0, len(line) - 1))
                lines[index] = line[:at] + data.draw(st.text(min_size=1, max_size=3)) + line[at + 1:]
        if not lines:
            break
    scratch.write_text("\n".join(lines), errors="surrogatepass")
    _check(scratch)


TERSE_AND_GROUPS = [
    (FIXTURES / "import" / "fio-3.33" / name).read_text()
    for name in ("two-groups-terse-v5.txt", "two-groups-terse-v2.txt", "two-groups-normal.txt")
]


@PROPERTY_SETTINGS
@given(data=st.data())
def test_mutated_terse_lines_and_job_by_job_groups_import_or_refuse(scratch: Path, data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(TERSE_AND_GROUPS))
    separator = ";" if text[:2] in ("5;", "2;") else "\n"
    parts = text.split(separator)
    for _ in range(data.draw(st.integers(1, 6))):
        index = data.draw(st.integers(0, len(parts) - 1))
        parts[index] = data.draw(st.sampled_from(["", "-1", "99999999999999999999", "1e9", "x", "0", parts[0]]))
    scratch.write_text(separator.join(parts))
    _check(scratch)
