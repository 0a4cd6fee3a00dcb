"""Presets on other platforms: Linux-only fio engines replaced where fio lacks them."""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Mapping

from iotui.core.presets.model import JobSection, Preset

_LINUX_ONLY_ENGINES = ("libaio", "io_uring", "io_uring_cmd", "pvsync2")


def _engine_fallback(engine: str, platform: str) -> str:
    """Where fio has no Linux engine: posixaio for the queued ones (psync on OpenBSD), pvsync for pvsync2."""
    if engine not in _LINUX_ONLY_ENGINES and not (engine == "posixaio" and platform.startswith(("openbsd", "win"))):
        return engine
    if engine == "pvsync2":
        return "psync" if platform.startswith("win") else "pvsync"
    if platform.startswith(("win", "cygwin", "msys")):
        return "windowsaio"
    if platform.startswith("openbsd"):
        return "psync"
    return "posixaio"


def _adapt(options: Mapping[str, str], platform: str) -> dict[str, str]:
    engine = options.get("ioengine")
    if engine is None:
        return dict(options)
    fallback = _engine_fallback(engine, platform)
    if fallback == engine:
        return dict(options)
    adapted = {key: value for key, value in options.items() if key not in ("hipri", "hipri_percentage")}
    adapted["ioengine"] = fallback
    return adapted


def for_platform(preset: Preset, platform: str | None = None) -> Preset:
    """The preset with Linux-only engines replaced where fio lacks them (``sys.platform`` by default).

    libaio and io_uring become posixaio (windowsaio on Windows, psync on
    OpenBSD) and pvsync2 becomes pvsync; on Linux nothing changes. Engines in a
    sweep's varied values are replaced too, duplicates dropped.
    """
    platform = platform or sys.platform
    if platform.startswith("linux"):
        return preset
    sweep = preset.sweep
    if sweep and "ioengine" in sweep.get("vary", {}):
        engines = [_engine_fallback(engine, platform) for engine in sweep["vary"]["ioengine"]]
        sweep = {**sweep, "vary": {**sweep["vary"], "ioengine": list(dict.fromkeys(engines))}}
    return replace(
        preset,
        options=_adapt(preset.options, platform),
        jobs=tuple(JobSection(section.name, _adapt(section.options, platform)) for section in preset.jobs),
        sweep=sweep,
    )
