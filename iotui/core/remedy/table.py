"""A remedy run as one table, and its verdict.

One row per remedy: fio's IOPS and bandwidth (read + write, as fio reported them) and their
change from ``as-is``, each felt figure's p99 over the point's seconds and how many times its
figure at rest that is (the point's own baseline, taken before its fio started), and the level.
The verdict names the remedy that keeps the desktop responsive (a lower level than as-is,
OK where one reaches it) at the least cost to fio, and the command that makes it last.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Literal, Sequence

from iotui.core.host.levels import Level
from iotui.core.numbers import number
from iotui.core.records.record import RunRecord
from iotui.core.remedy.cgroups import Hierarchy
from iotui.core.remedy.plan import AS_IS, IDLE_CLASS, REMEDY_KEY, cgroup_weight_of, scheduler_of
from iotui.core.sweep.record import SweepRecord

# Each felt figure: its per-second key, its baseline key in [pressure], and its short name.
FELT = (
    ("probe_p99_ms", "probe_baseline_p99_ms", "wake-up"),
    ("io_probe_p99_ms", "io_probe_baseline_p99_ms", "read"),
    ("io_probe_write_p99_ms", "io_probe_write_baseline_p99_ms", "save"),
    ("app_start_ms", "app_start_baseline_ms", "start-up"),
)
_LEVELS = {level.value: level for level in Level}


@dataclass(frozen=True)
class Felt:
    """One felt figure of a point: its p99 over the point's seconds, and that over its figure at rest."""

    p99_ms: float
    times_rest: float | None


@dataclass(frozen=True)
class RemedyRow:
    remedy: str
    status: str
    iops: float | None = None
    bw_bytes: float | None = None
    iops_change_pct: float | None = None
    bw_change_pct: float | None = None
    felt: dict[str, Felt] = field(default_factory=dict)  # by short name
    level: str | None = None
    cause: str | None = None


VerdictKind = Literal["responsive-as-is", "remedy", "none-helped", "no-as-is"]


@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    remedy: str | None = None
    level: str | None = None
    as_is_level: str | None = None
    iops_change_pct: float | None = None
    command: str | None = None  # what makes it last


def _p99(values: Sequence[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(0.99 * len(ordered))) - 1]


def _sum(*values: float | None) -> float | None:
    present = [value for value in values if value is not None]
    return sum(present) if present else None


def _change(value: float | None, reference: float | None) -> float | None:
    if value is None or not reference:
        return None
    return (value - reference) / reference * 100.0


def felt_figures(record: RunRecord) -> dict[str, Felt]:
    """Each felt figure's p99 over the record's seconds and its ratio to the figure at rest."""
    figures = {}
    pressure = record.pressure
    for key, baseline_key, name in FELT:
        values = [value for sample in record.samples if (value := number(sample.get(key))) is not None]
        p99 = _p99(values)
        if p99 is None:
            continue
        rest = number(pressure.get(baseline_key))
        figures[name] = Felt(p99, p99 / rest if rest else None)
    return figures


def remedy_rows(sweep: SweepRecord, load: Callable[[Path], RunRecord]) -> list[RemedyRow]:
    """The table's rows, in the sweep's order; a point without a record is its status alone."""
    base_dir = sweep.path.parent if sweep.path is not None else Path.cwd()
    rows: list[RemedyRow] = []
    for point in sweep.points:
        result = point.point_result()
        remedy = point.params.get(REMEDY_KEY, "?")
        felt: dict[str, Felt] = {}
        level = result.responsiveness
        cause = result.responsiveness_cause
        if point.record:
            try:
                record = load(base_dir / point.record)
            except (OSError, ValueError):
                record = None
            if record is not None:
                felt = felt_figures(record)
                level = str(record.pressure.get("responsiveness") or level or "") or None
                cause = str(record.pressure.get("cause") or "") or cause
        rows.append(RemedyRow(
            remedy, point.status, _sum(result.read_iops, result.write_iops),
            _sum(result.read_bw_bytes, result.write_bw_bytes), felt=felt, level=level, cause=cause,
        ))
    as_is = next((row for row in rows if row.remedy == AS_IS), None)
    if as_is is None:
        return rows
    return [
        RemedyRow(row.remedy, row.status, row.iops, row.bw_bytes, _change(row.iops, as_is.iops),
                  _change(row.bw_bytes, as_is.bw_bytes), row.felt, row.level, row.cause)
        for row in rows
    ]


def lasting_command(remedy: str, device: str | None, cgroup: Hierarchy | None = None) -> str | None:
    """What makes a remedy last beyond iotui: a udev rule line, the command prefix, or the cgroup's lines."""
    weight = cgroup_weight_of(remedy)
    if weight is not None:
        return (cgroup or Hierarchy(2, Path("/sys/fs/cgroup"), "io.weight")).lasting_command(weight)
    scheduler = scheduler_of(remedy)
    if scheduler is not None:
        return f'ACTION=="add|change", KERNEL=="{device or "DEVICE"}", ATTR{{queue/scheduler}}="{scheduler}"'
    if remedy == IDLE_CLASS:
        return "ionice -c3 CMD"
    return None


def _rank(level: str | None) -> int:
    found = _LEVELS.get(str(level))
    return found.rank if found is not None else 99


def verdict(rows: Sequence[RemedyRow], device: str | None, cgroup: Hierarchy | None = None) -> Verdict:
    """The remedy that keeps the desktop most responsive, at the least cost to fio among those."""
    as_is = next((row for row in rows if row.remedy == AS_IS and row.status == "completed"), None)
    if as_is is None:
        return Verdict("no-as-is")
    if _rank(as_is.level) == 0:
        return Verdict("responsive-as-is", level=as_is.level, as_is_level=as_is.level)
    better = [row for row in rows if row.remedy != AS_IS and row.status == "completed"
              and _rank(row.level) < _rank(as_is.level)]
    if not better:
        return Verdict("none-helped", as_is_level=as_is.level)
    best_rank = min(_rank(row.level) for row in better)
    cheapest = max((row for row in better if _rank(row.level) == best_rank),
                   key=lambda row: (row.iops_change_pct if row.iops_change_pct is not None else -math.inf))
    return Verdict("remedy", cheapest.remedy, cheapest.level, as_is.level, cheapest.iops_change_pct,
                   lasting_command(cheapest.remedy, device, cgroup))


def device_of_sweep(sweep: SweepRecord) -> str | None:
    """The device whose scheduler the run changed (kept in the sweep's base)."""
    value = sweep.base.get("remedy_device")
    return str(value) if value else None


def cgroup_of_sweep(sweep: SweepRecord) -> Hierarchy | None:
    """The hierarchy the cgroup-weight point made its cgroup in (kept in the sweep's base)."""
    root, weight_file = sweep.base.get("remedy_cgroup_root"), sweep.base.get("remedy_cgroup_weight_file")
    if not root or not weight_file:
        return None
    return Hierarchy(2 if str(weight_file).startswith("io.") else 1, Path(str(root)), str(weight_file))


def sweep_verdict(sweep: SweepRecord, rows: Sequence[RemedyRow]) -> Verdict:
    """The verdict of a remedy record's rows, with the commands for its own device and cgroup."""
    return verdict(rows, device_of_sweep(sweep), cgroup_of_sweep(sweep))


def rows_as_dicts(rows: Sequence[RemedyRow]) -> list[dict[str, object]]:
    """The table for ``--json``: plain values, absent figures left out."""
    out = []
    for row in rows:
        item: dict[str, object] = {"remedy": row.remedy, "status": row.status}
        for key in ("iops", "bw_bytes", "iops_change_pct", "bw_change_pct", "level", "cause"):
            value = getattr(row, key)
            if value is not None:
                item[key] = round(value, 3) if isinstance(value, float) else value
        item["felt"] = {name: {"p99_ms": round(felt.p99_ms, 3),
                               **({"times_rest": round(felt.times_rest, 2)} if felt.times_rest is not None else {})}
                        for name, felt in row.felt.items()}
        out.append(item)
    return out


def is_remedy_sweep(sweep: SweepRecord) -> bool:
    """Whether a sweep record is an ``iotui remedy`` run (its one axis is ``remedy``)."""
    return [axis.key for axis in sweep.axes] == [REMEDY_KEY]


def level_rose(record: RunRecord) -> bool:
    """Whether a run's responsiveness level rose above ok (where a remedy is worth trying)."""
    return _rank(str(record.pressure.get("responsiveness") or "")) not in (0, 99)
