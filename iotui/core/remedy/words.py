"""A remedy run's table and verdict in words: the same text for ``iotui remedy``, ``iotui show``,
``iotui report`` and the app's remedy screen."""

from __future__ import annotations

from typing import Sequence

from iotui.core import format as fmt
from iotui.core.remedy.cgroups import CGROUP_PREFIX
from iotui.core.remedy.plan import IDLE_CLASS, scheduler_of
from iotui.core.remedy.table import FELT, Felt, RemedyRow, Verdict
from iotui.core.table import Step

# Where the table is too wide (the app at 80 columns): bandwidth goes first (IOPS says the same
# change), then the wake-up and save figures; the start-up and read figures and the level stay.
NARROW_STEPS = (Step("drop", 2), Step("drop", 3), Step("drop", 5))


def remedy_words(remedy: str) -> str:
    """``scheduler=bfq`` -> ``scheduler bfq``; ``prioclass=3`` -> ``idle I/O class``."""
    scheduler = scheduler_of(remedy)
    if scheduler is not None:
        return f"scheduler {scheduler}"
    if remedy.startswith(CGROUP_PREFIX):
        return f"cgroup weight {remedy[len(CGROUP_PREFIX):]}"
    return "idle I/O class" if remedy == IDLE_CLASS else remedy


def change_words(value: float | None) -> str:
    """A change from as-is: `` (+3%)``, or nothing where there is none."""
    return "" if value is None else f" ({value:+.0f}%)"


def felt_words(felt: Felt | None) -> str:
    """A felt figure's p99 and how many times its figure at rest: ``18.1ms ×4.5``."""
    if felt is None:
        return fmt.NO_VALUE
    text = fmt.latency_ns(felt.p99_ms * 1e6)
    return f"{text} ×{felt.times_rest:.1f}" if felt.times_rest is not None else text


def table_headers() -> list[str]:
    return ["remedy", "IOPS", "BW", *(f"{name} p99" for _, _, name in FELT), "level"]


def table_cells(rows: Sequence[RemedyRow]) -> list[list[str]]:
    """One line of words per remedy, in :func:`table_headers`' order."""
    lines = []
    for row in rows:
        if row.status != "completed" and row.iops is None:
            lines.append([remedy_words(row.remedy), row.status, "", *("" for _ in FELT), ""])
            continue
        lines.append([
            remedy_words(row.remedy),
            fmt.iops(row.iops) + change_words(row.iops_change_pct),
            fmt.bytes_per_s(row.bw_bytes) + change_words(row.bw_change_pct),
            *(felt_words(row.felt.get(name)) for _, _, name in FELT),
            row.level or fmt.NO_VALUE,
        ])
    return lines


def verdict_sentence(found: Verdict) -> str:
    if found.kind == "no-as-is":
        return "No verdict: the workload as it is did not complete, so there is nothing to compare the remedies with."
    if found.kind == "responsive-as-is":
        return "The desktop stayed responsive as it is (level ok): no remedy is needed for this workload."
    if found.kind == "none-helped":
        return (f"None of the remedies helped: none brought the level below {found.as_is_level}, the workload's "
                "level as it is. Try a lower iodepth or rate_iops, direct I/O for buffered writes, or another disk.")
    cost = "" if found.iops_change_pct is None else f", at {found.iops_change_pct:+.0f}% of fio's IOPS"
    text = (f"{remedy_words(found.remedy or '')} keeps the desktop {found.level} "
            f"(as it is: {found.as_is_level}){cost}.")
    if found.command:
        if scheduler_of(found.remedy or "") is not None:
            text += f" To make it last, a udev rule (e.g. /etc/udev/rules.d/60-iosched.rules): {found.command}"
        elif (found.remedy or "").startswith(CGROUP_PREFIX):
            text += f" To make it last, start the heavy job under that weight: {found.command}"
        else:
            text += f" To make it last, start the heavy job as: {found.command} (or fio's prioclass=3)"
    return text
