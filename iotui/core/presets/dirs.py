"""Where presets live: the shipped directory, then the user's (a later one overrides by name)."""

from __future__ import annotations

import os
from importlib import resources
from pathlib import Path
from typing import Iterator, Mapping

# The top-level presets/ of a source checkout, used only when iotui runs from one without being installed.
_CHECKOUT_PRESETS = Path(__file__).resolve().parents[3] / "presets"


def shipped_presets_dir() -> Path:
    """The presets shipped with iotui: the package ``iotui.presets`` (setup.py maps presets/ to it).

    Found through importlib.resources, so a wheel, ``pipx install`` and an editable
    install all give the same folder of ``*.toml`` files.
    """
    try:
        folder = resources.files("iotui.presets")
    except ModuleNotFoundError:
        return _CHECKOUT_PRESETS
    # Installed packages live on disk (setuptools' wheels are not zip-safe); a Traversable that
    # is not a real folder would not list, so say where the checkout's would be instead.
    return folder if isinstance(folder, Path) else _CHECKOUT_PRESETS


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
