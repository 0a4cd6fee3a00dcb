"""Responsiveness along a sweep: which points were left out and why, and where it breaks.

A point is left out of the sweet spot only on the level the responsiveness rules
gave its run (wake-up, I/O probe, memory full); this says which signal it was, in
the same words as the run's chip and warning.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iotui.core.sweep.points import PointResult
    from iotui.core.sweep.values import SweepAxis


def describe_point(params: Mapping[str, str], detail: str | None) -> str:
    """`numjobs=18 (unresponsive · wake-up p99 140 ms > 104 ms)`, or just the params."""
    text = ", ".join(f"{key}={value}" for key, value in params.items()) or "the only point"
    return f"{text} ({detail})" if detail else text


def responsiveness_break(points: Sequence[PointResult], axes: Sequence[SweepAxis]) -> str | None:
    """For a one-key sweep: the first value, in the sweep's order, where the run was not OK.

    None when every judged point stayed OK, when none was judged, or for several keys
    (a break needs one direction to walk along).
    """
    varied = [axis for axis in axes if len(axis.values) > 1]
    if len(varied) != 1:
        return None
    axis = varied[0]
    order = axis.order()
    judged = [p for p in points if p.felt_responsiveness is not None and axis.key in p.params]
    judged.sort(key=lambda p: order.get(p.params[axis.key], len(order)))
    last_ok = None
    for point in judged:
        if point.felt_responsiveness == "ok":
            last_ok = point
            continue
        where = f"{axis.key}={point.params[axis.key]}"
        detail = point.responsiveness_detail or point.responsiveness
        before = f"; {axis.key}={last_ok.params[axis.key]} stayed ok" if last_ok is not None else ""
        return f"Responsiveness breaks at {where}: {detail}{before}."
    return None
