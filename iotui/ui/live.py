"""The run screen's rolling series: one core `Ring` per figure, and how to draw one.

Pure (no Textual): the run screen owns a :class:`LiveSeries`, feeds it every
interval and host sample, and the sparkline widgets read it. Rings are bounded,
so memory stays flat however long a run lasts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from iotui.core import format as fmt
from iotui.core.host.counters import HostSample
from iotui.core.fio.intervals import DIRECTIONS, IntervalSample
from iotui.core.series import Ring

# Ten minutes of 1 Hz samples: a sparkline shows one sample per cell, as many as its width
# holds (the widest terminals included); the throughput chart shows the last two minutes.
SERIES_CAPACITY = 600
SPARK_BARS = "▁▂▃▄▅▆▇█"

FORMATTERS: dict[str, Callable[[float | None], str]] = {
    "iops": fmt.iops,
    "bytes_per_s": fmt.bytes_per_s,
    "latency_ns": fmt.latency_ns,
    "percent": fmt.percent,
    "rate": fmt.rate,
}

_DIRECTION_SHORT = {"read": "r", "write": "w", "trim": "t"}


@dataclass(frozen=True)
class SeriesSpec:
    """One rolling figure: where it lives, how it is labelled, formatted and scaled."""

    key: str
    label: str
    kind: str  # a FORMATTERS key
    scale_max: float | None = None  # fixed top of the scale (percentages); None: the window's max

    def format(self, value: float | None) -> str:
        return FORMATTERS[self.kind](value)


HOST_SPECS: tuple[SeriesSpec, ...] = (
    SeriesSpec("cpu_user_pct", "CPU usr", "percent", 100.0),
    SeriesSpec("cpu_system_pct", "CPU sys", "percent", 100.0),
    SeriesSpec("cpu_iowait_pct", "iowait", "percent", 100.0),
    SeriesSpec("ctx_switches_per_s", "ctx/s", "rate"),
    SeriesSpec("interrupts_per_s", "irq/s", "rate"),
    SeriesSpec("device_read_iops", "dev r/s", "iops"),
    SeriesSpec("device_write_iops", "dev w/s", "iops"),
    SeriesSpec("psi_cpu_some_pct", "cpu some", "percent", 100.0),
    SeriesSpec("psi_io_some_pct", "io some", "percent", 100.0),
    SeriesSpec("psi_io_full_pct", "io full", "percent", 100.0),
    SeriesSpec("psi_memory_some_pct", "mem some", "percent", 100.0),
)


PSI_LEGEND = (
    "PSI, share of time: some = one or more tasks waited, full = all tasks waited",
    "some: a task waited · full: all waited",
)
"""What PSI's "some" and "full" mean, wide and narrow (the host panel's last line)."""


PSI_TOOLTIP = (
    "PSI (pressure stall information, Linux): the share of each second in which tasks waited for the "
    "CPU, I/O or memory. 'some': at least one task waited (others may have run). 'full': every non-idle "
    "task waited at once, so nothing useful ran."
)
"""The host panel's tooltip: PSI in full."""


def psi_legend(specs: list[SeriesSpec]) -> tuple[str, str] | None:
    """The PSI legend when ``specs`` show a PSI figure."""
    return PSI_LEGEND if any(spec.key.startswith("psi_") for spec in specs) else None


def fio_specs(direction: str) -> tuple[SeriesSpec, ...]:
    """IOPS, bandwidth and p99 of one direction."""
    short = _DIRECTION_SHORT.get(direction, direction[:1])
    return (
        SeriesSpec(f"{direction}_iops", f"IOPS {short}", "iops"),
        SeriesSpec(f"{direction}_bw_bytes", f"BW {short}", "bytes_per_s"),
        SeriesSpec(f"{direction}_lat_p99_ns", f"p99 {short}", "latency_ns"),
    )


class LiveSeries:
    """Rolling fio and host figures of the run in progress."""

    def __init__(self, capacity: int = SERIES_CAPACITY) -> None:
        self.capacity = capacity
        self.rings: dict[str, Ring] = {spec.key: Ring(capacity) for spec in HOST_SPECS}
        self.directions: list[str] = []
        self.intervals_seen = 0
        self.host_samples_seen = 0
        self._host_keys_seen: set[str] = set()

    def ring(self, key: str) -> Ring:
        """The ring of one figure (an empty one for a figure never seen)."""
        ring = self.rings.get(key)
        if ring is None:
            ring = self.rings[key] = Ring(self.capacity)
        return ring

    def add_interval(self, interval: IntervalSample) -> None:
        """Append one fio interval; a direction seen for the first time gets its rings."""
        for direction in DIRECTIONS:
            figures = interval.directions.get(direction)
            if figures is None:
                if direction in self.directions:
                    for spec in fio_specs(direction):
                        self.ring(spec.key).append(None)
                continue
            if direction not in self.directions:
                self.directions.append(direction)
                self.directions.sort(key=DIRECTIONS.index)
            self.ring(f"{direction}_iops").append(figures.iops)
            self.ring(f"{direction}_bw_bytes").append(figures.bw_bytes)
            self.ring(f"{direction}_lat_p99_ns").append(figures.lat_percentiles_ns.get("p99"))
        self.intervals_seen += 1

    def add_host(self, host: HostSample) -> None:
        """Append one host sample; absent figures become gaps, not zeros."""
        for spec in HOST_SPECS:
            value = getattr(host, spec.key, None)
            self.rings[spec.key].append(value)
            if value is not None:
                self._host_keys_seen.add(spec.key)
        self.host_samples_seen += 1

    def host_specs(self) -> list[SeriesSpec]:
        """The host figures to draw: all of them until the first sample, then those this machine has.

        A figure the platform does not give (PSI and device counters off Linux, device
        counters of a target with no block device) would only be an empty row; the run's
        messages say which are missing.
        """
        if not self.host_samples_seen:
            return list(HOST_SPECS)
        return [spec for spec in HOST_SPECS if spec.key in self._host_keys_seen]

    def fio_specs(self) -> list[SeriesSpec]:
        """The fio figures to draw, for the directions that did I/O."""
        return [spec for direction in self.directions for spec in fio_specs(direction)]


def sparkline(values: list[float | None], width: int, scale_max: float | None = None) -> str:
    """The newest ``width`` of ``values`` (oldest first), one block character per sample.

    One cell is one sample (one second), so the line scrolls one cell per sample
    and its rightmost cell is the newest value, the one printed beside it. A
    series shorter than ``width`` is padded on the left with blanks; a gap
    (``None``) is a blank; zero is the lowest bar. The top of the scale is
    ``scale_max`` (percentages) or the largest value shown.
    """
    if width <= 0:
        return ""
    recent = values[-width:]
    present = [value for value in recent if value is not None]
    top = scale_max if scale_max is not None else (max(present) if present else 0.0)
    padding = " " * (width - len(recent))
    if top <= 0:
        return padding + "".join(" " if value is None else SPARK_BARS[0] for value in recent)
    if scale_max is not None:
        # Values over a fixed scale (a percentage over 100) are drawn at its top.
        recent = [value if value is None or value <= top else top for value in recent]
    # _bar's arithmetic inline, in one list comprehension: every line of both panels is
    # worked out every second (a generator with min/max calls per cell cost twice as much).
    # No value is over top here, so no level passes the last bar (value == top gives
    # levels - 1e-9, truncated to levels - 1); int() truncates toward zero, so a tiny
    # value's slightly negative level is bar 0.
    bars, levels = SPARK_BARS, len(SPARK_BARS)
    lowest = bars[0]
    cells = [" " if value is None else lowest if value <= 0 else bars[int(value / top * levels - 1e-9)]
             for value in recent]
    return padding + "".join(cells)


def span_text(cells: int) -> str:
    """What a sparkline of ``cells`` one-second cells spans: ``last 58 s``, ``last 2 min 10 s``."""
    minutes, seconds = divmod(max(0, cells), 60)
    if not minutes:
        return f"last {seconds} s"
    return f"last {minutes} min {seconds} s" if seconds else f"last {minutes} min"
