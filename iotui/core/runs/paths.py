"""Where run records live by default (light: the app's start reads it without the record module)."""

from __future__ import annotations

import os
from typing import Mapping
from pathlib import Path


def default_runs_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$IOTUI_RUNS_DIR``, else ``$XDG_DATA_HOME/iotui/runs`` (~/.local/share/iotui/runs)."""
    env = os.environ if env is None else env
    if env.get("IOTUI_RUNS_DIR"):
        return Path(env["IOTUI_RUNS_DIR"]).expanduser()
    data_home = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "iotui" / "runs"
