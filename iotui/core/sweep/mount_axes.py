"""A sweep across targets: the mount options that differ between them, as extra keys to rank."""

from __future__ import annotations

import dataclasses
from typing import Sequence

from iotui.core.sweep.points import PointResult
from iotui.core.sweep.values import SweepAxis

MOUNT_KEY_PREFIX = "mount:"


def parse_mount_options(text: str) -> dict[str, str]:
    """``rw,relatime,rsize=32768`` -> {"rw": "on", "relatime": "on", "rsize": "32768"}."""
    options: dict[str, str] = {}
    for item in str(text).split(","):
        key, separator, value = item.strip().partition("=")
        if key:
            options[key] = value if separator else "on"
    return options


def mount_option_axes(points: Sequence[PointResult]) -> tuple[list[SweepAxis], list[PointResult]]:
    """For a sweep across targets: the mount options that differ, as extra keys ``mount:NAME``.

    The NFS study mounted one share per option set and ranked each option's
    values; the targets' recorded mount options make that ranking automatic.
    A flag present on some mounts only is "on" where present, "off" elsewhere.
    """
    parsed = [parse_mount_options(p.mount_options) if p.mount_options else None for p in points]
    known = [options for options in parsed if options is not None]
    if len(known) < 2:
        return [], list(points)
    keys = sorted({key for options in known for key in options})
    axes = []
    for key in keys:
        values = list(dict.fromkeys(options.get(key, "off") for options in known))
        if len(values) > 1:
            axes.append(SweepAxis(f"{MOUNT_KEY_PREFIX}{key}", tuple(values)))
    extended = []
    for point, options in zip(points, parsed):
        if options is None or not axes:
            extended.append(point)
            continue
        extra = {axis.key: options.get(axis.key[len(MOUNT_KEY_PREFIX):], "off") for axis in axes}
        extended.append(dataclasses.replace(point, params={**point.params, **extra}))
    return axes, extended
