"""One way for a test to wait: until a condition holds, or fail saying what never happened.

No test sleeps blindly or polls in a loop that may fall through: it waits here,
with a generous deadline (the suite runs on small, busy machines), and a
condition that never holds fails loudly with ``what``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

DEFAULT_TIMEOUT_S = 30.0


def wait_until(condition: Callable[[], Any], *, what: str, timeout_s: float = DEFAULT_TIMEOUT_S,
               interval_s: float = 0.01) -> Any:
    """Call ``condition`` until it is truthy and return its value; AssertionError after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s:g} s for {what}; it never happened")
        time.sleep(interval_s)


async def wait_for(condition: Callable[[], Any], *, what: str, pilot: Any = None,
                   timeout_s: float = DEFAULT_TIMEOUT_S, interval_s: float = 0.05) -> Any:
    """The same in a coroutine; with a Pilot, the app handles its messages between checks.

    Every 50 ms, not 10: each Pilot pause walks the whole screen and lays it out again, so a
    wait of seconds (a run in the app) polled at 100 Hz cost about 8% more CPU in the screen
    tests, for at most 40 ms less waiting."""
    deadline = time.monotonic() + timeout_s
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s:g} s for {what}; it never happened")
        if pilot is not None:
            await pilot.pause(interval_s)
        else:
            await asyncio.sleep(interval_s)
