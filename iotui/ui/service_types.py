"""What the screens hand :class:`~iotui.ui.services.Services` and get back: plain values, no Textual."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iotui.core.host.targets import TargetInfo
    from iotui.core.presets.model import Preset
    from iotui.core.sweep.plan import SweepEstimate, SweepPlan


@dataclass(frozen=True)
class Overrides:
    """The options a user may change on the home screen; ``None`` keeps the preset's."""

    runtime_s: float | None = None
    size: str | None = None
    bs: str | None = None
    iodepth: int | None = None
    numjobs: int | None = None
    direct: bool | None = None

    def as_kwargs(self) -> dict[str, object]:
        """Keyword arguments for ``with_overrides`` (unset ones left out)."""
        return {name: value for name, value in self.__dict__.items() if value is not None}

    def applied_to(self, preset: Preset) -> Preset:
        """``preset`` with these changes (PresetError or PolicyError for a refused one)."""
        if not self.as_kwargs():
            return preset
        from iotui.core.presets.overrides import with_overrides  # loaded with the first edit

        return with_overrides(
            preset, runtime_s=self.runtime_s, size=self.size, bs=self.bs, iodepth=self.iodepth,
            numjobs=self.numjobs, direct=self.direct,
        )


@dataclass(frozen=True)
class PlanPreview:
    """What a run would do, shown before it starts."""

    command: str
    warnings: list[tuple[str, str]] = field(default_factory=list)
    error: str | None = None
    duration_s: float | None = None
    disk_bytes: int | None = None


@dataclass(frozen=True)
class RunRequest:
    """A run the user asked for: the preset (overrides applied) on the chosen target."""

    preset: Preset
    target: TargetInfo
    """The target as inspected when it was chosen; the run's plan reads only its free space again."""
    estimated_s: float | None = None
    hosts: tuple[str, ...] = ()
    """ssh destinations to run on at once (empty: this machine); the target is then each host's path."""
    host_probes: bool = True
    """With hosts: run the wake-up and I/O probes on each (the command line's ``--no-host-probes`` is False)."""

    @property
    def target_path(self) -> str:
        return str(self.target.path)


@dataclass(frozen=True)
class SkippedPreset:
    """A preset file that did not load: the name it would have had (its file's name) and why."""

    name: str
    sentence: str


@dataclass(frozen=True)
class SweepSetup:
    """A sweep planned and estimated on the sweep screen, before it starts.

    ``refusal`` is the sentence saying why it must not start (the disk is too
    small, the target is missing); ``description`` is the line shown before
    starting (points, time, space).
    """

    plan: SweepPlan
    estimate: SweepEstimate
    target_path: str
    description: str
    notes: tuple[str, ...] = ()
    refusal: str | None = None
    target_info: TargetInfo | None = None
    """``target_path`` as inspected when it was chosen (Home's), carried to each point on it."""

    @property
    def points(self) -> list[dict[str, str]]:
        return list(self.plan.params)
