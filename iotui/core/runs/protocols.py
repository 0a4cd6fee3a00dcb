"""What a fio session needs of the tool's process: :class:`~iotui.core.fio.runner.FioRunner`
in a run, a replay of recorded fio output in tests (``tests/ui/replay.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, AsyncIterator, Protocol

if TYPE_CHECKING:
    from iotui.core.fio.runner import RunnerEvent


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
