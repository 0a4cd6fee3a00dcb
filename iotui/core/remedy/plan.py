"""Which remedies this machine offers for a target, and how each point applies one.

A remedy run is a sweep record with one axis, ``remedy``: ``as-is`` (the workload as it is),
``scheduler=NAME`` for each other scheduler the target's disk offers (set through sysfs, root
only, always undone: :mod:`iotui.core.remedy.schedulers`) and ``prioclass=3`` (fio's jobs in the
idle I/O class, fio's own ``prioclass`` option, as ``ionice -c3`` would put them) and
``cgroup-weight=10`` (fio started inside a private cgroup of a tenth of the default I/O weight,
root only, always removed: :mod:`iotui.core.remedy.cgroups`). A remedy this
machine cannot offer is skipped with a fact (:class:`Skipped`); the others still run.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from iotui.core.remedy.cgroups import CGROUP_PREFIX, WEIGHT, CgroupSkipCode, Hierarchy, usable_hierarchy
from iotui.core.remedy.schedulers import Device, device_of
from iotui.core.sweep.values import SweepAxis

REMEDY_KEY = "remedy"
AS_IS = "as-is"
IDLE_CLASS = "prioclass=3"
SCHEDULER_PREFIX = "scheduler="

SkipCode = Literal["no-block-device", "not-root", "system-disk", "no-io-controller", "no-weight-file"]


@dataclass(frozen=True)
class Skipped:
    """A remedy not tried here: ``code`` and the facts a front end words."""

    remedy: str  # "schedulers", "cgroup"
    code: SkipCode
    device: str | None = None
    holds: str | None = None  # for "system-disk": "/" or "$HOME"


@dataclass(frozen=True)
class RemedyPlan:
    """The remedies to try, in order (``as-is`` first), the device they change, and those skipped."""

    values: tuple[str, ...]
    device: Device | None
    original_scheduler: str | None
    skipped: tuple[Skipped, ...]
    cgroup: Hierarchy | None = None  # where the cgroup-weight point makes its cgroup

    @property
    def axis(self) -> SweepAxis:
        return SweepAxis(REMEDY_KEY, self.values)


def scheduler_of(value: str) -> str | None:
    """``scheduler=bfq`` -> ``bfq``; None for another remedy."""
    return value[len(SCHEDULER_PREFIX):] if value.startswith(SCHEDULER_PREFIX) else None


def cgroup_weight_of(value: str) -> int | None:
    """``cgroup-weight=10`` -> 10; None for another remedy."""
    if not value.startswith(CGROUP_PREFIX):
        return None
    digits = value[len(CGROUP_PREFIX):]
    return int(digits) if digits.isdigit() else None


def fio_overrides(value: str) -> dict[str, str]:
    """The fio options a remedy sets on every job (the idle class: ``prioclass=3``)."""
    if value == IDLE_CLASS:
        key, _, option = value.partition("=")
        return {key: option}
    return {}


def _holds(device: Device, place: Path | None) -> bool:
    if place is None or not place.exists():
        return False
    other = device_of(place)
    return other is not None and other.name == device.name


def plan_remedies(target: Path, *, allow_system_disk: bool, is_root: bool | None = None,
                  home: Path | None = None, cgroup: Hierarchy | CgroupSkipCode | None = None) -> RemedyPlan:
    """The remedies for ``target``: its disk's other schedulers where it may change them, the idle
    class, and a low cgroup weight where the cgroup hierarchy allows it (``cgroup``: found if None)."""
    is_root = os.geteuid() == 0 if is_root is None else is_root
    home = home if home is not None else (Path(os.environ["HOME"]) if os.environ.get("HOME") else None)
    values = [AS_IS]
    skipped: list[Skipped] = []
    device = device_of(target)
    original = None
    if device is None:
        skipped.append(Skipped("schedulers", "no-block-device"))
    elif not is_root:
        skipped.append(Skipped("schedulers", "not-root", device.name))
        device = None
    else:
        holds = "/" if _holds(device, Path("/")) else "$HOME" if _holds(device, home) else None
        if holds is not None and not allow_system_disk:
            skipped.append(Skipped("schedulers", "system-disk", device.name, holds))
            device = None
        else:
            original = device.current()
            values += [f"{SCHEDULER_PREFIX}{name}" for name in device.offered() if name != original]
    values.append(IDLE_CLASS)
    hierarchy = cgroup if cgroup is not None else usable_hierarchy(is_root)
    if isinstance(hierarchy, Hierarchy):
        values.append(f"{CGROUP_PREFIX}{WEIGHT}")
    else:
        skipped.append(Skipped("cgroup", hierarchy))
    return RemedyPlan(tuple(values), device, original, tuple(skipped),
                      hierarchy if isinstance(hierarchy, Hierarchy) else None)
