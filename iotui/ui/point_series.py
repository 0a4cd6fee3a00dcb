"""A sweep's figures across its points: one value per finished point, for the "across points" panel.

Pure (no Textual). Each cell of that panel's sparklines is one point's own figure
(its record's read IOPS, write p99, ...), in the sweep's order, and the value beside
a line is the newest finished point's: never a per-second sample of the point still
running, which may sit between sections (0 IOPS, no p99) when it is drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

from iotui.core.series import Ring
from iotui.core.sweep.analysis import PointResult
from iotui.ui.live import SeriesSpec, fio_specs

POINT_DIRECTIONS = ("read", "write")
UNFINISHED = ("pending", "running")


class PointSeries:
    """Per direction IOPS, bandwidth and p99 of each finished point, oldest point first."""

    def __init__(self) -> None:
        self.rings: dict[str, Ring] = {}
        self.directions: list[str] = []
        self.finished = 0

    def set_points(self, points: Sequence[PointResult]) -> bool:
        """Take the sweep's points; True when what the panel shows changed."""
        done = [point for point in points if point.status not in UNFINISHED]
        directions = [
            direction for direction in POINT_DIRECTIONS
            if any((getattr(point, f"{direction}_iops") or 0.0) > 0 for point in done)
        ]
        rings: dict[str, Ring] = {}
        for direction in directions:
            for suffix in ("iops", "bw_bytes", "lat_p99_ns"):
                key = f"{direction}_{suffix}"
                rings[key] = Ring(max(1, len(done)), (getattr(point, key) for point in done))
        changed = directions != self.directions or {k: r.values() for k, r in rings.items()} != {
            k: r.values() for k, r in self.rings.items()
        }
        self.rings, self.directions, self.finished = rings, directions, len(done)
        return changed

    def ring(self, key: str) -> Ring:
        """The ring of one figure (an empty one for a figure no point has)."""
        return self.rings.get(key) or Ring(1)

    def fio_specs(self) -> list[SeriesSpec]:
        """The figures to draw, for the directions that did I/O in a finished point."""
        return [spec for direction in self.directions for spec in fio_specs(direction)]


def points_span(cells: int) -> str:
    """The across-points panel's title part: what one cell is."""
    return "one cell per finished point, newest on the right"
