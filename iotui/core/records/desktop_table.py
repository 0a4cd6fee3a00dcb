"""The desktop benchmark table: one row per test and direction, as desktop disk benchmarks show it.

A record is a desktop table when its sections are named ``<test>-<direction>``
with tests like ``seq1m-q8t1`` or ``rnd4k-q32t16`` (the ``desktop`` and
``desktop-nvme`` presets, or a user's preset named the same way). Each row
takes its figures from its own section, never summed with another: MiB/s and
IOPS, mean and p99 completion latency, the steady-state verdict, and a bar
scaled to the best row's bandwidth.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.records.direction_figures import DirectionFigures, direction_figures
from iotui.core.records.record import RunRecord
from iotui.core.records.findings import cliff_sentence, steady_sentence

_SECTION_NAME = re.compile(r"^(?P<kind>seq|rnd)(?P<bs>\d+[kmg])-q(?P<qd>\d+)t(?P<jobs>\d+)-(?P<direction>read|write)$")
BAR_WIDTH = 20
BAR_CHARACTER = "█"


@dataclass(frozen=True)
class DesktopRow:
    """One test in one direction, from one section."""

    test: str  # "SEQ1M Q8T1"
    direction: str  # "read" / "write"
    section: str
    bw_bytes: float | None
    iops: float | None
    lat_mean_ns: float | None
    lat_p99_ns: float | None
    steady: str | None = None
    cliff: str | None = None

    @property
    def mib_per_s(self) -> float | None:
        return None if self.bw_bytes is None else self.bw_bytes / (1 << 20)


def test_label(section_name: str) -> tuple[str, str] | None:
    """``seq1m-q8t1-read`` -> ("SEQ1M Q8T1", "read"); None for a name not of that form."""
    match = _SECTION_NAME.match(section_name)
    if not match:
        return None
    label = f"{match['kind'].upper()}{match['bs'].upper()} Q{match['qd']}T{match['jobs']}"
    return label, match["direction"]


def desktop_rows(sections: Sequence[Mapping[str, object]]) -> list[DesktopRow]:
    """The table's rows in the sections' order; empty unless every section is a desktop test."""
    rows: list[DesktopRow] = []
    for section in sections:
        named = test_label(str(section.get("name", "")))
        if named is None:
            return []
        label, direction = named
        figures = direction_figures(section, direction) or DirectionFigures(direction)
        rows.append(
            DesktopRow(
                test=label,
                direction=direction,
                section=str(section["name"]),
                bw_bytes=figures.bw_bytes,
                iops=figures.iops,
                lat_mean_ns=figures.lat_mean_ns,
                lat_p99_ns=figures.lat_p99_ns,
                steady=steady_sentence(section.get("steady")),
                cliff=cliff_sentence(section.get("cliff")),
            )
        )
    return rows


def is_desktop_table(record: RunRecord) -> bool:
    return bool(desktop_rows(record.sections))


def bar(value: float | None, best: float | None, width: int = BAR_WIDTH) -> str:
    """A bar of ``width`` characters at the best value, proportionally shorter below it."""
    if value is None or not best or best <= 0:
        return ""
    cells = round(width * max(0.0, min(1.0, value / best)))
    return BAR_CHARACTER * max(cells, 1 if value > 0 else 0)


def best_bw(rows: Sequence[DesktopRow]) -> float | None:
    values = [row.bw_bytes for row in rows if row.bw_bytes is not None]
    return max(values) if values else None


def _cells(row: DesktopRow, best: float | None) -> list[str]:
    return [
        row.test,
        row.direction,
        fmt.mib_per_s(row.bw_bytes),
        fmt.count(row.iops),
        fmt.latency_ns(row.lat_mean_ns),
        fmt.latency_ns(row.lat_p99_ns),
        bar(row.bw_bytes, best),
        row.steady or fmt.NO_VALUE,
    ]


HEADERS = ["test", "direction", "MiB/s", "IOPS", "mean", "p99", "", "steady state"]


def desktop_markdown(record: RunRecord) -> str:
    """The table as Markdown (``e`` on Results), with the run it came from and any cliff."""
    rows = desktop_rows(record.sections)
    if not rows:
        return ""
    best = best_bw(rows)
    title = record.run.get("title") or record.preset
    lines = [
        f"## {title}",
        "",
        f"{record.target.get('path', '')} ({record.target.get('filesystem', '')}), "
        f"{record.host.get('hostname', '')}, {record.run.get('tool_version', '')}",
        "",
        "| " + " | ".join(header or "bar" for header in HEADERS) + " |",
        "|---|---|---:|---:|---:|---:|---|---|",
    ]
    lines += ["| " + " | ".join(_cells(row, best)) + " |" for row in rows]
    cliffs = [f"- {row.test} {row.direction}: cache cliff {row.cliff}" for row in rows if row.cliff]
    if cliffs:
        lines += ["", *cliffs]
    lines += ["", "Latency is fio's completion latency (clat); each row is its own fio section."]
    return "\n".join(lines) + "\n"


def _delta(a: float | None, b: float | None) -> str:
    if a is None or b is None or a == 0:
        return fmt.NO_VALUE
    return f"{100.0 * (b - a) / a:+.1f}%"


def desktop_compare_markdown(first: RunRecord, second: RunRecord) -> str:
    """Two machines' tables side by side: MiB/s, IOPS and p99 of each, and the change."""
    rows_a = {(row.test, row.direction): row for row in desktop_rows(first.sections)}
    rows_b = {(row.test, row.direction): row for row in desktop_rows(second.sections)}
    if not rows_a or not rows_b:
        return ""
    keys = list(rows_a) + [key for key in rows_b if key not in rows_a]
    name_a = first.host.get("hostname") or "A"
    name_b = second.host.get("hostname") or "B"
    if name_a == name_b:
        name_a, name_b = f"{name_a} ({first.id[:8]})", f"{name_b} ({second.id[:8]})"
    lines = [
        f"## {first.preset}: {name_a} vs {name_b}",
        "",
        f"| test | direction | {name_a} MiB/s | {name_b} MiB/s | change | {name_a} IOPS | {name_b} IOPS | "
        f"{name_a} p99 | {name_b} p99 |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for key in keys:
        a, b = rows_a.get(key), rows_b.get(key)
        lines.append(
            "| " + " | ".join([
                key[0], key[1],
                fmt.mib_per_s(a.bw_bytes if a else None), fmt.mib_per_s(b.bw_bytes if b else None),
                _delta(a.bw_bytes if a else None, b.bw_bytes if b else None),
                fmt.count(a.iops if a else None), fmt.count(b.iops if b else None),
                fmt.latency_ns(a.lat_p99_ns if a else None), fmt.latency_ns(b.lat_p99_ns if b else None),
            ]) + " |"
        )
    unsettled = [
        f"- {name} {row.test} {row.direction}: {row.steady}"
        for name, rows in ((name_a, rows_a), (name_b, rows_b))
        for row in rows.values()
        if row.steady and row.steady.startswith("not steady")
    ]
    if unsettled:
        lines += ["", "Never settled (the figure is a moving target):", *unsettled]
    return "\n".join(lines) + "\n"
