"""The sweep record: one TOML file listing a sweep's points, their values and records.

Saved as ``<stamp>-<preset>-<id>.sweep.toml`` in the runs directory (the run
record listing skips that suffix) and rewritten atomically after every point,
so an interrupted sweep can resume: points whose status is "completed" are not
run again. The format is documented in ``docs/sweeps.md``.
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

import tomli_w

from iotui.core.numbers import is_number, number
from iotui.core.safe_files import write_file
from iotui.core.sweep import SWEEP_SUFFIX
from iotui.core.records.guard import GuardError, read_guarded_toml
from iotui.core.sweep.points import PointResult
from iotui.core.sweep.values import SweepAxis

SWEEP_SCHEMA_VERSION = 1
SWEEP_STATUSES = ("running", "completed", "stopped", "failed")
POINT_STATUSES = ("pending", "running", "completed", "stopped", "failed")
# The figures kept per point, so the analysis runs from the sweep record alone.
RESULT_KEYS = (
    "read_iops",
    "write_iops",
    "read_bw_bytes",
    "write_bw_bytes",
    "read_lat_p99_ns",
    "write_lat_p99_ns",
    "read_lat_mean_ns",
    "write_lat_mean_ns",
    "read_lat_p50_ns",
    "write_lat_p50_ns",
    "read_lat_p90_ns",
    "write_lat_p90_ns",
    "read_lat_p99_9_ns",
    "write_lat_p99_9_ns",
    "iops_per_fio_core",
    "iops_per_busy_core",
    "cpu_user_pct",
    "cpu_system_pct",
    "ctx_switches_per_s",
    "interrupts_per_s",
    "wakeup_p99_ms",
    "io_read_p99_ms",
    "io_write_p99_ms",
)


class SweepRecordError(Exception):
    """A sweep record that cannot be read or written; str() is a full sentence."""


@dataclass
class SweepPointState:
    """One point: its varied values, where it stands, and its run record."""

    index: int
    params: dict[str, str]
    status: str = "pending"
    record: str = ""
    error: str = ""
    duration_s: float | None = None
    result: dict[str, Any] = field(default_factory=dict)
    # A preset of several sections: each section's figures (``name`` + the result keys), in fio's order.
    sections: list[dict[str, Any]] = field(default_factory=list)

    @property
    def finished(self) -> bool:
        return self.status == "completed"

    def point_result(self) -> PointResult:
        """The figures as the analysis reads them (each section's own for a preset of several)."""
        common: dict[str, Any] = {
            "params": dict(self.params),
            "mount_options": self.result.get("mount_options"),
            "status": self.status,
            "record": self.record or None,
        }
        if len(self.sections) > 1:
            by_section = tuple(
                PointResult(section=str(table.get("name") or f"section {position + 1}"), **_figures(table), **common)
                for position, table in enumerate(self.sections)
            )
            return PointResult(sections=len(by_section), by_section=by_section, **common)
        return PointResult(**_figures(self.result), **common)

    def set_result(self, result: PointResult) -> None:
        self.result = _result_table(result)
        self.sections = [{"name": part.section or "", **_result_table(part)} for part in result.by_section]


def _figures(table: dict[str, Any]) -> dict[str, Any]:
    figures: dict[str, Any] = {
        key: number(table.get(key))
        for key in RESULT_KEYS
    }
    for key in ("responsiveness", "responsiveness_detail", "responsiveness_cause"):
        figures[key] = table.get(key)
    return figures


def _result_table(result: PointResult) -> dict[str, Any]:
    table: dict[str, Any] = {key: getattr(result, key) for key in RESULT_KEYS}
    table["responsiveness"] = result.responsiveness
    table["responsiveness_detail"] = result.responsiveness_detail
    table["responsiveness_cause"] = result.responsiveness_cause
    table["mount_options"] = result.mount_options
    return {key: value for key, value in table.items() if value is not None}


@dataclass
class SweepRecord:
    """A whole sweep. ``base`` says how each point's preset was made (for --resume)."""

    id: str
    preset: str
    title: str
    created: dt.datetime
    status: str
    axes: list[SweepAxis]
    points: list[SweepPointState]
    base: dict[str, Any] = field(default_factory=dict)
    estimated_duration_s: float | None = None
    estimated_disk_bytes: int | None = None
    path: Path | None = None

    @classmethod
    def new(cls, preset: str, title: str, axes: list[SweepAxis], params: list[dict[str, str]], base: dict[str, Any]) -> SweepRecord:
        return cls(
            id=uuid.uuid4().hex,
            preset=preset,
            title=title,
            created=dt.datetime.now(dt.timezone.utc).replace(microsecond=0),
            status="running",
            axes=list(axes),
            points=[SweepPointState(index, dict(values)) for index, values in enumerate(params)],
            base=dict(base),
        )

    @property
    def keys(self) -> list[str]:
        return [axis.key for axis in self.axes]

    def pending(self) -> list[SweepPointState]:
        """Points still to run (anything not completed)."""
        return [point for point in self.points if not point.finished]

    def record_path(self, point: SweepPointState) -> Path | None:
        """A point's run record as an absolute path (stored relative to the sweep file)."""
        if not point.record:
            return None
        path = Path(point.record)
        if not path.is_absolute() and self.path is not None:
            path = self.path.parent / path
        return path

    def results(self) -> list[PointResult]:
        results = []
        for point in self.points:
            result = point.point_result()
            path = self.record_path(point)
            if path is not None:
                parts = tuple(replace(part, record=str(path)) for part in result.by_section)
                result = replace(result, record=str(path), by_section=parts)
            results.append(result)
        return results

    def signature(self) -> dict[str, Any]:
        """What makes two sweep commands the same sweep: the base and the axes."""
        return {"base": _plain(self.base), "axes": [[axis.key, list(axis.values)] for axis in self.axes]}

    # -- TOML ------------------------------------------------------------------
    def to_toml_dict(self) -> dict[str, Any]:
        sweep: dict[str, Any] = {
            "id": self.id,
            "preset": self.preset,
            "title": self.title,
            "created": self.created,
            "updated": dt.datetime.now(dt.timezone.utc).replace(microsecond=0),
            "status": self.status,
            "keys": self.keys,
        }
        if self.estimated_duration_s is not None:
            sweep["estimated_duration_s"] = float(self.estimated_duration_s)
        if self.estimated_disk_bytes is not None:
            sweep["estimated_disk_bytes"] = int(self.estimated_disk_bytes)
        doc: dict[str, Any] = {
            "schema": SWEEP_SCHEMA_VERSION,
            "sweep": sweep,
            "base": _plain(self.base),
            "axes": [{"key": axis.key, "values": list(axis.values)} for axis in self.axes],
            "points": [],
        }
        for point in self.points:
            table: dict[str, Any] = {"index": point.index, "params": dict(point.params), "status": point.status}
            if point.record:
                table["record"] = point.record
            if point.error:
                table["error"] = point.error
            if point.duration_s is not None:
                table["duration_s"] = float(point.duration_s)
            if point.result:
                table["result"] = dict(point.result)
            if point.sections:
                table["sections"] = [dict(section) for section in point.sections]
            doc["points"].append(table)
        return doc


def _plain(value: Any) -> Any:
    """Drop None (TOML has no null) and make tuples lists, recursively."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


# -- validation ---------------------------------------------------------------------


def _require(table: dict[str, Any], key: str, types: tuple[type, ...], where: str) -> Any:
    if key not in table:
        raise SweepRecordError(f"{where}: key '{key}' is missing.")
    value = table[key]
    if isinstance(value, bool) and bool not in types or not isinstance(value, types):
        names = " or ".join(t.__name__ for t in types)
        raise SweepRecordError(f"{where}: key '{key}' should be {names}, found {value!r}.")
    return value


def _found(value: object) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


def _check_numbers(table: dict[str, Any], keys: tuple[str, ...], prefix: str) -> None:
    """Each of ``keys`` that is there is a number (the guard has refused NaN and the infinities)."""
    for key in keys:
        if key in table and not is_number(table[key]):
            raise SweepRecordError(f"{prefix}{key}' should be a number, found {_found(table[key])}.")


def _check_text(table: dict[str, Any], keys: tuple[str, ...], prefix: str) -> None:
    for key in keys:
        if key in table and not isinstance(table[key], str):
            raise SweepRecordError(f"{prefix}{key}' should be a string, found {_found(table[key])}.")


def _check_figures(table: dict[str, Any], prefix: str) -> None:
    """A point's (or a section's) figures: numbers where the analysis computes, strings where it prints."""
    _check_numbers(table, RESULT_KEYS, prefix + ".")
    _check_text(table, ("responsiveness", "responsiveness_detail", "responsiveness_cause", "mount_options"), prefix + ".")


def sweep_from_toml_dict(doc: dict[str, Any], where: str) -> SweepRecord:
    """Validate a parsed sweep record; any problem is a sentence naming the key."""
    schema = doc.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool) or schema < 1:
        raise SweepRecordError(f"{where}: key 'schema' should be a positive integer (this iotui writes {SWEEP_SCHEMA_VERSION}).")
    if schema > SWEEP_SCHEMA_VERSION:
        raise SweepRecordError(f"{where}: schema {schema} was written by a newer iotui; upgrade iotui to open it.")
    sweep = _require(doc, "sweep", (dict,), where)
    status = _require(sweep, "status", (str,), f"{where} [sweep]")
    if status not in SWEEP_STATUSES:
        raise SweepRecordError(f"{where}: key 'sweep.status' should be one of {', '.join(SWEEP_STATUSES)}, found {status!r}.")
    axes = []
    for position, table in enumerate(_require(doc, "axes", (list,), where)):
        entry = f"{where} axes[{position}]"
        if not isinstance(table, dict):
            raise SweepRecordError(f"{entry} should be a table with 'key' and 'values'.")
        values = _require(table, "values", (list,), entry)
        if not values or not all(isinstance(v, str) for v in values):
            raise SweepRecordError(f"{entry}: key 'values' should be a non-empty array of strings.")
        axes.append(SweepAxis(_require(table, "key", (str,), entry), tuple(values)))
    keys = [axis.key for axis in axes]
    points = []
    point_tables = doc.get("points", [])
    if not isinstance(point_tables, list):
        raise SweepRecordError(f"{where}: key 'points' should be an array of tables, found {_found(point_tables)}.")
    for position, table in enumerate(point_tables):
        entry = f"{where} points[{position}]"
        if not isinstance(table, dict):
            raise SweepRecordError(f"{entry} should be a table.")
        params = _require(table, "params", (dict,), entry)
        if sorted(params) != sorted(keys) or not all(isinstance(v, str) for v in params.values()):
            raise SweepRecordError(f"{entry}: key 'params' should give a string value for each of {', '.join(keys)}.")
        point_status = _require(table, "status", (str,), entry)
        if point_status not in POINT_STATUSES:
            raise SweepRecordError(f"{entry}: key 'status' should be one of {', '.join(POINT_STATUSES)}, found {point_status!r}.")
        result = table.get("result", {})
        if not isinstance(result, dict):
            raise SweepRecordError(f"{entry}: key 'result' should be a table.")
        sections = table.get("sections", [])
        if not isinstance(sections, list) or not all(isinstance(section, dict) for section in sections):
            raise SweepRecordError(f"{entry}: key 'sections' should be an array of tables.")
        _check_figures(result, f"{entry}: key 'result")
        for number_in_list, section in enumerate(sections):
            _check_figures(section, f"{entry}: key 'sections[{number_in_list}]")
            _check_text(section, ("name",), f"{entry}: key 'sections[{number_in_list}]")
        _check_text(table, ("record", "error"), f"{entry}: key '")
        _check_numbers(table, ("duration_s",), f"{entry}: key '")
        duration = table.get("duration_s")
        points.append(
            SweepPointState(
                index=_require(table, "index", (int,), entry),
                params={key: params[key] for key in keys},
                status=point_status,
                record=str(table.get("record", "")),
                error=str(table.get("error", "")),
                duration_s=number(duration),
                result=dict(result),
                sections=[dict(section) for section in sections],
            )
        )
    created = _require(sweep, "created", (dt.datetime,), f"{where} [sweep]")
    _check_text(sweep, ("title",), f"{where}: key 'sweep.")
    _check_numbers(sweep, ("estimated_duration_s", "estimated_disk_bytes"), f"{where}: key 'sweep.")
    base = doc.get("base", {})
    if not isinstance(base, dict):
        raise SweepRecordError(f"{where}: [base] should be a table.")
    estimated_duration = sweep.get("estimated_duration_s")
    estimated_disk = sweep.get("estimated_disk_bytes")
    return SweepRecord(
        id=_require(sweep, "id", (str,), f"{where} [sweep]"),
        preset=_require(sweep, "preset", (str,), f"{where} [sweep]"),
        title=str(sweep.get("title", "")),
        created=created,
        status=status,
        axes=axes,
        points=points,
        base=dict(base),
        estimated_duration_s=number(estimated_duration),
        estimated_disk_bytes=int(estimated_disk) if isinstance(estimated_disk, int) else None,
    )


# -- files -----------------------------------------------------------------------------


def sweep_file_name(sweep: SweepRecord) -> str:
    stamp = sweep.created.astimezone(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    preset = re.sub(r"[^A-Za-z0-9_.-]+", "-", sweep.preset or "sweep").strip("-") or "sweep"
    return f"{stamp}-{preset}-{sweep.id[:8]}{SWEEP_SUFFIX}"


def save_sweep(sweep: SweepRecord, runs_dir: Path) -> Path:
    """Write (or rewrite) the sweep record atomically; returns its path."""
    runs_dir = Path(runs_dir)
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise SweepRecordError(
            f"Cannot create the runs directory {runs_dir} ({error.strerror or error}); choose another runs directory (IOTUI_RUNS_DIR sets it)."
        ) from None
    path = sweep.path if sweep.path is not None else runs_dir / sweep_file_name(sweep)
    doc = sweep.to_toml_dict()
    sweep_from_toml_dict(doc, str(path))  # never write what could not be read back
    try:
        write_file(path, tomli_w.dumps(doc).encode("utf-8"))
    except OSError as error:
        raise SweepRecordError(
            f"Cannot save the sweep record to {path} ({error.strerror or error}); choose another runs directory (IOTUI_RUNS_DIR sets it)."
        ) from None
    sweep.path = path
    return path


def load_sweep(path: Path) -> SweepRecord:
    """Read a sweep record through the same guard as run records (bounded, depth, finite numbers, no
    control characters), then check each key's type; any problem is a SweepRecordError sentence."""
    path = Path(path)
    try:
        doc = read_guarded_toml(path, "sweep record")
    except GuardError as error:
        raise SweepRecordError(str(error)) from None
    sweep = sweep_from_toml_dict(doc, str(path))
    sweep.path = path
    return sweep


def find_resumable(
    runs_dir: Path, signature: dict[str, Any], on_skipped: Callable[[str], None] | None = None
) -> SweepRecord | None:
    """The newest sweep record in ``runs_dir`` made by the same command, or None.

    Unreadable sweep files are skipped, each handed to ``on_skipped`` as its sentence: resuming
    must not fail because of an unrelated broken file.
    """
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return None
    matches = []
    for path in runs_dir.glob(f"*{SWEEP_SUFFIX}"):
        if path.name.startswith("."):
            continue
        try:
            sweep = load_sweep(path)
        except SweepRecordError as error:
            if on_skipped is not None:
                on_skipped(str(error))
            continue
        if sweep.signature() == _plain(signature):
            matches.append(sweep)
    if not matches:
        return None
    return max(matches, key=lambda sweep: (sweep.created, sweep.path.name if sweep.path else ""))


def relative_record_path(record_path: Path, sweep_dir: Path) -> str:
    """Store a record inside the runs directory by its name, anything else absolute."""
    record_path = Path(record_path)
    try:
        return str(record_path.resolve().relative_to(Path(sweep_dir).resolve()))
    except ValueError:
        return str(record_path.resolve())
