"""A multi-host record's hosts in one section: each host's own figures, the slowest named."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.remote.host_table import host_rows, host_state, slowest
from iotui.core.records.record import RunRecord


def hosts_text(hosts: list[dict], section_index: int, run: dict | None = None) -> Text:
    """One line per host (IOPS, bandwidth, p99, and its state: exit, stopped or failed), then the slowest."""
    rows = host_rows(hosts, section_index)
    width = max([len(row.name) for row in rows] + [4])
    text = Text(f"{'host':<{width}} {'IOPS':>8} {'bandwidth':>11} {'p99':>9}  state\n", style="bold")
    for row, host in zip(rows, hosts):
        text.append(
            f"{row.name:<{width}} {fmt.iops(row.iops):>8} {fmt.bytes_per_s(row.bw_bytes):>11} "
            f"{fmt.latency_ns(row.lat_p99_ns):>9}  "
        )
        text.append(host_state(host, run or {}) + "\n", style="red" if row.failed_at_s is not None else "")
    found = slowest(rows)
    if found is not None:
        row, why = found
        text.append(f"slowest: {row.name} ({why}: {fmt.iops(row.iops)} IOPS, p99 {fmt.latency_ns(row.lat_p99_ns)})")
    return text


class HostsTable(Static):
    """The hosts of the section picked in the sections table (the first at the start)."""

    def __init__(self, record: RunRecord, **kwargs) -> None:
        super().__init__(hosts_text(record.hosts, 0, record.run), **kwargs)
        self.record = record

    def show_section(self, index: int) -> None:
        self.update(hosts_text(self.record.hosts, index, self.record.run))
