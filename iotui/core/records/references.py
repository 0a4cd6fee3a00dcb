"""Published results of the studies iotui grew from, shipped as reference records.

Each ``iotui/references/<name>.toml`` is an ordinary run record with
``status = "reference"`` and ``run.reference = true``; ``run.source`` says
which study it comes from. A published table is one record whose rows are
its sections (schema 1's ``[[jobs]]`` rows: ``read_iops``, ``cpu_user_pct``...);
:func:`reference_rows` turns each row into a record of its own, so a user's
run can be compared or exported beside any row. On the command line a
reference is ``ref:NAME`` (every row) or ``ref:NAME:ROW`` (one row, by its
name, e.g. ``ref:openbsd-numjobs-randread:8`` for ``numjobs=8``).
"""

from __future__ import annotations

import copy
from pathlib import Path

from iotui.core.records.cache_check import suspicious_results
from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record
from iotui.core.records.schema import RecordError

REFERENCES_DIR = Path(__file__).resolve().parents[2] / "references"
PREFIX = "ref:"


def reference_names(directory: Path = REFERENCES_DIR) -> list[str]:
    return sorted(path.stem for path in Path(directory).glob("*.toml"))


def list_references(directory: Path = REFERENCES_DIR) -> list[RunRecord]:
    """Every shipped reference record, validated, sorted by name."""
    return [load_record(Path(directory) / f"{name}.toml") for name in reference_names(directory)]


def load_reference(name: str, directory: Path = REFERENCES_DIR) -> RunRecord:
    path = Path(directory) / f"{name}.toml"
    if not path.is_file():
        raise RecordError(
            f"There is no reference named {name!r}; the references are: {', '.join(reference_names(directory))}."
        )
    return load_record(path)


def row_record(record: RunRecord, section: dict[str, object]) -> RunRecord:
    """One published row (a section) as a record: the table's set-up plus the row's settings and figures."""
    name = str(section.get("name", "?"))
    single = copy.deepcopy(record)
    single.run["id"] = f"{record.id}#{name}"
    single.run["title"] = f"{record.run.get('title') or record.preset} — {name}"
    options = section.get("options")
    for key, value in (options.items() if isinstance(options, dict) else ()):
        single.options[str(key)] = str(value)
    single.sections = [copy.deepcopy(section)]
    single.warnings = [w for w in single.warnings if not w.get("code", "").startswith("cache")]
    if section.get("notes"):
        single.messages = [*single.messages, {"source": "reference", "text": str(section["notes"])}]
    for code, message in suspicious_results(single):
        single.add_warning(code, message)
    return single


def reference_rows(record: RunRecord) -> list[RunRecord]:
    """One record per row (section) of a published table; the record itself when it has one or none."""
    if not record.is_multi_section:
        return [record]
    return [row_record(record, section) for section in record.sections]


def _row_matches(section: dict[str, object], wanted: str) -> bool:
    name = str(section.get("name", ""))
    return name == wanted or name.split("=", 1)[-1] == wanted


def resolve_reference(spec: str, directory: Path = REFERENCES_DIR) -> list[RunRecord]:
    """``ref:NAME`` -> every row as a record; ``ref:NAME:ROW`` -> that row."""
    body = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    name, _, wanted = body.partition(":")
    record = load_reference(name, directory)
    if not wanted:
        return reference_rows(record)
    matches = [section for section in record.sections if _row_matches(section, wanted)]
    if not matches:
        names = ", ".join(record.section_names()) or "none"
        raise RecordError(f"Reference {name!r} has no row {wanted!r}; its rows are: {names}.")
    return [row_record(record, section) for section in matches]
