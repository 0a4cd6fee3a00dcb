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
from iotui.core.runs.series import Ring

# Two minutes of 1 Hz samples: the sparklines show at least the last 60 s.
SERIES_CAPACITY = 120
SPARK_MIN_WINDOW = 60
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

    @property
    def higher_is_better(self) -> bool:
        """Throughput: when samples share a cell, its worst (lowest) is drawn, so stalls show."""
        return self.kind in ("iops", "bytes_per_s")

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
            self.rings[spec.key].append(getattr(host, spec.key, None))
        self.host_samples_seen += 1

    def fio_specs(self) -> list[SeriesSpec]:
        """The fio figures to draw, for the directions that did I/O."""
        return [spec for direction in self.directions for spec in fio_specs(direction)]


def sparkline(
    values: list[float | None], width: int, scale_max: float | None = None, *, show_lowest: bool = False
) -> str:
    """``values`` (oldest first) as ``width`` block characters, newest on the right.

    The window is at least SPARK_MIN_WINDOW samples wide, so at small widths several
    samples share a cell and the time axis never shrinks below a minute; a shared
    cell draws the worst of its samples: the highest (latency, load), or the lowest
    with ``show_lowest`` (throughput, so a stall is never averaged away). A window
    not yet full is padded on the left with blanks; a gap (``None``) is a blank;
    zero is the lowest bar.
    """
    if width <= 0:
        return ""
    window = max(width, SPARK_MIN_WINDOW)
    recent = values[-window:]
    blanks: list[float | None] = [None] * (window - len(recent))
    padded = blanks + list(recent)
    present = [value for value in padded if value is not None]
    top = scale_max if scale_max is not None else (max(present) if present else 0.0)
    cells: list[str] = []
    for cell in range(width):
        start = cell * window // width
        end = max(start + 1, (cell + 1) * window // width)
        bucket = [value for value in padded[start:end] if value is not None]
        if not bucket:
            cells.append(" ")
            continue
        value = min(bucket) if show_lowest else max(bucket)
        if top <= 0 or value <= 0:
            cells.append(SPARK_BARS[0])
            continue
        level = min(len(SPARK_BARS) - 1, max(0, int(value / top * len(SPARK_BARS) - 1e-9)))
        cells.append(SPARK_BARS[level])
    return "".join(cells)
