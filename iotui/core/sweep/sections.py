"""A sweep of a preset with several sections: each section's points, to be analysed on its own.

fio runs a preset's reporting groups one after another (``stonewall``), so a
point of such a preset has one set of figures per section and none for the
whole: random read IOPS and random write IOPS measured at different times are
never added together. Each section is taken across the sweep's points and
analysed like a sweep of its own (see ``docs/sweeps.md``).
"""

from __future__ import annotations

from typing import Sequence

from iotui.core.sweep.points import PointResult


def section_names(points: Sequence[PointResult]) -> list[str]:
    """The sections' names in fio's order, from the point that ran the most sections; [] for one section."""
    widest = max((point.by_section for point in points), key=len, default=())
    if len(widest) < 2:
        return []
    return [part.section or f"section {number + 1}" for number, part in enumerate(widest)]


def section_points(points: Sequence[PointResult], index: int, name: str) -> list[PointResult]:
    """Section ``index`` of every point; a point without it (not run, failed) keeps its status and no figures."""
    result = []
    for point in points:
        if index < len(point.by_section):
            result.append(point.by_section[index])
        else:
            result.append(PointResult(
                params=dict(point.params), status=point.status, record=point.record,
                mount_options=point.mount_options, section=name,
            ))
    return result


def split_sections(points: Sequence[PointResult]) -> list[tuple[str, list[PointResult]]]:
    """Each section's name and its points across the sweep; [] when the preset has one section."""
    return [(name, section_points(points, index, name)) for index, name in enumerate(section_names(points))]
