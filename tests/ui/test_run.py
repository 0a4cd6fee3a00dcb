"""Run: a replayed fio run through the real session, shown live, then results and a record."""

from __future__ import annotations

from iotui.core.records.files import list_records, load_record
from iotui.ui.app import IotuiApp
from iotui.ui.messages import (
    FioLogged,
    HostSampled,
    IntervalArrived,
    ResponsivenessAssessed,
    RunEnded,
    RunFailed,
    RunStarted,
)
from iotui.ui.screens.confirm import ConfirmScreen
from iotui.ui.screens.home import HomeScreen
from iotui.ui.screens.results import ResultsScreen
from iotui.ui.screens.run import RunScreen
from tests.conftest import fio_documents
from tests.fakes.io_probe import QUIET_IO, STALLED_IO
from tests.ui.helpers import MessageLog, screen_text, settle, widget_text
from tests.ui.replay import CALM_HOST, RANDRW, STALLED_HOST, ReplayRunner, ReplayServices
from tests.waiting import wait_for


async def test_r_runs_the_replay_and_lands_on_results_with_a_saved_record(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(tmp_path)
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await settle(pilot)
        assert len(log.of(RunStarted)) == 1
        intervals = log.of(IntervalArrived)
        assert len(intervals) == len(fio_documents(RANDRW))
        ended = log.of(RunEnded)
        assert len(ended) == 1 and ended[0].error is None
        assert isinstance(app.screen, ResultsScreen)
        text = screen_text(app)
        assert f"Saved:{ended[0].saved_path}" in "".join(text.split())
        assert "completed" in text and "lat p99.9" in text
    saved = load_record(ended[0].saved_path)
    assert saved.status == "completed" and saved.preset == "quick"
    assert len(saved.samples) == len(intervals)


async def test_live_figures_and_sparklines_follow_the_intervals(tmp_path) -> None:
    log = MessageLog()
    documents = fio_documents(RANDRW)
    # The first report comes after the run screen has been laid out, as with real fio.
    services = ReplayServices(
        tmp_path, runner_factory=lambda: ReplayRunner(documents, hold_after=3, first_delay_s=0.5)
    )
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 3 and log.of(HostSampled), pilot=pilot, what="three intervals and a host sample")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, RunScreen)
        latest = log.of(IntervalArrived)[-1].interval
        text = screen_text(app)
        from iotui.core import format as fmt

        collapsed = " ".join(text.split())
        for direction in ("read", "write"):  # the big figures' row, not the sparklines' values
            figures = latest.directions[direction]
            assert f"{direction} {fmt.iops(figures.iops)} {fmt.bytes_per_s(figures.bw_bytes)}" in collapsed
        assert "IOPS r" in text and "p99 w" in text and "CPU usr" in text and "io some" in text
        assert "12.5%" in text  # CALM_HOST's CPU user share, as the host row's latest value
        assert "responsive: OK" in text
        assert len(screen.live.ring("read_iops")) == 3
        await pilot.press("s")
        await settle(pilot)
        assert isinstance(app.screen, ResultsScreen)


async def test_stop_keeps_a_partial_record(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(tmp_path, runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=2))
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 2, pilot=pilot, what="two intervals")
        await pilot.press("s")
        await settle(pilot)
        assert services.runners[0].stopped
        ended = log.of(RunEnded)[0]
        assert ended.record.status == "stopped"
        assert isinstance(app.screen, ResultsScreen)
        assert "stopped" in screen_text(app)
    [(path, record, error)] = list_records(tmp_path)
    assert error is None and record.status == "stopped"


async def test_pause_and_resume_reach_fio_and_show(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(tmp_path, runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=1))
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: log.of(IntervalArrived), pilot=pilot, what="the first interval")
        await pilot.press("p")
        await pilot.pause()
        runner = services.runners[0]
        assert runner.paused
        assert "PAUSED" in screen_text(app)
        await pilot.press("p")
        await pilot.pause()
        assert not runner.paused
        assert "PAUSED" not in screen_text(app)
        await pilot.press("s")
        await settle(pilot)


async def test_quit_during_a_run_asks_then_stops_and_keeps_the_record(tmp_path) -> None:
    services = ReplayServices(tmp_path, runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=1))
    log = MessageLog()
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: log.of(IntervalArrived), pilot=pilot, what="the first interval")
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.screen.dialog_id == "quit-dialog"
        assert "Stop fio, keep the partial record and quit? (y / n)" in screen_text(app)
        footer = screen_text(app).splitlines()[-1]
        # The dialog's own keys in the footer, not the Run screen's p/s/q under it.
        assert "Yes, stop and quit" in footer and "No, keep running" in footer
        assert "Pause" not in footer and "Stop" not in footer
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen) and not services.runners[0].stopped
        await pilot.press("q")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
    assert app.return_code == 0
    assert services.runners[0].stopped
    [(_, record, _)] = list_records(tmp_path)
    assert record.status == "stopped"


async def test_quit_without_a_run_does_not_ask(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0


async def test_unresponsive_raises_a_toast_naming_the_cause_and_the_keys(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(
        tmp_path,
        runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=1),
        sampler_samples=[CALM_HOST, STALLED_HOST],
        io_probe_samples=[QUIET_IO, STALLED_IO],
        plan_numjobs=16,
    )
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: any(m.assessment.level.value == "unresponsive" for m in log.of(ResponsivenessAssessed)),
                       pilot=pilot, what="an unresponsive assessment")
        await pilot.pause()
        toasts = [text for title, text in log.toasts() if title == "The machine is not responding"]
        assert len(toasts) == 1
        assert toasts[0].startswith(
            "A small write + fdatasync by another program took 1500 ms, over the limit of 1000 ms."
        )
        # The quick preset is direct I/O at iodepth 8, run here with 16 jobs.
        assert "try a lower iodepth (now 8) or fewer jobs (now 16)" in toasts[0]
        assert "p to pause" in toasts[0] and "s to stop" in toasts[0]
        # The chip names the probe that crossed and its value on one line beside the figures at
        # 80 columns (the threshold is in its tooltip); io full 45% is context.
        chip = app.screen.query_one("#chip")
        assert widget_text(app, chip) == "UNRESPONSIVE · io write 1500 ms" and chip.size.height == 1
        assert "over the limit of 1000 ms" in str(chip.tooltip)
        assert "io full" not in toasts[0]
        await pilot.press("s")
        await settle(pilot)


async def test_io_full_alone_leaves_the_chip_ok(tmp_path) -> None:
    # fio's own threads stalled on its own I/O (io full 45%) while other programs' I/O is quick.
    log = MessageLog()
    services = ReplayServices(
        tmp_path,
        runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=1),
        sampler_samples=[STALLED_HOST],
        io_probe_samples=[QUIET_IO],
    )
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(ResponsivenessAssessed)) >= 6, pilot=pilot, what="six assessments")
        await pilot.pause()
        assert {m.assessment.level.value for m in log.of(ResponsivenessAssessed)} == {"ok"}
        assert "responsive: OK" in screen_text(app)
        assert not [title for title, _ in log.toasts() if title == "The machine is not responding"]
        await pilot.press("s")
        await settle(pilot)


async def test_a_qd1_single_job_run_is_never_told_fewer_jobs(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(
        tmp_path,
        runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), hold_after=1),
        io_probe_samples=[QUIET_IO, STALLED_IO],
    )
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("down")  # rnd4k-q1t1: one job, iodepth 1, direct
        await pilot.press("r")
        await wait_for(lambda: any(m.assessment.level.value == "unresponsive" for m in log.of(ResponsivenessAssessed)),
                       pilot=pilot, what="an unresponsive assessment")
        await pilot.pause()
        (toast,) = [text for title, text in log.toasts() if title == "The machine is not responding"]
        assert services.requests[-1].preset.name == "rnd4k-q1t1"
        assert "jobs" not in toast and "iodepth" not in toast
        assert "cap the rate (rate_iops)" in toast
        await pilot.press("s")
        await settle(pilot)


async def test_fio_messages_show_in_the_log_panel(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(
        tmp_path,
        runner_factory=lambda: ReplayRunner(fio_documents(RANDRW), stderr=["note: both iodepth >= 1 and synchronous I/O engine"], hold_after=1),
    )
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: log.of(IntervalArrived), pilot=pilot, what="the first interval")
        await pilot.pause()
        assert FioLogged("stderr", "note: both iodepth >= 1 and synchronous I/O engine") in log.of(FioLogged)
        assert "fio: note: both iodepth >= 1" in screen_text(app)
        await pilot.press("s")
        await settle(pilot)


async def test_a_session_that_cannot_start_is_a_sentence_and_home_again(tmp_path) -> None:
    log = MessageLog()
    sentence = "fio was not found on PATH: install it with 'sudo apt-get install fio'."
    app = IotuiApp(ReplayServices(tmp_path, make_session_error=sentence))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await settle(pilot)
        assert [m.sentence for m in log.of(RunFailed)] == [sentence]
        assert sentence in log.notifications()
        assert isinstance(app.screen, HomeScreen)
        await pilot.press("r")  # and the app still works
        await settle(pilot)
        assert len(log.of(RunFailed)) == 2


async def test_a_fio_crash_is_a_failed_record_and_a_notification(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(
        tmp_path,
        runner_factory=lambda: ReplayRunner(fio_documents(RANDRW)[:1], stderr=["fio: pid=4242, got signal=11"], returncode=139),
    )
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await settle(pilot)
        ended = log.of(RunEnded)[0]
        assert ended.record.status == "failed"
        assert any("fio exited with code 139" in text for text in log.notifications())
        assert isinstance(app.screen, ResultsScreen)
        assert "failed" in screen_text(app)


async def test_a_broken_session_is_a_sentence_not_a_traceback(tmp_path) -> None:
    class Exploding(ReplayRunner):
        async def start(self) -> None:
            raise RuntimeError("disk on fire")

    log = MessageLog()
    services = ReplayServices(tmp_path, runner_factory=lambda: Exploding([]))
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await settle(pilot)
        assert any("disk on fire" in m.sentence for m in log.of(RunFailed))
        assert isinstance(app.screen, HomeScreen)
    assert app.return_code in (None, 0)


async def test_stop_during_the_baseline_never_starts_fio(tmp_path) -> None:
    log = MessageLog()
    services = ReplayServices(tmp_path)
    original = services.make_session

    async def session_with_a_baseline(request, on_event):
        session = await original(request, on_event)
        session.baseline_s = 60.0  # quiet seconds before fio starts; the stop ends them at once
        return session

    services.make_session = session_with_a_baseline
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: log.of(RunStarted), pilot=pilot, what="the session to start")
        await pilot.press("s")
        await settle(pilot)
        assert services.runners == []  # fio never started
        assert log.of(RunEnded)[0].record.status == "stopped"
        assert isinstance(app.screen, ResultsScreen)


async def test_stop_while_the_session_is_prepared_records_nothing(tmp_path) -> None:
    import asyncio

    log = MessageLog()
    services = ReplayServices(tmp_path)

    async def slow_session(request, on_event):
        await asyncio.sleep(30)  # like a fio --version that takes its time

    services.make_session = slow_session
    app = IotuiApp(services)
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, RunScreen)
        await pilot.press("s")
        await settle(pilot)
        assert any("nothing was recorded" in m.sentence for m in log.of(RunFailed))
        assert isinstance(app.screen, HomeScreen)
    assert list_records(tmp_path) == []


async def test_the_run_screen_says_live_when_the_section_settled(tmp_path) -> None:
    from tests.ui.replay import synthetic_documents

    log = MessageLog()
    # Every interval carries the same I/O: the tenth one closes the first steady window.
    services = ReplayServices(
        tmp_path, runner_factory=lambda: ReplayRunner(synthetic_documents(8, RANDRW), hold_after=3)
    )
    app = IotuiApp(services)
    async with app.run_test(size=(100, 30), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 3, pilot=pilot, what="three intervals")
        await pilot.pause()
        assert "steady state: 3 of 10 s so far" in " ".join(screen_text(app).split())
        await pilot.press("s")
        await settle(pilot)


async def test_the_run_screen_shows_steady_after_ten_equal_seconds(tmp_path) -> None:
    import re

    from tests.ui.replay import synthetic_documents

    log = MessageLog()
    services = ReplayServices(
        tmp_path, runner_factory=lambda: ReplayRunner(synthetic_documents(14, RANDRW), hold_after=11)
    )
    app = IotuiApp(services)
    async with app.run_test(size=(100, 30), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("r")
        await wait_for(lambda: len(log.of(IntervalArrived)) >= 11, pilot=pilot, what="eleven intervals")
        await pilot.pause()
        # The screen shows the core's judgement (tested on known streams in tests/core) of these intervals.
        from iotui.core.records.steady import steady_state

        intervals = [m.interval for m in log.of(IntervalArrived)]
        iops = [sum(f.iops for f in interval.directions.values()) for interval in intervals]
        state = steady_state([i.t_s for i in intervals], iops, start_s=intervals[0].t_s - intervals[0].dt_s)
        assert state.reached
        assert state.sentence() in " ".join(screen_text(app).split())
        assert re.search(r"steady after \d+ s", screen_text(app))
        await pilot.press("s")
        await settle(pilot)


async def test_r_while_another_process_holds_the_machine_asks_and_runs_anyway_on_y(tmp_path) -> None:
    from iotui.ui.screens.confirm import ConfirmScreen
    from tests.core.test_run_lock import finish, start_holder

    holder = start_holder()
    try:
        log = MessageLog()
        app = IotuiApp(ReplayServices(tmp_path))
        async with app.run_test(size=(80, 24), message_hook=log) as pilot:
            await pilot.pause()
            await pilot.press("r")
            await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot=pilot, what="the question whether to run anyway")
            text = screen_text(app)
            assert f"pid {holder.pid}" in text and "quick" in text
            assert "Run anyway (both records will say so)? (y / n)" in text
            assert "Yes, run anyway" in text.splitlines()[-1] and "No, wait" in text.splitlines()[-1]
            await pilot.press("n")
            await wait_for(lambda: log.of(RunFailed), pilot=pilot, what="the refusal")
            assert f"pid {holder.pid}" in log.of(RunFailed)[0].sentence
            await wait_for(lambda: isinstance(app.screen, HomeScreen), pilot=pilot, what="Home again")
            assert not log.of(RunEnded)  # nothing ran, nothing was recorded
            await pilot.press("r")
            await wait_for(lambda: isinstance(app.screen, ConfirmScreen), pilot=pilot, what="the question whether to run anyway")
            await pilot.press("y")
            await wait_for(lambda: log.of(RunEnded), pilot=pilot, what="the forced run to end")
            await settle(pilot)
            saved = load_record(log.of(RunEnded)[0].saved_path)
            assert saved.run["forced"] is True
    finally:
        assert finish(holder) == "overlapped"


async def test_empty_panels_say_what_will_appear_and_missing_signals_are_left_out(tmp_path) -> None:
    from iotui.core.host.counters import HostSample
    from iotui.ui.services import RunRequest
    from tests.ui.replay import PRESETS, TARGETS

    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RunScreen(RunRequest(PRESETS[0], TARGETS[0], 20.0), cpu_count=2)
        await app.push_screen(screen)
        await pilot.pause()
        text = screen_text(app)
        assert "fio's and iotui's messages appear here (none yet)" in text
        assert "IOPS, BW and p99 once fio reports" in text
        assert "some: a task waited · full: all waited" in text  # what PSI's names mean
        # A machine with CPU counters but no PSI and no device counters (as off Linux).
        screen.post_message(HostSampled(HostSample(cpu_user_pct=10.0, cpu_system_pct=5.0, cpu_iowait_pct=0.0,
                                                   ctx_switches_per_s=900.0, interrupts_per_s=400.0)))
        screen.post_message(FioLogged("iotui", "This machine (Darwin) gives no PSI (pressure stall information)."))
        await pilot.pause()
        text = screen_text(app)
        assert "CPU usr" in text and "10.0%" in text
        for row in ("dev r/s", "cpu some", "io some", "io full", "mem some", "some: a task waited"):
            assert row not in text
        assert "gives no PSI" in text and "messages appear here" not in text


async def test_a_host_sample_is_drawn_with_fio_s_next_interval_or_alone_soon_after(tmp_path) -> None:
    from dataclasses import replace

    from iotui.core.fio.intervals import IntervalDeriver
    from iotui.core.runs.plan import RunPlan
    from iotui.ui.messages import RunStarted
    from iotui.ui.screens.run import HOST_DRAW_LATEST_S
    from iotui.ui.service_types import RunRequest
    from tests.ui.replay import PRESETS, FakeTarget, synthetic_documents

    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = RunScreen(RunRequest(PRESETS[0], FakeTarget(str(tmp_path), "ext4", "sda1", "/"), 20.0), cpu_count=4)
        await app.push_screen(screen)
        plan = RunPlan(
            preset_name="quick", argv=["fio"], options={}, target_path=tmp_path, test_file=None,
            target={"path": str(tmp_path)}, numjobs=1, estimated_duration_s=20.0, title="Quick check",
        )
        screen.post_message(RunStarted(plan, None))
        deriver = IntervalDeriver()
        intervals = [i for i in (deriver.feed(doc) for doc in synthetic_documents(4, RANDRW)) if i is not None]
        screen.post_message(IntervalArrived(intervals[0], CALM_HOST, intervals[0].t_s))
        await pilot.pause()
        assert screen.phase.name == "RUNNING"

        # A sample, then fio's next interval: both are on screen after that interval's frame.
        screen.post_message(HostSampled(replace(CALM_HOST, cpu_user_pct=71.5)))
        screen.post_message(IntervalArrived(intervals[1], CALM_HOST, intervals[1].t_s))
        await pilot.pause()
        assert "71.5%" in screen_text(app)

        # A sample that no interval follows (fio late): drawn on its own, within the limit.
        screen.post_message(HostSampled(replace(CALM_HOST, cpu_user_pct=64.5)))
        await wait_for(lambda: "64.5%" in screen_text(app), pilot=pilot, timeout_s=HOST_DRAW_LATEST_S + 2.0,
                       what="the host's sample drawn without a following interval")
