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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

SCHEMA_VERSION = 1
RUN_STATUSES = ("completed", "stopped", "failed", "imported", "reference")
DIRECTIONS = ("read", "write", "trim")
RESPONSIVENESS_LEVELS = ("ok", "sluggish", "unresponsive")

NUMBER = (int, float)
_DIRECTION_KEYS = (
    "iops",
    "bw_bytes",
    "io_bytes",
    "total_ios",
    "lat_mean_ns",
    "lat_min_ns",
    "lat_max_ns",
    "lat_p50_ns",
    "lat_p90_ns",
    "lat_p99_ns",
    "lat_p99_9_ns",
)
# Keys every direction summary must carry. Percentiles may be absent when fio
# recorded no completion latencies (e.g. an imported plain-text report).
_DIRECTION_REQUIRED = ("iops", "bw_bytes", "io_bytes", "total_ios")

# Expected types of the fixed tables: key -> (types, required).
_RUN_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "id": ((str,), True),
    "preset": ((str,), True),
    "status": ((str,), True),
    "started": ((dt.datetime,), True),
    "duration_s": (NUMBER, True),
    "fio_version": ((str,), True),
    "fio_argv": ((list,), True),
    "fio_report": ((str,), True),
    "title": ((str,), False),
    "exit_code": ((int,), False),
    "iotui_version": ((str,), False),
    "source": ((str,), False),
    "reference": ((bool,), False),
    "test_file_bytes": ((int,), False),
    "sync_time_s": (NUMBER, False),
}
_HOST_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "hostname": ((str,), True),
    "system": ((str,), True),
    "kernel": ((str,), True),
    "cpu_model": ((str,), True),
    "cpu_count": ((int,), True),
    "mem_total_bytes": ((int,), True),
}
_TARGET_KEYS: dict[str, tuple[tuple[type, ...], bool]] = {
    "path": ((str,), True),
    "filesystem": ((str,), True),
    "device": ((str,), True),
    "mount_options": ((str,), True),
    "model": ((str,), False),
    "rotational": ((bool,), False),
    "block_device": ((bool,), False),
}
_CPU_KEYS = (
    "user_pct",
    "system_pct",
    "iowait_pct",
    "ctx_switches_per_s",
    "interrupts_per_s",
    "fio_cpu_cores",
    "iops_per_fio_core",
    "iops_per_busy_core",
)


class RecordError(Exception):
    """A record that cannot be loaded or saved; str() is a full sentence."""


@dataclass
class RunRecord:
    """One run, as saved on disk. See docs/record-format.md."""

    run: dict[str, Any]
    host: dict[str, Any]
    target: dict[str, Any]
    options: dict[str, str] = field(default_factory=dict)
    summary: dict[str, dict[str, Any]] = field(default_factory=dict)
    samples: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[dict[str, str]] = field(default_factory=list)
    messages: list[dict[str, str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

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
    def started(self) -> dt.datetime | None:
        started = self.run.get("started")
        return started if isinstance(started, dt.datetime) else None

    def directions(self) -> list[str]:
        """Directions that did I/O, in read/write/trim order."""
        return [d for d in DIRECTIONS if d in self.summary]

    def metric(self, direction: str, key: str) -> float | None:
        value = self.summary.get(direction, {}).get(key)
        return float(value) if isinstance(value, NUMBER) and not isinstance(value, bool) else None

    def total_iops(self) -> float:
        return sum(self.metric(d, "iops") or 0.0 for d in self.directions())

    def add_warning(self, code: str, message: str) -> None:
        if not any(w.get("code") == code and w.get("message") == message for w in self.warnings):
            self.warnings.append({"code": code, "message": message})

    # -- (de)serialisation ------------------------------------------------
    def to_toml_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"schema": SCHEMA_VERSION}
        doc["run"] = _drop_none(self.run)
        doc["host"] = _drop_none(self.host)
        doc["target"] = _drop_none(self.target)
        doc["options"] = {str(k): str(v) for k, v in self.options.items()}
        doc["summary"] = {name: _drop_none(table) for name, table in self.summary.items()}
        for key, value in self.extra.items():
            doc[key] = value
        if self.samples:
            doc["samples"] = [_drop_none(sample) for sample in self.samples]
        if self.warnings:
            doc["warnings"] = [dict(w) for w in self.warnings]
        if self.messages:
            doc["messages"] = [dict(m) for m in self.messages]
        return doc

    def to_json_dict(self) -> dict[str, Any]:
        doc = self.to_toml_dict()
        if self.path is not None:
            doc["path"] = str(self.path)
        return json.loads(json.dumps(doc, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _drop_none(table: dict[str, Any]) -> dict[str, Any]:
    """TOML has no null: an absent signal is an absent key."""
    cleaned: dict[str, Any] = {}
    for key, value in table.items():
        if value is None:
            continue
        if isinstance(value, float) and value != value:  # NaN is not a number to keep
            continue
        if isinstance(value, dict):
            value = _drop_none(value)
        cleaned[key] = value
    return cleaned


# -- validation -------------------------------------------------------------

_KNOWN_TOP = {"schema", "run", "host", "target", "options", "summary", "samples", "warnings", "messages"}


def _type_names(types: tuple[type, ...]) -> str:
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        bool: "true or false",
        dt.datetime: "a date-time",
        dict: "a table",
    }
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in types))


def _check(value: Any, types: tuple[type, ...], where: str, key: str) -> None:
    if isinstance(value, bool) and bool not in types:
        raise RecordError(f"{where}: key '{key}' should be {_type_names(types)}, found {value!r}.")
    if not isinstance(value, types):
        raise RecordError(
            f"{where}: key '{key}' should be {_type_names(types)}, "
            f"found {type(value).__name__} {value!r}."
        )


def _check_table(
    doc: dict[str, Any], table: str, spec: dict[str, tuple[tuple[type, ...], bool]], where: str
) -> dict[str, Any]:
    value = doc.get(table)
    if not isinstance(value, dict):
        raise RecordError(f"{where}: the table [{table}] is missing or is not a table.")
    for key, (types, required) in spec.items():
        if key not in value:
            if required:
                raise RecordError(f"{where}: key '{table}.{key}' is missing.")
            continue
        _check(value[key], types, where, f"{table}.{key}")
    return value


def validate_toml_dict(doc: dict[str, Any], where: str) -> RunRecord:
    """Turn a parsed TOML document into a RunRecord, or raise RecordError."""
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
    run = _check_table(doc, "run", _RUN_KEYS, where)
    if run["status"] not in RUN_STATUSES:
        raise RecordError(
            f"{where}: key 'run.status' should be one of {', '.join(RUN_STATUSES)}, found {run['status']!r}."
        )
    if not all(isinstance(arg, str) for arg in run["fio_argv"]):
        raise RecordError(f"{where}: key 'run.fio_argv' should be an array of strings.")
    host = _check_table(doc, "host", _HOST_KEYS, where)
    target = _check_table(doc, "target", _TARGET_KEYS, where)
    options = doc.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
        raise RecordError(f"{where}: table [options] should map option names to strings.")
    summary = doc.get("summary", {})
    if not isinstance(summary, dict):
        raise RecordError(f"{where}: [summary] should be a table.")
    for direction in DIRECTIONS:
        if direction not in summary:
            continue
        table = summary[direction]
        if not isinstance(table, dict):
            raise RecordError(f"{where}: [summary.{direction}] should be a table.")
        for key in _DIRECTION_REQUIRED:
            if key not in table:
                raise RecordError(f"{where}: key 'summary.{direction}.{key}' is missing.")
        for key in _DIRECTION_KEYS:
            if key in table:
                _check(table[key], NUMBER, where, f"summary.{direction}.{key}")
                if table[key] < 0:
                    raise RecordError(
                        f"{where}: key 'summary.{direction}.{key}' should not be negative, found {table[key]}."
                    )
    if "cpu" in summary:
        for key in _CPU_KEYS:
            if key in summary["cpu"]:
                _check(summary["cpu"][key], NUMBER, where, f"summary.cpu.{key}")
    if "pressure" in summary:
        level = summary["pressure"].get("responsiveness")
        if level is not None and level not in RESPONSIVENESS_LEVELS:
            raise RecordError(
                f"{where}: key 'summary.pressure.responsiveness' should be one of "
                f"{', '.join(RESPONSIVENESS_LEVELS)}, found {level!r}."
            )
    samples = doc.get("samples", [])
    if not isinstance(samples, list):
        raise RecordError(f"{where}: 'samples' should be an array of tables.")
    for index, sample in enumerate(samples):
        if not isinstance(sample, dict):
            raise RecordError(f"{where}: samples[{index}] should be a table.")
        for key in ("t_s", "dt_s"):
            if key not in sample:
                raise RecordError(f"{where}: key 'samples[{index}].{key}' is missing.")
        for key, value in sample.items():
            if key == "responsiveness":
                continue
            _check(value, NUMBER, where, f"samples[{index}].{key}")
    warnings = doc.get("warnings", [])
    if not isinstance(warnings, list) or not all(
        isinstance(w, dict) and isinstance(w.get("code"), str) and isinstance(w.get("message"), str)
        for w in warnings
    ):
        raise RecordError(f"{where}: 'warnings' should be an array of tables with 'code' and 'message' strings.")
    messages = doc.get("messages", [])
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get("text"), str) for m in messages
    ):
        raise RecordError(f"{where}: 'messages' should be an array of tables with a 'text' string.")
    extra = {key: value for key, value in doc.items() if key not in _KNOWN_TOP}
    return RunRecord(
        run=dict(run),
        host=dict(host),
        target=dict(target),
        options=dict(options),
        summary={k: dict(v) for k, v in summary.items()},
        samples=[dict(s) for s in samples],
        warnings=[dict(w) for w in warnings],
        messages=[dict(m) for m in messages],
        extra=extra,
    )


# -- files --------------------------------------------------------------------


def default_runs_dir(env: dict[str, str] | None = None) -> Path:
    """``$IOTUI_RUNS_DIR``, else ``$XDG_DATA_HOME/iotui/runs`` (~/.local/share/iotui/runs)."""
    env = os.environ if env is None else env
    if env.get("IOTUI_RUNS_DIR"):
        return Path(env["IOTUI_RUNS_DIR"]).expanduser()
    data_home = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "iotui" / "runs"


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
    record = validate_toml_dict(doc, str(path))
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
    record.run["fio_report"] = report_name
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
