"""A row per host of a multi-host run: its latest figures and how fresh they are.

Each row ends with the host's responsiveness level (and its cause) where its
probes run: ``ok``, ``sluggish: io write p99 312 ms > 110 ms``, ``unresponsive: ...``;
``not measured`` where they do not (no python3 there, or no figures at rest).
A host's mark is ``●`` while its figures are fresh, ``○`` once nothing came
for ``STALE_AFTER_S`` (1.6 s), ``✗`` after it failed. The widget keeps the
rows; the run screen hands it each host's interval and failure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.fio.intervals import IntervalSample
from iotui.core.host.levels import Assessment, Level
from iotui.core.remote.alignment import STALE_AFTER_S


@dataclass
class HostRow:
    name: str
    interval: IntervalSample | None = None
    arrived_monotonic: float | None = None
    failed_at_s: float | None = None
    assessment: Assessment | None = None
    not_measured: str | None = None  # why its responsiveness is not measured

    def mark(self, now: float) -> str:
        if self.failed_at_s is not None:
            return "✗"
        if self.arrived_monotonic is None or now - self.arrived_monotonic > STALE_AFTER_S:
            return "○"
        return "●"


class HostRows(Static):
    """One line per host, scrolling past eight; redrawn every half second (figures and staleness).

    Not on each host's interval: 128 hosts each reporting once a second would redraw 128
    rows 128 times a second.
    """

    DEFAULT_CSS = """
    HostRows { height: auto; max-height: 8; overflow-y: auto; padding: 0 1; }
    """

    def __init__(self, hosts: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.rows = {name: HostRow(name) for name in hosts}

    def on_mount(self) -> None:
        self.set_interval(0.5, self.redraw)
        self.redraw()

    def add_interval(self, host: str, interval: IntervalSample) -> None:
        row = self.rows.setdefault(host, HostRow(host))
        row.interval = interval
        row.arrived_monotonic = time.monotonic()

    def set_level(self, host: str, assessment: Assessment | None, not_measured: str | None = None) -> None:
        """The host's level this second, or why it has none (drawn at the next redraw)."""
        row = self.rows.setdefault(host, HostRow(host))
        row.assessment, row.not_measured = assessment, not_measured

    def mark_failed(self, host: str, at_s: float) -> None:
        self.rows.setdefault(host, HostRow(host)).failed_at_s = at_s
        self.redraw()

    def render_rows(self, now: float | None = None) -> Text:
        now = time.monotonic() if now is None else now
        text = Text()
        width = max((len(name) for name in self.rows), default=4)
        for index, row in enumerate(self.rows.values()):
            if index:
                text.append("\n")
            mark = row.mark(now)
            style = {"●": "green", "○": "yellow", "✗": "red"}[mark]
            text.append(f"{mark} ", style=style)
            text.append(f"{row.name:<{width}}  ")
            if row.failed_at_s is not None:
                text.append(f"failed at {row.failed_at_s:.1f} s", style="red")
                continue
            if row.interval is None:
                text.append("waiting", style="dim")
                continue
            parts = []
            for direction, figures in row.interval.directions.items():
                parts.append(
                    f"{direction} {fmt.iops(figures.iops)} IOPS {fmt.bytes_per_s(figures.bw_bytes)} "
                    f"p99 {fmt.latency_ns(figures.lat_percentiles_ns.get('p99'))}"
                )
            text.append("  ".join(parts) or "idle")
            if row.assessment is None and row.not_measured is not None:
                text.append("  not measured", style="dim")
            if row.assessment is not None:
                level = row.assessment
                style = {Level.OK: "green", Level.SLUGGISH: "yellow"}.get(level.level, "bold red")
                text.append(f"  {level.level.value}", style=style)
                if level.signal:
                    text.append(f": {level.signal}", style=style)
        return text

    def redraw(self) -> None:
        self.update(self.render_rows())
