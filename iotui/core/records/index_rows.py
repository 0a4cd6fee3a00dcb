"""One History index row: the columns, the row made from a record, and the row read back as a run.

The index is a file on disk, so a row read back is untrusted: every text passes ``terminal_safe`` and every
value is checked (:mod:`iotui.core.records.index_values`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from iotui.core import format as fmt
from iotui.core.records.direction_figures import direction_figures, worst_p99_ns
from iotui.core.records.index_values import figure, json_list, number_list, safe_text, started_from
from iotui.core.records.record import RunRecord
from iotui.core.terminal_text import terminal_safe

COLUMNS = (
    "name", "mtime_ns", "size", "run_id", "preset", "title", "status", "started", "started_ts",
    "target", "filesystem", "device", "read_iops", "write_iops", "p99_ns", "notes", "tags", "forced",
    "error", "search", "paused_s", "responsiveness", "mixed_iops", "hosts",
)
@dataclass(frozen=True)
class IndexedRun:
    """One record file as History lists it (``error`` set: the file does not load)."""

    path: Path
    run_id: str
    preset: str
    title: str
    status: str
    started: dt.datetime | None
    target: str
    filesystem: str
    device: str
    read_iops: tuple[float | None, ...]
    """One value per section (fio's reporting group), in fio's order; nothing summed across them."""
    write_iops: tuple[float | None, ...]
    p99_ns: tuple[float | None, ...]
    """Each section's higher p99 of its directions (they ran at the same time)."""
    paused_s: float | None
    notes: str
    tags: tuple[str, ...]
    forced: bool
    error: str | None
    responsiveness: str = ""
    """The worst level above ok and its cause (``sluggish io_probe_write``); empty when ok or unknown."""
    mixed_iops: tuple[float | None, ...] = ()
    """fio's ``mixed`` direction (unified_rw_reporting) per section: reads and writes as one, never a read."""
    hosts: tuple[str, ...] = ()
    """The hosts a multi-host run ran on (``[[hosts]]`` names); empty for a run on this machine."""

    def where(self) -> str:
        """Where it ran: the target path, or ``2 hosts: h1,h2`` for a run on hosts."""
        return fmt.hosts(self.hosts) if self.hosts else self.target

    def to_json_dict(self) -> dict:
        return {
            "path": str(self.path), "id": self.run_id, "preset": self.preset, "title": self.title,
            "status": self.status, "started": self.started.isoformat() if self.started else None,
            "target": self.target, "filesystem": self.filesystem, "device": self.device,
            "sections_read_iops": list(self.read_iops), "sections_write_iops": list(self.write_iops),
            "sections_p99_ns": list(self.p99_ns), "sections_mixed_iops": list(self.mixed_iops),
            "paused_s": self.paused_s,
            "notes": self.notes, "tags": list(self.tags), "forced": self.forced, "error": self.error,
            "responsiveness": self.responsiveness or None, "hosts": list(self.hosts),
        }


def is_record_file(name: str) -> bool:
    """A run record of the directory (not a sweep record, not a hidden or temporary file)."""
    return name.endswith(".toml") and not name.startswith(".") and not name.endswith(".sweep.toml")


def row_for(
    name: str, stat: os.stat_result, record: RunRecord | None, error: str | None, hosts: list[str] | None = None
) -> tuple:
    """The index row; ``hosts``: the record's host names where its ``hosts`` were not read."""
    if record is None:
        # A file's name (and so its refusal) comes from whoever wrote the directory: shown safe.
        error = terminal_safe(error or "")
        search = f"{name} bad file {error or ''}".lower()
        return (name, stat.st_mtime_ns, stat.st_size, "", "", "", "bad file", "", stat.st_mtime,
                "", "", "", "[]", "[]", "[]", "", "[]", 0, error or "", search, None, "", "[]", "[]")
    started = record.started
    sections = list(record.sections)
    notes = str(record.run.get("notes") or "")
    raw_tags = record.run.get("tags") or []
    tag_list = [str(tag) for tag in raw_tags] if isinstance(raw_tags, list) else [str(raw_tags)]
    tags = " ".join(tag_list)
    target = str(record.target.get("path", ""))
    date = started.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if started else ""
    title = str(record.run.get("title") or "")
    responsiveness = _verdict(record.pressure)
    # Names from the file: shown, so stripped of terminal escapes as every outside text is.
    host_names = [terminal_safe(str(host)) for host in (hosts if hosts is not None else _host_names(record))]
    search = " ".join(
        [name, record.preset, title, target, record.status, responsiveness, str(record.target.get("filesystem", "")),
         str(record.target.get("device", "")), date, notes, tags, record.id, *host_names]
    ).lower()
    return (
        name, stat.st_mtime_ns, stat.st_size, record.id, record.preset, title, record.status,
        started.isoformat() if started else "", started.timestamp() if started else stat.st_mtime,
        target, str(record.target.get("filesystem", "")), str(record.target.get("device", "")),
        json.dumps(_sections_iops(sections, "read")), json.dumps(_sections_iops(sections, "write")),
        json.dumps([worst_p99_ns(section) for section in sections]), notes, json.dumps(tag_list),
        1 if record.run.get("forced") else 0, None, search, record.paused_s or None, responsiveness,
        json.dumps(_sections_iops(sections, "mixed")), json.dumps(host_names),
    )


def _host_names(record: RunRecord) -> list[str]:
    return [str(host.get("name", "")) for host in record.hosts]


def _verdict(pressure: dict) -> str:
    """The run's worst responsiveness level above ok, with the signal behind it: ``sluggish io_probe_write``."""
    level = str((pressure or {}).get("responsiveness") or "")
    if level in ("", "ok"):
        return ""
    cause = str(pressure.get("cause") or "")
    return f"{level} {cause}".strip()


def _sections_iops(sections: list[dict[str, object]], direction: str) -> list[float | None]:
    """One direction's IOPS per section, in fio's order (None where a section did no such I/O)."""
    return [figures.iops if (figures := direction_figures(section, direction)) else None for section in sections]


def indexed_run(runs_dir: Path, row: Iterable) -> IndexedRun | None:
    """A row read back as a run, every text made terminal-safe and every value checked (None: not a
    record file's row). The index is a file on disk: whatever it holds is read as untrusted."""
    data = dict(zip(COLUMNS, row))
    name = data["name"]
    if not isinstance(name, str) or "/" in name or not is_record_file(name):
        return None
    return IndexedRun(
        path=runs_dir / name, run_id=safe_text(data["run_id"]), preset=safe_text(data["preset"]),
        title=safe_text(data["title"]), status=safe_text(data["status"]), started=started_from(data["started"]),
        target=safe_text(data["target"]), filesystem=safe_text(data["filesystem"]), device=safe_text(data["device"]),
        read_iops=number_list(data["read_iops"]), write_iops=number_list(data["write_iops"]),
        p99_ns=number_list(data["p99_ns"]), paused_s=figure(data["paused_s"]), notes=safe_text(data["notes"]),
        tags=tuple(safe_text(tag) for tag in json_list(data["tags"])), forced=bool(data["forced"]),
        error=safe_text(data["error"]) or None, responsiveness=safe_text(data["responsiveness"]),
        mixed_iops=number_list(data["mixed_iops"]), hosts=tuple(safe_text(host) for host in json_list(data["hosts"])),
    )
