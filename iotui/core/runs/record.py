"""The run record: one saved run as TOML, validated on the way in and out.

The format is a contract other features read (compare, sweeps, import);
``docs/record-format.md`` documents every key. Records are dict-shaped on
purpose: they are data on disk first, and a table of expected types below is
the single place that says what a valid record holds.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import tomli_w

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

from iotui.core.runs.paths import default_runs_dir  # noqa: F401  (re-exported: the app's start reads it alone)
from iotui.core.runs.record_guard import record_problem
from iotui.core.runs.record_migrate import migrate_v1, rename_run_keys, section_from_row, sections_from_legacy
from iotui.core.runs.record_schema import (
    DIRECTIONS,
    KNOWN_TOP,
    NUMBER,
    RESPONSIVENESS_LEVELS,
    RUN_STATUSES,
    SCHEMA_VERSION,
    RecordError,
    check_document,
)

__all__ = [
    "DIRECTIONS",
    "NUMBER",
    "RESPONSIVENESS_LEVELS",
    "RUN_STATUSES",
    "SCHEMA_VERSION",
    "RecordError",
    "RunRecord",
    "section_directions",
    "section_metric",
    "section_total_iops",
    "validate_toml_dict",
]


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, NUMBER) and not isinstance(value, bool) else None


def section_directions(section: dict[str, Any]) -> list[str]:
    """Directions that did I/O in one section, in read/write/trim order."""
    return [d for d in DIRECTIONS if isinstance(section.get(d), dict)]


def section_metric(section: dict[str, Any], direction: str, key: str) -> float | None:
    """One figure of one section's direction (``None`` where absent)."""
    table = section.get(direction)
    return _number(table.get(key)) if isinstance(table, dict) else None


def section_total_iops(section: dict[str, Any]) -> float:
    """Read + write + trim IOPS of one section: directions that ran at the same time."""
    return sum(section_metric(section, d, "iops") or 0.0 for d in section_directions(section))


class _SummaryView(dict):
    """Schema 1's ``[summary]`` of a one-section run; writing a table writes it to that section."""

    def __init__(self, record: RunRecord, tables: dict[str, Any]) -> None:
        super().__init__(tables)
        self._record = record

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        record = self._record
        if key == "pressure":
            record.pressure = value
            return
        if not record.sections:
            name = record.preset or "run"
            record.sections.append({"name": name, "jobs": [name], "groupid": 0})
        if len(record.sections) != 1:
            raise RecordError("A run with several sections has no one summary; set each section's figures.")
        record.sections[0][key] = value

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        if key == "pressure":
            self._record.pressure = {}
        elif len(self._record.sections) == 1:
            self._record.sections[0].pop(key, None)


class RunRecord:
    """One run, as saved on disk (schema 2). See docs/record-format.md.

    The unit of figures is the **section** (fio's reporting group): ``sections``
    is a list of TOML-shaped dicts in fio's order. ``summary`` is the schema 1
    view kept for readers of one-section runs: that section's directions and
    ``cpu`` (plus the run's ``pressure``); for a multi-section run it holds no
    figures, since nothing is summed across sections.
    """

    def __init__(
        self,
        run: dict[str, Any],
        host: dict[str, Any],
        target: dict[str, Any],
        options: dict[str, str] | None = None,
        summary: dict[str, Any] | None = None,
        samples: list[dict[str, Any]] | None = None,
        warnings: list[dict[str, Any]] | None = None,
        messages: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
        path: Path | None = None,
        *,
        sections: list[dict[str, Any]] | None = None,
        pauses: list[dict[str, Any]] | None = None,
        pressure: dict[str, Any] | None = None,
        hosts: list[dict[str, Any]] | None = None,
    ) -> None:
        self.run: dict[str, Any] = rename_run_keys(run)
        self.host = host
        self.target = target
        self.options: dict[str, str] = options if options is not None else {}
        self.samples: list[dict[str, Any]] = samples if samples is not None else []
        self.warnings: list[dict[str, Any]] = warnings if warnings is not None else []
        self.messages: list[dict[str, Any]] = messages if messages is not None else []
        self.extra: dict[str, Any] = extra if extra is not None else {}
        self.path = path
        self.sections: list[dict[str, Any]] = sections if sections is not None else []
        self.pauses: list[dict[str, Any]] = pauses if pauses is not None else []
        self.pressure: dict[str, Any] = pressure if pressure is not None else {}
        self.hosts: list[dict[str, Any]] = hosts if hosts is not None else []
        if summary:
            self.summary = summary

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunRecord):
            return NotImplemented
        return self.to_toml_dict() == other.to_toml_dict() and self.path == other.path

    def __repr__(self) -> str:
        return f"RunRecord(id={self.id!r}, preset={self.preset!r}, sections={self.section_names()!r})"

    # -- convenient reads -------------------------------------------------
    @property
    def id(self) -> str:
        return str(self.run.get("id", ""))

    @property
    def status(self) -> str:
        return str(self.run.get("status", ""))

    @property
    def preset(self) -> str:
        return str(self.run.get("preset", ""))

    @property
    def tool(self) -> str:
        return str(self.run.get("tool", "fio"))

    @property
    def tool_version(self) -> str:
        return str(self.run.get("tool_version", ""))

    @property
    def argv(self) -> list[str]:
        return [str(arg) for arg in self.run.get("argv") or []]

    @property
    def report(self) -> str:
        return str(self.run.get("report", ""))

    @property
    def paused_s(self) -> float:
        """Total time paused (0 when never paused)."""
        return _number(self.run.get("paused_s")) or 0.0

    @property
    def started(self) -> dt.datetime | None:
        started = self.run.get("started")
        return started if isinstance(started, dt.datetime) else None

    # -- sections ---------------------------------------------------------
    def section_names(self) -> list[str]:
        return [str(section.get("name", "")) for section in self.sections]

    @property
    def is_multi_section(self) -> bool:
        return len(self.sections) > 1

    @property
    def only_section(self) -> dict[str, Any] | None:
        """The one section of a one-section run; ``None`` when there are none or several."""
        return self.sections[0] if len(self.sections) == 1 else None

    def section_metric(self, index: int, direction: str, key: str) -> float | None:
        if not 0 <= index < len(self.sections):
            return None
        return section_metric(self.sections[index], direction, key)

    def section_samples(self, index: int) -> list[dict[str, Any]]:
        """The samples assigned to one section (a one-section run's unassigned samples too)."""
        if len(self.sections) == 1 and index == 0:
            return [s for s in self.samples if s.get("section", 0) == 0]
        return [s for s in self.samples if s.get("section") == index]

    def set_job_rows(self, rows: list[dict[str, Any]]) -> None:
        """Sections from schema 1 style per-job rows (``read_iops``...); the run's summed summary is dropped."""
        self.sections = [section_from_row(row, index) for index, row in enumerate(rows)]

    # -- schema 1 view ----------------------------------------------------
    @property
    def summary(self) -> dict[str, Any]:
        """Schema 1's ``[summary]`` of a one-section run (figures absent for several sections)."""
        view: dict[str, Any] = {}
        section = self.only_section
        if section is not None:
            for key, value in section.items():
                if isinstance(value, dict) and key not in ("options", "pressure", "steady", "cliff", "latency_target"):
                    view[key] = value
        if self.pressure:
            view["pressure"] = self.pressure
        return _SummaryView(self, view)

    @summary.setter
    def summary(self, summary: dict[str, Any]) -> None:
        name = str(self.sections[0].get("name")) if len(self.sections) == 1 else (self.preset or "run")
        self.sections = sections_from_legacy(summary, None, name)
        if isinstance(summary.get("pressure"), dict):
            self.pressure = dict(summary["pressure"])
            for section in self.sections:
                section.pop("pressure", None)
                section["pressure"] = dict(summary["pressure"])

    def directions(self) -> list[str]:
        """Directions that did I/O in a one-section run (none for several sections)."""
        section = self.only_section
        return section_directions(section) if section is not None else []

    def metric(self, direction: str, key: str) -> float | None:
        """A one-section run's figure; ``None`` for several sections (use :meth:`section_metric`)."""
        section = self.only_section
        return section_metric(section, direction, key) if section is not None else None

    def total_iops(self) -> float:
        section = self.only_section
        return section_total_iops(section) if section is not None else 0.0

    def add_warning(self, code: str, message: str) -> None:
        if not any(w.get("code") == code and w.get("message") == message for w in self.warnings):
            self.warnings.append({"code": code, "message": message})

    # -- (de)serialisation ------------------------------------------------
    def to_toml_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"schema": SCHEMA_VERSION}
        doc["run"] = _drop_none(rename_run_keys(self.run))
        doc["host"] = _drop_none(self.host)
        doc["target"] = _drop_none(self.target)
        doc["options"] = {str(k): str(v) for k, v in self.options.items()}
        if self.pressure:
            doc["pressure"] = _drop_none(self.pressure)
        for key, value in self.extra.items():
            if key not in KNOWN_TOP and key != "jobs":
                doc[key] = value
        if self.pauses:
            doc["pauses"] = [_drop_none(pause) for pause in self.pauses]
        sections = self.sections
        legacy_rows = self.extra.get("jobs")
        if isinstance(legacy_rows, list) and legacy_rows:
            sections = sections_from_legacy({}, legacy_rows, self.preset or "run")
        doc["sections"] = [_drop_none(section) for section in sections]
        if self.samples:
            one = len(sections) == 1
            doc["samples"] = [
                _drop_none({"section": 0, **sample} if one and "section" not in sample else sample)
                for sample in self.samples
            ]
        if self.hosts:
            doc["hosts"] = [_drop_none(host) for host in self.hosts]
        if self.warnings:
            doc["warnings"] = [dict(w) for w in self.warnings]
        if self.messages:
            doc["messages"] = [dict(m) for m in self.messages]
        return doc

    def to_json_dict(self) -> dict[str, Any]:
        """The record as JSON: ``sections`` in fio's order; ``summary`` only for a one-section run."""
        doc = self.to_toml_dict()
        for section in doc["sections"]:
            if isinstance(section.get("steady"), dict):
                section["steady"].setdefault("after_s", None)  # JSON says "not reached" with null
        if len(doc["sections"]) == 1:
            section = doc["sections"][0]
            doc["summary"] = {
                key: value for key, value in section.items() if key in (*DIRECTIONS, "cpu") and isinstance(value, dict)
            }
        if self.path is not None:
            doc["path"] = str(self.path)
        return json.loads(json.dumps(doc, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _drop_none(value: Any) -> Any:
    """TOML has no null: an absent signal is an absent key (also inside nested tables and arrays)."""
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            if item is None or (isinstance(item, float) and item != item):  # NaN is not a number to keep
                continue
            cleaned[key] = _drop_none(item)
        return cleaned
    if isinstance(value, list):
        return [_drop_none(item) for item in value if item is not None]
    return value


# -- validation -------------------------------------------------------------


def validate_toml_dict(doc: dict[str, Any], where: str) -> RunRecord:
    """Turn a parsed TOML document (schema 1 or 2) into a RunRecord, or raise RecordError."""
    schema = doc.get("schema")
    if not isinstance(schema, int) or isinstance(schema, bool):
        raise RecordError(f"{where}: key 'schema' should be an integer (this iotui writes {SCHEMA_VERSION}).")
    if schema > SCHEMA_VERSION:
        raise RecordError(
            f"{where}: schema {schema} was written by a newer iotui (this one reads up to "
            f"{SCHEMA_VERSION}); upgrade iotui to open it."
        )
    if schema < 1:
        raise RecordError(f"{where}: key 'schema' should be 1 or more, found {schema}.")
    if schema == 1:
        _check_v1_summary(doc, where)
        doc = migrate_v1(doc)
    elif isinstance(doc.get("run"), dict):
        doc = {**doc, "run": rename_run_keys(doc["run"])}
    check_document(doc, where)
    extra = {key: value for key, value in doc.items() if key not in KNOWN_TOP}
    return RunRecord(
        run=dict(doc["run"]),
        host=dict(doc["host"]),
        target=dict(doc["target"]),
        options=dict(doc.get("options", {})),
        samples=[dict(s) for s in doc.get("samples", [])],
        warnings=[dict(w) for w in doc.get("warnings", [])],
        messages=[dict(m) for m in doc.get("messages", [])],
        extra=extra,
        sections=[dict(s) for s in doc.get("sections", [])],
        pauses=[dict(p) for p in doc.get("pauses", [])],
        pressure=dict(doc.get("pressure", {})),
        hosts=[dict(h) for h in doc.get("hosts", [])],
    )


def _check_v1_summary(doc: dict[str, Any], where: str) -> None:
    """Schema 1 names its figures ``summary.<direction>.<key>``: refuse bad ones in those words."""
    summary = doc.get("summary", {})
    if not isinstance(summary, dict):
        raise RecordError(f"{where}: [summary] should be a table.")
    for direction in DIRECTIONS:
        table = summary.get(direction)
        if table is None:
            continue
        if not isinstance(table, dict):
            raise RecordError(f"{where}: [summary.{direction}] should be a table.")
        for key in ("iops", "bw_bytes", "io_bytes", "total_ios"):
            if key not in table:
                raise RecordError(f"{where}: key 'summary.{direction}.{key}' is missing.")
        for key, value in table.items():
            if isinstance(value, bool) or not isinstance(value, NUMBER):
                raise RecordError(
                    f"{where}: key 'summary.{direction}.{key}' should be an integer or a number, "
                    f"found {type(value).__name__} {value!r}."
                )
    for name in ("jobs", "hosts"):
        rows = doc.get(name, [])
        if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
            raise RecordError(f"{where}: '{name}' should be an array of tables.")


# -- files --------------------------------------------------------------------


def load_record(path: Path) -> RunRecord:
    """Load and validate one record; any problem is a RecordError sentence."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise RecordError(f"{path}: cannot read the record ({error.strerror or error}).") from None
    try:
        doc = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"{path}: the record is not UTF-8 text.") from None
    except tomllib.TOMLDecodeError as error:
        raise RecordError(f"{path}: the record is not valid TOML ({error}).") from None
    except RecursionError:
        raise RecordError(f"{path}: the record nests too deeply to be a record.") from None
    problem = record_problem(doc)
    if problem:
        raise RecordError(f"{path}: the record cannot be used: {problem}.")
    try:
        record = validate_toml_dict(doc, str(path))
    except RecordError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError, RecursionError) as error:
        raise RecordError(f"{path}: the record does not hold what a record holds ({error!r}).") from None
    record.path = path
    return record


def record_file_name(record: RunRecord) -> str:
    started = record.started or dt.datetime.now(dt.timezone.utc)
    stamp = started.astimezone(dt.timezone.utc).strftime("%Y%m%d-%H%M%S")
    preset = re.sub(r"[^A-Za-z0-9_.-]+", "-", record.preset or "run").strip("-") or "run"
    return f"{stamp}-{preset}-{record.id[:8]}.toml"


def write_atomically(path: Path, data: bytes) -> None:
    """Temp file in the same directory, fsync, rename, fsync the directory."""
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp creates 0600; records are ordinary files, so honour the umask.
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(handle, 0o666 & ~umask)
        with os.fdopen(handle, "wb") as temp_file:
            temp_file.write(data)
            temp_file.flush()
            os.fsync(temp_file.fileno())
        os.replace(temp_name, path)
    except BaseException:
        try:
            os.unlink(temp_name)
        except OSError:
            pass
        raise
    try:
        directory_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(directory_fd)
    except OSError:
        pass
    finally:
        os.close(directory_fd)


def save_record(
    record: RunRecord, runs_dir: Path, fio_report: dict | None = None, name: str | None = None
) -> Path:
    """Write the record (and fio's final JSON report beside it) atomically."""
    runs_dir = Path(runs_dir)
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RecordError(
            f"Cannot create the runs directory {runs_dir} ({error.strerror or error}); "
            "choose another with --runs-dir or IOTUI_RUNS_DIR."
        ) from None
    file_name = name or record_file_name(record)
    path = runs_dir / file_name
    report_name = path.name[: -len(".toml")] + ".fio.json" if fio_report is not None else ""
    record.run["report"] = report_name
    doc = record.to_toml_dict()
    # Validate what we are about to write, so a bad record never reaches disk.
    validate_toml_dict(doc, str(path))
    try:
        if fio_report is not None:
            write_atomically(runs_dir / report_name, json.dumps(fio_report, indent=1).encode())
        write_atomically(path, tomli_w.dumps(doc).encode("utf-8"))
    except OSError as error:
        raise RecordError(
            f"Cannot save the record to {path} ({error.strerror or error}); "
            "choose another directory with --runs-dir or IOTUI_RUNS_DIR."
        ) from None
    record.path = path
    return path


def list_records(runs_dir: Path) -> list[tuple[Path, RunRecord | None, str | None]]:
    """Every ``*.toml`` in the runs directory: (path, record or None, error or None)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    entries: list[tuple[Path, RunRecord | None, str | None]] = []
    for path in sorted(runs_dir.glob("*.toml")):
        if path.name.startswith(".") or path.name.endswith(".sweep.toml"):
            continue
        try:
            entries.append((path, load_record(path), None))
        except RecordError as error:
            entries.append((path, None, str(error)))
    return entries
