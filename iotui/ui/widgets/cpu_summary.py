"""A finished run's CPU cost and how responsive the machine stayed."""

from __future__ import annotations

from rich.table import Table
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.runs.record import RunRecord


def cpu_table(record: RunRecord) -> Table:
    """CPU shares, rates, IOPS per core and the worst responsiveness level."""
    cpu = record.summary.get("cpu", {})
    pressure = record.summary.get("pressure", {})
    table = Table(box=None, padding=(0, 1), show_header=False)
    table.add_column("")
    table.add_column("", justify="right")
    rows = (
        ("CPU usr", fmt.percent(cpu.get("user_pct"))),
        ("CPU sys", fmt.percent(cpu.get("system_pct"))),
        ("iowait", fmt.percent(cpu.get("iowait_pct"))),
        ("ctx/s", fmt.rate(cpu.get("ctx_switches_per_s"))),
        ("irq/s", fmt.rate(cpu.get("interrupts_per_s"))),
        ("IOPS/fio core", fmt.iops(cpu.get("iops_per_fio_core"))),
        ("IOPS/busy core", fmt.iops(cpu.get("iops_per_busy_core"))),
    )
    for label, value in rows:
        table.add_row(label, value)
    level = pressure.get("responsiveness")
    table.add_row("responsive", str(level).upper() if level else "-")
    probe_ms = pressure.get("probe_p99_ms_max")
    if isinstance(probe_ms, (int, float)):
        table.add_row("probe p99 max", fmt.latency_ns(probe_ms * 1e6))
    return table


class CpuSummary(Static):
    """Shows one record's CPU and responsiveness summary."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(cpu_table(record), id=id)
