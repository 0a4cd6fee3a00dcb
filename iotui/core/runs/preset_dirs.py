"""Where presets live: the shipped directory, then the user's (a later one overrides by name)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Mapping


def shipped_presets_dir() -> Path:
    return Path(__file__).resolve().parents[3] / "presets"


def user_presets_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home).expanduser() / "iotui" / "presets"


def preset_dirs() -> list[Path]:
    """Shipped presets first; a user preset of the same name overrides one."""
    return [shipped_presets_dir(), user_presets_dir()]


def preset_files(dirs: list[Path]) -> Iterator[Path]:
    """Every preset file, directory by directory in order (so a later one overrides), by name."""
    for directory in dirs:
        if directory.is_dir():
            yield from sorted(directory.glob("*.toml"))
