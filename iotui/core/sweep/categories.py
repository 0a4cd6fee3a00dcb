"""Sweeps over kinds rather than a knob (tool, job, ioengine, targets): a comparison, not a sweet spot.

"The smallest setting that reaches 95%" means nothing for io_uring against
libaio, or sysbench against fio: there is no order to be small in. Such a sweep
gets each point's throughput and per-direction p99, fastest first.
"""

from __future__ import annotations

from typing import Sequence

from iotui.core import format as fmt
from iotui.core.sweep.values import TARGET_KEY, SweepAxis

CATEGORY_KEYS = ("tool", "job", "ioengine", TARGET_KEY, "targets", "target")


def is_category_sweep(axes: Sequence[SweepAxis]) -> bool:
    """Every varied key names a kind of thing, not an amount."""
    varied = [axis for axis in axes if len(axis.values) > 1]
    return bool(varied) and all(axis.key in CATEGORY_KEYS for axis in varied)


def comparison_sentence(points: Sequence, metric: str) -> str | None:
    """``Compared, not tuned: ioengine=io_uring 420k IOPS (p99 read 90µs); ioengine=libaio ...``."""
    ranked = sorted(points, key=lambda p: p.throughput(metric), reverse=True)
    if not ranked:
        return None
    parts = []
    for point in ranked:
        params = ", ".join(f"{k}={v}" for k, v in point.params.items())
        value = point.throughput(metric)
        amount = fmt.bytes_per_s(value) if metric == "bw_bytes" else f"{fmt.iops(value)} IOPS"
        parts.append(f"{params} {amount} (p99 {point.latency_text('p99')})")
    return (
        "Compared, not tuned (the varied keys are kinds, with no smaller or larger to pick), fastest first: "
        + "; ".join(parts) + "."
    )
