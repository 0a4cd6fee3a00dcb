"""What the sweep screen says before and after a sweep, as pure functions (no Textual).

The values text the user edits, the planning status (points, time, space, notes,
or why it cannot start) and the command that resumes a stopped sweep.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

from iotui.core.sweep.values import SweepAxis, SweepValueError, axes_from_table
from iotui.ui.service_types import Overrides, SweepSetup

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset


def default_vary_text(preset: Preset) -> str:
    """The preset's ``[sweep]`` defaults as the text the user edits: ``numjobs=1,2,4,8``."""
    try:
        axes = axes_from_table(preset.sweep, f"preset {preset.name}")
    except SweepValueError:
        return ""
    return "; ".join(f"{axis.key}={','.join(axis.values)}" for axis in axes)


def planning_text(preset: Preset, setup: SweepSetup | None, problem: str | None) -> Text:
    """The status before starting: the estimate and notes, then what enter does (or why it cannot start)."""
    if problem or setup is None:
        return Text(problem or "Type what to vary first.", style="bold")
    text = Text(setup.description)
    for note in setup.notes:
        text.append(f"\n{note}", style="italic")
    sweep_note = (preset.sweep or {}).get("note")
    if sweep_note:
        text.append(f"\n{sweep_note}", style="italic")
    if setup.refusal:
        text.append(f"\nThis sweep cannot start: {setup.refusal}", style="bold")
    else:
        text.append("\nEnter starts it; v edits the values first.", style="dim")
    return text


def resume_command(
    preset_name: str, target_path: str, axes: Sequence[SweepAxis], overrides: Overrides, runs_dir: Path
) -> str:
    """The ``iotui sweep`` command that finds the sweep record and runs its remaining points."""
    parts = ["iotui", "sweep", preset_name, "--target", target_path]
    for axis in axes:
        parts += ["--vary", f"{axis.key}={','.join(axis.values)}"]
    if overrides.runtime_s is not None:
        parts += ["--runtime", f"{overrides.runtime_s:g}"]
    if overrides.size is not None:
        parts += ["--size", overrides.size]
    for key in ("bs", "iodepth", "numjobs"):
        value = getattr(overrides, key)
        if value is not None:
            parts += ["--set", f"{key}={value}"]
    if overrides.direct is not None:
        parts += ["--set", f"direct={1 if overrides.direct else 0}"]
    parts += ["--runs-dir", str(runs_dir), "--resume"]
    return shlex.join(parts)
