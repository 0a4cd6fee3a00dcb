"""Another program's I/O during a local fio run: per fio document, then per section and one warning each.

At each fio document the session hands over fio's cumulative bytes; this reads the
target device's counters at that moment (so both cover the same second), works out
that second's outside bytes (:mod:`iotui.core.interference`) and, only while a
second is suspect, looks at which processes moved bytes (:mod:`iotui.core.host.processes`).
Seconds in a stretch of suspect ones are marked on their sample rows (``interference =
true``, with the outside bytes) as soon as no later second can change the mark (:meth:`settle`:
a second later at most), so what a row says when it is streamed is what the record keeps. When
the record is built each section gets an ``interference`` table, and a warning of kind
``interference`` names the top process.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from iotui.core import format as fmt
from iotui.core.host.counters import read_diskstats
from iotui.core.interference import (
    SAMPLE_KEY, ByteCounts, OutsideAttribution, OutsideSecond, affected, settled_count, spans,
)
from iotui.core.host.io_probe import IO_PROBE_BLOCK_BYTES
from iotui.core.host.proc_files import read_text
from iotui.core.host.processes import ProcessIo, ProcessIoScanner
from iotui.core.numbers import number

if TYPE_CHECKING:
    from iotui.core.fio.intervals import Snapshot
    from iotui.core.host.io_probe import IoProbeStats
    from iotui.core.records.record import RunRecord

WARNING_CODE = "interference"
# Processes named per section in the record (the warning names the first).
PROCESSES_KEPT = 5
# A process that moved less than this in the section's affected seconds is not named.
PROCESS_MIN_BYTES = 1024 * 1024


class DeviceCounting(Protocol):
    """What the host sampler knows of the target's devices (``core/host/counters.py HostSampler``)."""

    proc_root: Path
    counted_devices: list[str]


@dataclass
class _Second:
    """One fio document's second: its sample rows, its outside I/O, the processes seen moving bytes."""

    rows: range
    outside: OutsideSecond
    processes: list[ProcessIo] = field(default_factory=list)


def dirty_bytes(proc_root: Path) -> float:
    """Dirty and writeback data in memory now (/proc/meminfo), 0 where it cannot be read."""
    text = read_text(proc_root / "meminfo") or ""
    total_kib = 0.0
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("Dirty", "Writeback"):
            try:
                total_kib += float(value.split()[0])
            except (IndexError, ValueError):
                continue
    return total_kib * 1024


class OutsideIoWatch:
    """Outside I/O of one run; :meth:`observe` at each fio document, :meth:`apply` to the finished record."""

    def __init__(self, devices: list[str], proc_root: Path, own_pids: set[int], fio_pid: int | None) -> None:
        self.devices = list(devices)
        self.proc_root = proc_root
        self.attribution = OutsideAttribution()
        self.scanner = ProcessIoScanner(own_pids, fio_pid, proc_root)
        self.seconds: list[_Second] = []
        self._settled = 0  # seconds whose rows carry their final marks
        self._marks: list[bool] = []

    @classmethod
    def for_sampler(cls, sampler: object, own_pids: set[int], fio_pid: int | None) -> OutsideIoWatch | None:
        """A watch on the sampler's devices; None where the sampler counts no device (no /proc, a fake)."""
        devices = getattr(sampler, "counted_devices", None)
        proc_root = getattr(sampler, "proc_root", None)
        if not devices or not isinstance(proc_root, Path):
            return None
        return cls(list(devices), proc_root, own_pids, fio_pid)

    def observe(self, whole: Snapshot | None, rows: range, io_probe: IoProbeStats | None = None) -> OutsideSecond | None:
        """This document's second; ``rows``: the sample rows it made (none while fio lays out its files)."""
        counters = read_diskstats(self.proc_root, self.devices)
        if counters is None or whole is None:
            return None
        device = ByteCounts(counters["read_bytes"], counters["write_bytes"])
        fio = ByteCounts(*(float(whole.directions[d].io_bytes) if d in whole.directions else 0.0
                           for d in ("read", "write")))
        if not rows:
            # Before fio's I/O (its files laid out): the dirty data then may reach the device
            # later without being anyone's I/O now.
            self.attribution.rebase(device, fio, dirty_bytes(self.proc_root))
            return None
        probe = ByteCounts(
            io_probe.read_iops * IO_PROBE_BLOCK_BYTES, io_probe.write_iops * IO_PROBE_BLOCK_BYTES
        ) if io_probe is not None else ByteCounts()
        second = self.attribution.feed(device, fio, probe)
        if not self.seconds:
            self.attribution.allow_dirty(dirty_bytes(self.proc_root))  # the layout's tail, still in memory
        if second is None:
            return None
        entry = _Second(rows, second)
        if second.suspect:
            entry.processes = self.scanner.scan()  # at most once per document: once a second
        self.seconds.append(entry)
        return second

    def settle(self, rows: list[dict[str, object]], *, final: bool = False) -> int:
        """Mark the rows of every second whose mark no later second can change (every second when
        ``final``); returns how many of ``rows``, from the first, now carry their final marks."""
        suspect = [entry.outside.suspect for entry in self.seconds]
        upto = len(suspect) if final else settled_count(suspect)
        if upto > self._settled:
            # Only the stretch the unsettled seconds are in can change their marks.
            start = self._settled
            while start > 0 and suspect[start - 1]:
                start -= 1
            marks = affected(suspect[start:upto])[self._settled - start:]
            for entry, mark in zip(self.seconds[self._settled:upto], marks):
                _mark_rows([rows[i] for i in entry.rows if i < len(rows)], entry.outside if mark else None)
                self._marks.append(mark)
            self._settled = upto
        return self.seconds[upto].rows.start if upto < len(self.seconds) else len(rows)

    def apply(self, record: RunRecord) -> None:
        """Settle every second, give each section its ``interference`` table and warning."""
        self.settle(record.samples, final=True)
        tables: dict[int, _SectionTable] = {}
        for entry, mark in zip(self.seconds, self._marks):
            rows = [record.samples[i] for i in entry.rows if i < len(record.samples)]
            if not mark or not rows:
                continue
            for row, share in zip(rows, _shares(rows)):
                section = row.get("section")
                if isinstance(section, int) and 0 <= section < len(record.sections):
                    tables.setdefault(section, _SectionTable()).add(row, entry.processes, share)
        for index, table in sorted(tables.items()):
            section = record.sections[index]
            section["interference"] = table.to_record()
            record.add_warning(WARNING_CODE, interference_sentence(str(section.get("name", index)), section["interference"]))


def _shares(rows: list[dict[str, object]]) -> list[float]:
    """Each row's share of its document's second: by its interval, evenly where none is known."""
    spans_s = [number(row.get("dt_s")) or 0.0 for row in rows]
    whole_s = sum(spans_s)
    return [dt_s / whole_s for dt_s in spans_s] if whole_s else [1.0 / len(rows)] * len(rows)


def _mark_rows(rows: list[dict[str, object]], outside: OutsideSecond | None) -> None:
    """A document's rows: marked with their share of its outside bytes, or unmarked (``None``)."""
    for row in rows:
        for key in (SAMPLE_KEY, "outside_read_bytes", "outside_write_bytes"):
            row.pop(key, None)
    if outside is None or not rows:
        return
    for row, share in zip(rows, _shares(rows)):
        row[SAMPLE_KEY] = True
        row["outside_read_bytes"] = round(outside.outside_read_bytes * share)
        row["outside_write_bytes"] = round(outside.outside_write_bytes * share)


class _SectionTable:
    def __init__(self) -> None:
        self.seconds: list[tuple[float, float]] = []
        self.read_bytes = 0.0
        self.write_bytes = 0.0
        self.processes: dict[tuple[int, str], list[float]] = {}

    def add(self, row: dict[str, object], processes: list[ProcessIo], share: float) -> None:
        t_s = number(row.get("t_s")) or 0.0
        self.seconds.append((t_s - (number(row.get("dt_s")) or 0.0), t_s))
        self.read_bytes += float(row["outside_read_bytes"])  # type: ignore[arg-type]
        self.write_bytes += float(row["outside_write_bytes"])  # type: ignore[arg-type]
        for found in processes:
            moved = self.processes.setdefault((found.pid, found.name), [0.0, 0.0])
            moved[0] += found.read_bytes * share
            moved[1] += found.write_bytes * share

    def explained(self, moved: list[float]) -> float:
        """How much of the section's outside I/O a process's bytes could be: /proc/PID/io does not
        say which device, so a process reading another disk does not outrank the one writing this one."""
        return min(moved[0], self.read_bytes) + min(moved[1], self.write_bytes)

    def to_record(self) -> dict[str, object]:
        named = [item for item in self.processes.items() if self.explained(item[1]) >= PROCESS_MIN_BYTES]
        top = sorted(named, key=lambda item: self.explained(item[1]), reverse=True)[:PROCESSES_KEPT]
        return {
            "seconds": len(self.seconds),
            "spans_s": [list(span) for span in spans(self.seconds)],
            "outside_read_bytes": round(self.read_bytes),
            "outside_write_bytes": round(self.write_bytes),
            "processes": [
                {"name": name, "pid": pid, "read_bytes": round(moved[0]), "write_bytes": round(moved[1])}
                for (pid, name), moved in top
            ],
        }


def interference_sentence(section_name: str, table: dict[str, object]) -> str:
    """``dd (pid 4123) wrote 5.9 GiB during seconds 12-32 of quick: ...`` from a section's table."""
    listed = table.get("spans_s")
    stretches = [f"{a}-{b}" if a != b else f"{a}" for a, b in (listed if isinstance(listed, list) else [])]
    seconds = " and ".join(stretches)
    read_bytes = number(table.get("outside_read_bytes")) or 0.0
    write_bytes = number(table.get("outside_write_bytes")) or 0.0
    moved = " and ".join(
        f"{verb} {fmt.size_spaced(size)}" for verb, size in (("read", read_bytes), ("wrote", write_bytes)) if size
    ) or "moved bytes"
    where = f"during seconds {seconds} of {section_name}"
    processes = table.get("processes")
    top = processes[0] if isinstance(processes, list) and processes and isinstance(processes[0], dict) else None
    if top is not None:
        top_read, top_write = number(top.get("read_bytes")) or 0.0, number(top.get("write_bytes")) or 0.0
        # The direction in which it did most of the device's outside I/O.
        verb, size = (("wrote", top_write) if min(top_write, write_bytes) >= min(top_read, read_bytes)
                      else ("read", top_read))
        name = top.get("name")
        other_fio = ", not this run's fio," if name == "fio" else ""
        who = f"{name} (pid {top.get('pid')}){other_fio} {verb} {fmt.size_spaced(size)} {where}"
        rest = f"; programs other than this run's fio {moved} on the device then"
    else:
        who = f"Another program {moved} on the device {where}"
        rest = (" (the kernel did not say which: it shows another user's processes' I/O only to root)"
                if os.geteuid() != 0 else "")
    return (f"{who}{rest}. Those seconds are not the device's alone: steady state and compare leave them out; "
            "run again when it is quiet to measure the device by itself.")
