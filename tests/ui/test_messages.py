"""Session events become messages; only the latest-wins level message coalesces."""

from __future__ import annotations

from pathlib import Path

from iotui.core.host.counters import HostSample
from iotui.core.fio.intervals import IntervalSample
from iotui.core.host.responsiveness import Assessment, Level
from iotui.core.runs.events import HostUpdate, IntervalUpdate, LogLine, RunFinished
from iotui.ui.messages import (
    FioLogged,
    HostSampled,
    IntervalArrived,
    ResponsivenessAssessed,
    RunEnded,
    messages_for_event,
)
from tests.ui.test_comparison import make_record


def _assessed(level: Level, changed: bool) -> ResponsivenessAssessed:
    return ResponsivenessAssessed(Assessment(level, None, "", None, changed))


def test_a_level_message_gives_way_to_a_newer_one() -> None:
    older = _assessed(Level.OK, changed=False)
    assert older.can_replace(_assessed(Level.OK, changed=False))


def test_a_level_change_is_never_dropped() -> None:
    change = _assessed(Level.UNRESPONSIVE, changed=True)
    assert not change.can_replace(_assessed(Level.UNRESPONSIVE, changed=False))


def test_series_points_never_coalesce() -> None:
    interval = IntervalArrived(IntervalSample(1.0, 1.0, {}), None, 1.0)
    assert not interval.can_replace(IntervalArrived(IntervalSample(2.0, 1.0, {}), None, 2.0))
    assert not HostSampled(HostSample()).can_replace(HostSampled(HostSample()))


def test_each_event_maps_to_its_messages() -> None:
    host = HostSample(cpu_user_pct=1.0)
    assessment = Assessment(Level.OK, None, "", None, False)
    interval = IntervalSample(1.0, 1.0, {})
    record = make_record("a", 1)
    assert [type(m) for m in messages_for_event(HostUpdate(host, assessment))] == [HostSampled, ResponsivenessAssessed]
    assert [type(m) for m in messages_for_event(HostUpdate(host, None))] == [HostSampled]
    assert isinstance(messages_for_event(IntervalUpdate(interval, host, {}, 1.0))[0], IntervalArrived)
    assert messages_for_event(LogLine("stderr", "boom"))[0] == FioLogged("stderr", "boom")
    ended = messages_for_event(RunFinished(record, Path("/r.toml"), None))[0]
    assert isinstance(ended, RunEnded) and ended.saved_path == Path("/r.toml")
    assert messages_for_event(object()) == []


def test_a_paused_second_is_said_by_the_value_itself_not_read_back_from_the_row() -> None:
    from iotui.core.fio.summary import sample_row

    paused = IntervalSample(t_s=5.0, dt_s=3.2, directions={}, groupid=1, paused=True)
    row = sample_row(paused)
    assert row["paused"] is True
    assert "paused" not in sample_row(IntervalSample(t_s=6.0, dt_s=1.0, directions={}))
    [message] = messages_for_event(IntervalUpdate(paused, None, {"t_s": 5.0}, 5.0))
    assert isinstance(message, IntervalArrived) and message.paused is True
