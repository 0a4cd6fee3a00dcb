"""Run records on disk: validated on the way in (any schema) and out, written atomically, listed.

The record itself is :class:`iotui.core.records.record.RunRecord`; the keys and
types it may hold are :mod:`iotui.core.records.schema`.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any, Callable

import tomli_w

from iotui.core.numbers import is_number
from iotui.core.safe_files import remove_stale_temp_files, write_files
from iotui.core.records.record import RunRecord
from iotui.core.records.guard import GuardError, read_guarded_toml
from iotui.core.records.migrate import migrate_v1, rename_run_keys
from iotui.core.records.schema import DIRECTIONS, KNOWN_TOP, SCHEMA_VERSION, RecordError, check_document


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
            if not is_number(value):
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
        doc = read_guarded_toml(path, "record")
    except GuardError as error:
        if error.code == "not-toml":
            raise RecordError(f"{error} If it is fio's own output, bring it in with: iotui import {path}") from None
        raise RecordError(str(error)) from None
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


def sync_paths(paths: list[Path]) -> None:
    """Make files written with ``durable=False`` durable: one ``syncfs`` of their filesystem(s).

    Thousands of imported records, each fsynced as it is written, wait on the disk thousands of
    times (3,000 reports: about 9,000 fsyncs); one syncfs per filesystem waits once. Where
    ``syncfs`` is missing (not Linux), each file and its directory is fsynced instead."""
    if not paths:
        return
    directories = list(dict.fromkeys(path.parent for path in paths))
    syncfs = _syncfs()
    if syncfs is not None:
        devices: set[int] = set()
        for directory in directories:
            try:
                device = directory.stat().st_dev
            except OSError:
                continue
            if device in devices:
                continue
            if _fsync_path(directory, syncfs):
                devices.add(device)
            else:  # syncfs refused: this directory's files one by one
                for path in [p for p in paths if p.parent == directory] + [directory]:
                    _fsync_path(path, os.fsync)
        return
    for path in [*paths, *directories]:
        _fsync_path(path, os.fsync)


def _syncfs() -> Callable[[int], object] | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.syncfs
    except (OSError, AttributeError):
        return None


def _fsync_path(path: Path, sync: Callable[[int], object]) -> bool:
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return sync(handle) in (None, 0)  # os.fsync returns None; syncfs 0, or -1 on failure
    except OSError:
        return False
    finally:
        os.close(handle)


def save_record(
    record: RunRecord, runs_dir: Path, fio_report: dict | None = None, name: str | None = None, *, durable: bool = True
) -> Path:
    """Write the record (and fio's final JSON report beside it) atomically.

    ``durable=False``: no fsync per file; the caller calls :func:`sync_paths` once for the lot.
    """
    runs_dir = Path(runs_dir)
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RecordError(
            f"Cannot create the runs directory {runs_dir} ({error.strerror or error}); "
            "choose another runs directory (IOTUI_RUNS_DIR sets it)."
        ) from None
    file_name = name or record_file_name(record)
    path = runs_dir / file_name
    report_name = path.name[: -len(".toml")] + ".fio.json" if fio_report is not None else ""
    record.run["report"] = report_name
    doc = record.to_toml_dict()
    # Validate what we are about to write, so a bad record never reaches disk.
    validate_toml_dict(doc, str(path))
    files = [(path, tomli_w.dumps(doc).encode("utf-8"))]
    if fio_report is not None:
        # Without indent, json uses its C encoder: 10x faster on a json+ report of 80 KB.
        files.insert(0, (runs_dir / report_name, json.dumps(fio_report).encode()))
    try:
        # Both complete before either is renamed, the record last: a disk with room for fio's
        # report but not the record keeps neither, and no record names a report that is missing.
        write_files(files, durable=durable)
    except OSError as error:
        raise RecordError(
            f"Cannot save the record to {path} ({error.strerror or error}); "
            "choose another runs directory (IOTUI_RUNS_DIR sets it)."
        ) from None
    record.path = path
    return path


def list_records(runs_dir: Path) -> list[tuple[Path, RunRecord | None, str | None]]:
    """Every ``*.toml`` in the runs directory: (path, record or None, error or None)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    remove_stale_temp_files(runs_dir)
    entries: list[tuple[Path, RunRecord | None, str | None]] = []
    for path in sorted(runs_dir.glob("*.toml")):
        if path.name.startswith(".") or path.name.endswith(".sweep.toml"):
            continue
        try:
            entries.append((path, load_record(path), None))
        except RecordError as error:
            entries.append((path, None, str(error)))
    return entries
