"""Schema 1 records -> schema 2, in memory (docs/record-format.md, "Reading schema 1 records").

Schema 1 held one ``[summary]`` for the whole run. A run with one job section
becomes one section named after its preset (or its one job). A run whose
record also has ``[[jobs]]`` rows ran several job sections one after another
and its ``[summary]`` was their sum: each row becomes a section with its own
figures and the sum is dropped, because it describes nothing that ran.
"""

from __future__ import annotations

import copy
from typing import Any

from iotui.core.numbers import is_number
from iotui.core.records.schema import DIRECTIONS, RUN_RENAMES

# [[jobs]] row keys that are settings, not figures.
_ROW_SETTINGS_SKIP = ("name", "notes")


def rename_run_keys(run: dict[str, Any]) -> dict[str, Any]:
    """``fio_version``/``fio_argv``/``fio_report`` -> ``tool_version``/``argv``/``report``; add ``tool``."""
    renamed = dict(run)
    for old, new in RUN_RENAMES.items():
        if old in renamed:
            value = renamed.pop(old)
            renamed.setdefault(new, value)
    if "tool" not in renamed:
        renamed["tool"] = tool_of(renamed)
    return renamed


def tool_of(run: dict[str, Any]) -> str:
    """sysbench records of schema 1 kept their version in fio_version: tell them by preset or argv."""
    preset = str(run.get("preset", ""))
    argv = run.get("argv") or []
    first = str(argv[0]) if argv else ""
    version = str(run.get("tool_version", ""))
    if "sysbench" in preset or first.rsplit("/", 1)[-1] == "sysbench" or version.startswith("sysbench"):
        return "sysbench"
    return "fio"


def _is_figure(key: str) -> bool:
    return key.startswith("cpu_") or any(key.startswith(f"{d}_") for d in DIRECTIONS)


def section_from_summary(summary: dict[str, Any], name: str) -> dict[str, Any]:
    """Schema 1's ``[summary]`` (directions, cpu, anything else but pressure) as one section."""
    section: dict[str, Any] = {"name": name, "jobs": [name], "groupid": 0}
    for key, table in summary.items():
        if key == "pressure" or not isinstance(table, dict):
            continue
        section[key] = copy.deepcopy(table)
    if isinstance(summary.get("pressure"), dict):
        section["pressure"] = copy.deepcopy(summary["pressure"])
    return section


def section_from_row(row: dict[str, Any], groupid: int) -> dict[str, Any]:
    """One schema 1 ``[[jobs]]`` row (``read_iops``, ``cpu_user_pct``, settings) as a section."""
    name = str(row.get("name", f"job {groupid}"))
    section: dict[str, Any] = {"name": name, "jobs": [name], "groupid": groupid}
    options = {
        str(key): str(value)
        for key, value in row.items()
        if key not in _ROW_SETTINGS_SKIP and not _is_figure(key) and not isinstance(value, (dict, list))
    }
    if options:
        section["options"] = options
    for direction in DIRECTIONS:
        prefix = f"{direction}_"
        table = {key[len(prefix):]: value for key, value in row.items() if key.startswith(prefix)}
        if table:
            section[direction] = table
    cpu = {key[len("cpu_"):]: value for key, value in row.items() if key.startswith("cpu_")}
    cpu = {key: value for key, value in cpu.items() if is_number(value)}
    if cpu:
        section["cpu"] = cpu
    if isinstance(row.get("notes"), str):
        section["notes"] = row["notes"]
    return section


def host_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """A schema 1 client/server ``[[hosts]]`` row: ``hostname`` -> ``name``, figures -> one section."""
    name = str(row.get("hostname", row.get("name", "unknown")))
    host: dict[str, Any] = {"name": name}
    if isinstance(row.get("port"), int):
        host["port"] = row["port"]
    section = section_from_row({**row, "name": str(row.get("name", name))}, 0)
    section.pop("options", None)
    host["sections"] = [section]
    return host


def sections_from_legacy(
    summary: dict[str, Any], rows: list[Any] | None, name: str
) -> list[dict[str, Any]]:
    """The sections a schema 1 summary (and its ``[[jobs]]`` rows, if any) stand for."""
    job_rows = [row for row in rows or [] if isinstance(row, dict)]
    if job_rows:
        return [section_from_row(row, index) for index, row in enumerate(job_rows)]
    if any(isinstance(summary.get(key), dict) for key in summary if key != "pressure"):
        return [section_from_summary(summary, name)]
    return []


def migrate_v1(doc: dict[str, Any]) -> dict[str, Any]:
    """A schema 1 TOML document as a schema 2 document (the input is not changed)."""
    new: dict[str, Any] = {key: copy.deepcopy(value) for key, value in doc.items() if key not in ("summary", "jobs", "hosts")}
    new["schema"] = 2
    run = doc.get("run")
    if isinstance(run, dict):
        new["run"] = rename_run_keys(run)
    raw_summary = doc.get("summary")
    summary: dict[str, Any] = raw_summary if isinstance(raw_summary, dict) else {}
    if isinstance(summary.get("pressure"), dict):
        new["pressure"] = copy.deepcopy(summary["pressure"])
    rows = doc.get("jobs") if isinstance(doc.get("jobs"), list) else None
    name = str(run.get("preset", "run")) if isinstance(run, dict) else "run"
    sections = sections_from_legacy(summary, rows, name)
    if rows and isinstance(summary.get("pressure"), dict):
        for section in sections:
            section.pop("pressure", None)
    new["sections"] = sections
    samples = new.get("samples")
    if isinstance(samples, list) and len(sections) == 1:
        for sample in samples:
            if isinstance(sample, dict):
                sample.setdefault("section", 0)
    hosts = doc.get("hosts")
    if isinstance(hosts, list):
        new["hosts"] = [host_from_row(row) for row in hosts if isinstance(row, dict)]
    return new
