"""One section's CPU cost and how responsive the machine stayed."""

from __future__ import annotations

from typing import Mapping

from rich.table import Table
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.host.verdict import cause_text
from iotui.core.numbers import number
from iotui.core.records.direction_figures import CpuFigures, cpu_figures
from iotui.core.records.record import RunRecord


def cpu_table(section: Mapping[str, object] | None, pressure: Mapping[str, object] | None = None) -> Table:
    """CPU shares, rates, IOPS per core and the worst responsiveness level of one section."""
    section = section or {}
    cpu = cpu_figures(section) or CpuFigures()
    own_pressure = section.get("pressure")
    if isinstance(own_pressure, Mapping) and own_pressure:
        pressure = own_pressure
    pressure = pressure or {}
    table = Table(box=None, padding=(0, 1), show_header=False)
    table.add_column("")
    table.add_column("", justify="right")
    rows = (
        ("CPU usr", fmt.percent(cpu.user_pct)),
        ("CPU sys", fmt.percent(cpu.system_pct)),
        ("iowait", fmt.percent(cpu.iowait_pct)),
        ("ctx/s", fmt.rate(cpu.ctx_switches_per_s)),
        ("irq/s", fmt.rate(cpu.interrupts_per_s)),
        ("IOPS/fio core", fmt.iops(cpu.iops_per_fio_core)),
        ("IOPS/busy core", fmt.iops(cpu.iops_per_busy_core)),
    )
    for label, value in rows:
        table.add_row(label, value)
    if cpu.has_fio_split:
        table.add_row("fio usr/sys", f"{fmt.percent(cpu.fio_user_pct)}/{fmt.percent(cpu.fio_system_pct)}")
    level = pressure.get("responsiveness")
    table.add_row("responsive", str(level).upper() if level else "-")
    cause = cause_text(pressure) if level not in (None, "ok") else None
    if cause:
        table.add_row("because", cause)
    for key, label in (("probe_p99_ms_max", "wake-up p99 max"), ("io_probe_p99_ms_max", "io read p99 max"),
                       ("io_probe_write_p99_ms_max", "io write p99 max")):
        value_ms = number(pressure.get(key))
        if value_ms is not None:
            table.add_row(label, fmt.latency_ns(value_ms * 1e6))
    start_text = start_up_text(pressure)
    if start_text is not None:
        table.add_row("start-up max", start_text)
    return table


def start_up_text(pressure: Mapping[str, object]) -> str | None:
    """`2.30s (130ms at rest)`: the slowest program start and its figure at rest; None unmeasured."""
    start_ms = number(pressure.get("app_start_ms_max"))
    if start_ms is None:
        return None
    text = fmt.latency_ns(start_ms * 1e6)
    at_rest_ms = number(pressure.get("app_start_baseline_ms"))
    return f"{text} ({fmt.latency_ns(at_rest_ms * 1e6)} at rest)" if at_rest_ms is not None else text


class CpuSummary(Static):
    """Shows one section's CPU and responsiveness (the first section until another is picked)."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        self.record = record
        super().__init__(cpu_table(record.sections[0] if record.sections else None, record.pressure), id=id)

    def show_section(self, section: Mapping[str, object] | None) -> None:
        self.update(cpu_table(section, self.record.pressure))
