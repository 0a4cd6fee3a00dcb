"""Which hosts have been silent too long, judged only while iotui itself keeps time.

A host that sends no document for STALL_S is failed (before its first one, and after its
job's estimated end, FIRST_REPORT_S). But a document a host sent may still wait in its pipe
when iotui was short of the CPU: 128 loopback hosts on two cores left iotui seconds behind,
and hosts whose documents were waiting were called silent. So a tick that comes more than
LATE_TICK_S after the one before marks iotui behind, and silence is judged only once iotui
has kept time for CAUGHT_UP_S since (by then every pipe has been read).
"""

from __future__ import annotations

from typing import Mapping

from iotui.core.remote.record import STALL_S, HostState

FIRST_REPORT_S = 30.0  # a released host with no first document this long is failed
LATE_TICK_S = 0.5  # a tick this much after the one before: iotui is behind
CAUGHT_UP_S = 2.0  # on time this long after being behind: every pipe has been read


class SilenceWatch:
    """Call :meth:`silent` at every tick; it returns the hosts to fail, with their limit."""

    def __init__(self) -> None:
        self.last_tick_s: float | None = None
        self.behind_at_s = float("-inf")  # when iotui was last seen behind

    def silent(
        self, states: Mapping[str, HostState], now_s: float, ending_s: float, resumed_at_s: float, *, paused: bool = False
    ) -> list[tuple[str, float]]:
        """(host, limit in s) for each host silent past its limit; none while iotui is behind or paused.

        ``ending_s``: the job's estimated end (paused time included); ``resumed_at_s``: the last
        resume (a pause sent nothing by design: silence counts again from there).
        """
        if self.last_tick_s is not None and now_s - self.last_tick_s > LATE_TICK_S:
            self.behind_at_s = now_s
        self.last_tick_s = now_s
        if paused or now_s - self.behind_at_s < CAUGHT_UP_S:
            return []
        found = []
        for host, state in states.items():
            if state.ended or state.failed_at_s is not None:
                continue
            # Silence is counted from a host's last document; before its first, from the release,
            # with a longer limit: many fio starting at once on a busy host take a while. After
            # the job's estimated end, a host is writing its final report and removing its files,
            # which a loaded host can be slow at: the longer limit too.
            if state.last_arrival_s is None:
                limit_s, last = FIRST_REPORT_S, resumed_at_s
            elif now_s > ending_s:
                limit_s, last = FIRST_REPORT_S, max(state.last_arrival_s, resumed_at_s)
            else:
                limit_s, last = STALL_S, max(state.last_arrival_s, resumed_at_s)
            if now_s - last > limit_s:
                found.append((host, limit_s))
        return found
