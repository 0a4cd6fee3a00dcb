"""The summary ``iotui run`` prints at its end and ``iotui show`` prints for a saved run, fitted to the
terminal: one table of fio's figures per section, CPU figures packed label by label, sentences broken
between words. ``width=None`` prints every column in full (``--wide``, or output into a pipe)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence, TextIO

from iotui.core import format as fmt
from iotui.core.host.verdict import verdict_text
from iotui.core.records.direction_figures import CpuFigures, DirectionFigures, cpu_figures
from iotui.core.records.findings import section_finding_lines
from iotui.core.records.record import RunRecord
from iotui.core.table import Column, Step, fit_table, labelled_path, pack, wrap

DIRECTION_COLUMNS = (
    Column("dir"),
    Column("IOPS", "right"),
    Column("bandwidth", "right"),
    Column("lat mean", "right"),
    Column("p50", "right"),
    Column("p99", "right"),
    Column("p99.9", "right"),
    Column("max", "right"),
)
DIRECTION_STEPS = (Step("drop", 4), Step("drop", 3), Step("drop", 7), Step("drop", 6))
"""Narrowing order (README "Tables that fit the terminal"): p50, then the mean, then max, then p99.9;
the direction, IOPS, bandwidth and p99 always stay."""

LAT_SOURCE_NOTES = {
    "bins-unpaused": "latency of the unpaused seconds",
    "derived": "latency count derived from IOPS x runtime",
}


def direction_lines(figures: Sequence[DirectionFigures], width: int | None, indent: str) -> list[str]:
    """One row per direction under a header, then a note for any direction whose latency is not fio's own;
    nothing for a section without figures."""
    if not figures:
        return []
    rows = [
        [f.direction, fmt.iops(f.iops), fmt.bytes_per_s(f.bw_bytes), fmt.latency_ns(f.lat_mean_ns),
         fmt.latency_ns(f.lat_p50_ns), fmt.latency_ns(f.lat_p99_ns), fmt.latency_ns(f.lat_p99_9_ns),
         fmt.latency_ns(f.lat_max_ns)]
        for f in figures
    ]
    inner = None if width is None else max(width - len(indent), 1)
    lines = [indent + line for line in fit_table(DIRECTION_COLUMNS, rows, inner, DIRECTION_STEPS)]
    for f in figures:
        note = LAT_SOURCE_NOTES.get(str(f.lat_source))
        if note:
            lines += wrap(f"{f.direction}: {note}", width, indent)
    return lines


def cpu_items(cpu: CpuFigures) -> list[str]:
    """The section's CPU figures, each with its label: the machine's where measured, fio's own
    (``usr_cpu``/``sys_cpu`` as fio printed them, named as fio's), and IOPS per core."""
    items = []
    machine = (("usr", cpu.user_pct), ("sys", cpu.system_pct), ("iowait", cpu.iowait_pct))
    if any(value is not None for _, value in machine):
        items += [f"{label} {fmt.percent(value)}" for label, value in machine]
    if cpu.ctx_switches_per_s is not None or cpu.interrupts_per_s is not None:
        items += [f"ctx/s {fmt.rate(cpu.ctx_switches_per_s)}", f"irq/s {fmt.rate(cpu.interrupts_per_s)}"]
    if cpu.has_fio_split:
        items += [f"fio usr {fmt.fio_percent(cpu.fio_user_pct)}", f"fio sys {fmt.fio_percent(cpu.fio_system_pct)}"]
    items.append(f"IOPS/fio core {fmt.iops(cpu.iops_per_fio_core)}")
    if cpu.iops_per_busy_core is not None:
        items.append(f"IOPS/busy core {fmt.iops(cpu.iops_per_busy_core)}")
    return items


def summary_lines(record: RunRecord, saved_path: Path | None, width: int | None = None) -> list[str]:
    """The run's figures, one block per section; nothing summed across sections."""
    lines = [""]
    lines += wrap(
        f"{record.preset}: {record.status} in {fmt.duration_s(record.run.get('duration_s'))} "
        f"on {record.target.get('path')} ({record.target.get('filesystem')}), {record.run.get('tool_version')}",
        width, "  ", "",
    )
    if record.paused_s:
        lines += wrap(f"{fmt.paused(record.paused_s)}: the figures leave the paused time out", width, "    ", "  ")
    multi = record.is_multi_section
    indent = "    " if multi else "  "
    for index, section in enumerate(record.sections):
        if multi:
            lines += wrap(f"section {index + 1}/{len(record.sections)}: {fmt.section_heading(section)}",
                          width, "      ", "  ")
        lines += direction_lines(record.figures(index), width, indent)
        cpu = cpu_figures(section)
        if cpu is not None:
            lines += pack(["cpu", *cpu_items(cpu)], width, indent + "    ", indent)
        section_verdict = verdict_text(section.get("pressure"))
        if multi and section_verdict:
            lines += wrap(f"responsiveness: {section_verdict}", width, indent + "  ", indent)
        note = (section.get("pressure") or {}).get("responsiveness_note")
        if multi and note:
            lines += wrap(str(note), width, indent + "  ", indent)
        for line in section_finding_lines(section):
            lines += wrap(line, width, indent + "  ", indent)
    verdict = verdict_text(record.pressure)
    if verdict:
        lines += wrap(f"responsiveness: {verdict}", width, "    ", "  ")
    for warning in record.warnings:
        lines += wrap(f"warning [{warning['code']}]: {warning['message']}", width, "    ", "  ")
    if saved_path is not None:
        lines += labelled_path("saved:", saved_path, width, "  ")
    return lines


def print_summary(record: RunRecord, saved_path: Path | None, out: TextIO | None = None,
                  width: int | None = None) -> None:
    print("\n".join(summary_lines(record, saved_path, width)), file=out or sys.stdout)
