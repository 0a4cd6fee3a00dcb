"""The closed sets of states a run and a sweep go through on screen."""

from __future__ import annotations

from enum import Enum


class RunPhase(str, Enum):
    """Where one run (or a sweep's current point) stands; the values are the words the figures show."""

    STARTING = "starting"
    """The session is being prepared or measures the machine at rest; fio has not reported yet."""
    RUNNING = "running"
    PAUSED = "paused"
    STOPPING = "stopping"
    """A stop was asked for; fio writes its final report."""
    FINISHED = "finished"


class SweepPhase(str, Enum):
    """planning -> running -> (stopping ->) done | stopped | failed."""

    PLANNING = "planning"
    RUNNING = "running"
    STOPPING = "stopping"
    DONE = "done"
    STOPPED = "stopped"
    FAILED = "failed"

    @property
    def active(self) -> bool:
        """Whether a point may be running."""
        return self in (SweepPhase.RUNNING, SweepPhase.STOPPING)
