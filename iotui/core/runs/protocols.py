"""The seams a run goes through, typed so mypy checks every call across them.

:class:`Runner` is what a fio session needs of the tool's process
(:class:`~iotui.core.fio.runner.FioRunner` in a run, a replay of recorded fio
output in tests, ``tests/ui/replay.py``). :class:`Session` is what the app and the
command line need of a run, whatever runs it: a local fio run
(:class:`~iotui.core.runs.session.RunSession`), a run on many hosts
(:class:`~iotui.core.remote.session.MultiHostSession`) or a sysbench run
(:class:`~iotui.core.sysbench.session.SysbenchSession`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncIterator, Mapping, Protocol

if TYPE_CHECKING:
    from iotui.core.fio.runner import RunnerEvent
    from iotui.core.records.record import RunRecord


class Runner(Protocol):
    """The tool's process: started, read as events until it exits, paused, resumed, stopped."""

    stderr_lines: list[str]

    @property
    def pid(self) -> int | None: ...

    async def start(self) -> None: ...
    def events(self) -> AsyncIterator[RunnerEvent]: ...
    def pause(self) -> bool: ...
    def resume(self) -> bool: ...
    async def stop(self) -> int | None: ...


class SessionPlan(Protocol):
    """What the screens show of a session's plan before its first figure (a local, remote or
    sysbench plan alike)."""

    @property
    def options(self) -> Mapping[str, str]: ...
    @property
    def numjobs(self) -> int | None: ...
    @property
    def estimated_duration_s(self) -> float | None: ...


class Session(Protocol):
    """One run, start to record: ``await run()`` returns the record (saved unless told not).

    ``pause`` and ``resume`` return whether they took effect: a session that cannot pause
    (yet) returns False and the caller says so. ``request_stop(ended_by)`` ends the run early
    and keeps what it measured as a stopped record; ``ended_by`` (``user``,
    ``signal:SIGHUP``, ``terminal-lost``...) becomes the record's ``run.ended_by``, the
    first reason given winning.
    """

    # Run past another run that holds the machine's run lock (after the user said so); a
    # session that takes no lock ignores it.
    force: bool

    @property
    def plan(self) -> SessionPlan: ...

    async def run(self) -> RunRecord: ...
    def pause(self) -> bool: ...
    def resume(self) -> bool: ...
    def request_stop(self, ended_by: str = "user") -> None: ...
