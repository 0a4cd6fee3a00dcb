"""Published results of the studies iotui grew from, shipped as reference records.

Each ``iotui/references/<name>.toml`` is an ordinary run record with
``status = "reference"`` and ``run.reference = true``; ``run.source`` says
which study it comes from. A published table is one record whose rows are
its ``[[jobs]]`` (``read_iops``, ``write_lat_mean_ns``, ``cpu_user_pct``...);
:func:`reference_rows` turns each row into a record of its own, so a user's
run can be compared or exported beside any row. On the command line a
reference is ``ref:NAME`` (every row) or ``ref:NAME:ROW`` (one row, by its
name, e.g. ``ref:openbsd-numjobs-randread:8`` for ``numjobs=8``).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from iotui.core.runs.cache_check import suspicious_results
from iotui.core.runs.record import DIRECTIONS, RecordError, RunRecord, load_record

REFERENCES_DIR = Path(__file__).resolve().parents[2] / "references"
PREFIX = "ref:"
_REQUIRED_COUNTS = ("io_bytes", "total_ios")


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


def _row_summary(row: dict[str, Any]) -> dict[str, dict[str, Any]]:
    summary: dict[str, dict[str, Any]] = {}
    for direction in DIRECTIONS:
        table = {k[len(direction) + 1:]: v for k, v in row.items() if k.startswith(f"{direction}_")}
        if table:
            for key in _REQUIRED_COUNTS:
                table.setdefault(key, 0)  # published tables give rates, not counts
            table.setdefault("bw_bytes", 0)
            table.setdefault("iops", 0)
            summary[direction] = table
    cpu = {k[len("cpu_"):]: v for k, v in row.items() if k.startswith("cpu_")}
    if cpu:
        summary["cpu"] = cpu
    return summary


def _is_metric(key: str) -> bool:
    return key.startswith("cpu_") or any(key.startswith(f"{d}_") for d in DIRECTIONS)


def row_record(record: RunRecord, row: dict[str, Any]) -> RunRecord:
    """One ``[[jobs]]`` row as a record: the table's set-up plus the row's settings and figures."""
    name = str(row.get("name", "?"))
    single = copy.deepcopy(record)
    single.extra.pop("jobs", None)
    single.run["id"] = f"{record.id}#{name}"
    single.run["title"] = f"{record.run.get('title') or record.preset} — {name}"
    for key, value in row.items():
        if key not in ("name", "notes") and not _is_metric(key):
            single.options[key] = str(value)
    single.summary = _row_summary(row)
    single.warnings = [w for w in single.warnings if not w.get("code", "").startswith("cache")]
    if row.get("notes"):
        single.messages = [*single.messages, {"source": "reference", "text": str(row["notes"])}]
    for code, message in suspicious_results(single):
        single.add_warning(code, message)
    return single


def reference_rows(record: RunRecord) -> list[RunRecord]:
    """One record per row of a published table; the record itself when it has no rows."""
    rows = record.extra.get("jobs")
    if not isinstance(rows, list) or not rows:
        return [record]
    return [row_record(record, row) for row in rows if isinstance(row, dict)]


def _row_matches(row: dict[str, Any], wanted: str) -> bool:
    name = str(row.get("name", ""))
    return name == wanted or name.split("=", 1)[-1] == wanted


def resolve_reference(spec: str, directory: Path = REFERENCES_DIR) -> list[RunRecord]:
    """``ref:NAME`` -> every row as a record; ``ref:NAME:ROW`` -> that row."""
    body = spec[len(PREFIX):] if spec.startswith(PREFIX) else spec
    name, _, wanted = body.partition(":")
    record = load_reference(name, directory)
    rows = record.extra.get("jobs") if isinstance(record.extra.get("jobs"), list) else []
    if not wanted:
        return reference_rows(record)
    matches = [row for row in rows if isinstance(row, dict) and _row_matches(row, wanted)]
    if not matches:
        names = ", ".join(str(row.get("name")) for row in rows if isinstance(row, dict)) or "none"
        raise RecordError(f"Reference {name!r} has no row {wanted!r}; its rows are: {names}.")
    return [row_record(record, row) for row in matches]
