"""Each host's figures in one section of a multi-host record, and the hosts that stand out.

One row per host for a section (fio's reporting group), in the record's host order,
with that host's own figures as fio reported them (nothing recomputed). The slowest
host is the one with the fewest I/Os per second in the section's directions (the
hosts ran the same job at the same time); where every host made the same rate (a
rate-limited job), the one with the highest p99 latency is named as the slowest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from iotui.core.numbers import number
from iotui.core.records.direction_figures import section_figures

DIRECTIONS = ("read", "write", "trim")
_SAME_RATE = 0.01  # within 1% of each other: a job held at a rate


@dataclass(frozen=True)
class HostRow:
    name: str
    iops: float | None
    """The section's IOPS on this host, every direction together (they ran at the same time)."""
    bw_bytes: float | None
    lat_p99_ns: float | None
    """The higher p99 of the section's directions on this host."""
    failed_at_s: float | None


def _sum(values: list[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def host_rows(hosts: Sequence[Mapping[str, object]], section_index: int) -> list[HostRow]:
    rows = []
    for host in hosts:
        sections = host.get("sections")
        section = sections[section_index] if isinstance(sections, list) and section_index < len(sections) else {}
        figures = [f for f in section_figures(section) if f.direction in DIRECTIONS] if isinstance(section, Mapping) else []
        p99s = [f.lat_p99_ns for f in figures if f.lat_p99_ns is not None]
        rows.append(
            HostRow(
                name=str(host.get("name", "?")),
                iops=_sum([f.iops for f in figures]),
                bw_bytes=_sum([f.bw_bytes for f in figures]),
                lat_p99_ns=max(p99s) if p99s else None,
                failed_at_s=number(host.get("failed_at_s")),
            )
        )
    return rows


def host_state(host: Mapping[str, object], run: Mapping[str, object]) -> str:
    """The host's state after the run: ``failed at 1.5 s``, ``stopped``, or fio's ``exit 0``.

    A run stopped (``s``, or a signal to iotui) ends fio on every host with a signal, so its exit
    status (128 and more) says nothing but that it was stopped.
    """
    failed_at_s = number(host.get("failed_at_s"))
    if failed_at_s is not None:
        return f"failed at {failed_at_s:.1f} s"
    if run.get("status") == "stopped":
        return "stopped"
    return f"exit {host.get('exit_status', '?')}"


def slowest(rows: list[HostRow]) -> tuple[HostRow, str] | None:
    """The slowest host that ran to the end, and why it is named (``fewest IOPS`` or ``highest p99``)."""
    ran = [row for row in rows if row.failed_at_s is None and row.iops is not None]
    if len(ran) < 2:
        return None
    low = min(ran, key=lambda row: row.iops or 0.0)
    high = max(row.iops or 0.0 for row in ran)
    if high > 0 and (high - (low.iops or 0.0)) / high > _SAME_RATE:
        return low, "fewest IOPS"
    timed = [row for row in ran if row.lat_p99_ns is not None]
    if not timed:
        return low, "fewest IOPS"
    return max(timed, key=lambda row: row.lat_p99_ns or 0.0), "highest p99"
