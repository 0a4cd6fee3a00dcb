"""Steady state: the SNIA window on per-second samples, and fio's own ss result."""

from __future__ import annotations

import json
import random

import pytest

from iotui.core.records.steady import (
    FioSteadyState,
    SteadyTracker,
    fio_steady_state,
    fio_steady_states,
    judge_window,
    section_steady_state,
    steady_state,
)
from tests.conftest import FIO_FIXTURES


def _times(count: int, first: float = 1.0) -> list[float]:
    return [first + index for index in range(count)]


def test_constant_stream_is_steady_after_the_first_window() -> None:
    state = steady_state(_times(20), [1000.0] * 20)
    assert state.reached and state.method == "window"
    assert state.after_s == 10.0  # the first window: ten 1-second samples
    assert state.sentence() == "steady after 10 s"
    assert state.to_record() == {"reached": True, "after_s": 10.0, "method": "window"}


def test_ramp_then_flat_settles_where_the_window_first_passes() -> None:
    # Worked by hand: the window t=4..13 holds 900 and nine 1000s: mean 990, range 100
    # (10.1%); about its mean time 8.5 the times spread by 82.5 (sum of squares) and the
    # products sum to 4.5 * 90 + 10 * 4.5 = 450, so the line rises 450 / 82.5 a second,
    # 49.09 (5.0%) across its 9 s. The window t=3..12 (600, 900, eight 1000s) has a range of
    # 400 (42%).
    values = [100.0, 300.0, 600.0, 900.0] + [1000.0] * 12
    state = steady_state(_times(16), values)
    assert state.reached
    assert state.after_s == 13.0
    assert state.window is not None
    assert state.window.mean == pytest.approx(990.0)
    assert state.window.fitted_change == pytest.approx(450 / 82.5 * 9)
    assert state.sentence() == "steady after 13 s"


def test_after_s_counts_from_the_section_start() -> None:
    # A second section whose samples end at t=31..45 on the run's clock, starting at 30.
    state = steady_state(_times(15, first=31.0), [500.0] * 15, start_s=30.0)
    assert state.after_s == 10.0


def test_drifting_stream_is_not_steady_and_says_it_is_falling() -> None:
    # Falls 16 IOPS a second from 1232; the first window's mean is 1160, so its fitted
    # line falls 144 (12.4%, beyond 10%), and later windows fall by more of their mean.
    # The last window is 1072, 1056, ..., 928: mean 1000, range 144 (14.4%, within 20%)
    # but the fitted line falls 144 (14.4%, beyond 10%).
    values = [1232.0 - 16.0 * index for index in range(20)]
    assert values[-10:] == [1072.0 - 16.0 * index for index in range(10)] and values[-1] == 928.0
    state = steady_state(_times(20), values)
    assert not state.reached
    assert state.after_s is None
    assert state.sentence() == "not steady: IOPS falling 14%"
    assert state.to_record() == {"reached": False, "method": "window"}


def test_rising_stream_says_rising() -> None:
    values = [1000.0 + 15.0 * index for index in range(14)]
    # last window 1060..1195: mean 1127.5, change 135 -> 12.0%, range 12.0%; every earlier
    # window changes 135 too, a larger share of its smaller mean
    state = steady_state(_times(14), values)
    assert state.sentence() == "not steady: IOPS rising 12%"


def test_oscillating_stream_is_not_steady_and_says_it_varies() -> None:
    # 1000/1500 alternating: the last window (1000, 1500, 1000, 1500, 1000, then the same
    # backwards) has mean 1200, range 500 (42%), and, read the same both ways, a flat fitted line.
    values = [1000.0, 1500.0, 1000.0, 1500.0, 1000.0] + [1000.0, 1500.0, 1000.0, 1500.0, 1000.0] * 2
    values[10:] = values[10:][::-1]
    state = steady_state(_times(15), values)
    assert not state.reached
    assert state.window is not None and state.window.fitted_change == pytest.approx(0.0)
    assert state.sentence() == "not steady: IOPS varying 42%"


def test_noise_within_the_limits_is_steady_but_wider_noise_is_not() -> None:
    rng = random.Random(7)
    calm = [1000.0 * (1 + rng.uniform(-0.05, 0.05)) for _ in range(30)]
    assert steady_state(_times(30), calm).reached  # range at most 10% of the mean
    wild = [1000.0 * (1 + (0.3 if index % 2 else -0.3)) for index in range(30)]
    assert not steady_state(_times(30), wild).reached


def test_the_limits_are_inclusive_at_twenty_and_ten_percent() -> None:
    # Range exactly 20% of the mean, flat fit: 900, 1100, 1000, 1100, 900 -> mean 1000, range 200.
    window = judge_window(_times(5), [900.0, 1100.0, 1000.0, 1100.0, 900.0])
    assert window.range_share == pytest.approx(0.2)
    assert window.fitted_change == pytest.approx(0.0)
    assert window.steady
    just_over = judge_window(_times(5), [899.0, 1101.0, 1000.0, 1101.0, 899.0])
    assert not just_over.steady


def test_no_io_is_never_steady() -> None:
    state = steady_state(_times(12), [0.0] * 12)
    assert not state.reached
    assert state.sentence() == "not steady: no IOPS"


def test_fewer_samples_than_the_window_is_no_judgement_yet() -> None:
    state = steady_state(_times(9), [100.0] * 9)
    assert not state.reached and state.window is None
    assert state.sentence() == "steady state: 9 of 10 s so far"


def test_section_samples_sum_directions_and_skip_paused_seconds() -> None:
    samples = [{"t_s": 10.0 + index, "dt_s": 1.0, "read_iops": 700.0, "write_iops": 300.0} for index in range(1, 6)]
    samples.append({"t_s": 16.0, "dt_s": 1.0, "paused": True, "read_iops": 0.0, "write_iops": 0.0})
    samples += [{"t_s": 17.0 + index, "dt_s": 1.0, "read_iops": 700.0, "write_iops": 300.0} for index in range(5)]
    state = section_steady_state(samples)
    assert state.reached
    assert state.window is not None and state.window.mean == pytest.approx(1000.0)
    # section starts at 10.0 (first sample ends at 11.0 after 1 s); the tenth kept sample ends at 21.0
    assert state.after_s == pytest.approx(11.0)


def test_live_tracker_agrees_with_the_record_judgement() -> None:
    values = [100.0, 300.0, 600.0, 900.0] + [1000.0] * 12
    tracker = SteadyTracker(start_s=0.0)
    sentences = [tracker.add(t, v).sentence() for t, v in zip(_times(16), values)]
    assert sentences[:9] == [f"steady state: {n} of 10 s so far" for n in range(1, 10)]
    # t=3..12: 600, 900, eight 1000s, mean 950; the products about t=7.5 sum to 2,150, so the
    # line rises 2150 / 82.5 * 9 = 234.5 (24.7%) across the window: a trend before a spread.
    assert sentences[11] == "not steady: IOPS rising 25%"
    assert sentences[12] == "steady after 13 s"
    assert sentences[-1] == "steady after 13 s"
    assert tracker.state.after_s == steady_state(_times(16), values).after_s


def test_fio_ss_from_a_published_report() -> None:
    report = json.loads((FIO_FIXTURES / "published" / "fio-tests-steadystate.json").read_text())
    found = fio_steady_states(report)
    assert set(found) == {"steady-state-iops-mean-limit", "steady-state-iops-slope"}
    mean_limit = found["steady-state-iops-mean-limit"]
    assert not mean_limit.reached
    assert mean_limit.criterion == "iops:20%"
    assert mean_limit.achieved == "39.368103%"
    assert mean_limit.duration_s == 60.0
    assert mean_limit.after_s is None
    slope = found["steady-state-iops-slope"]
    assert slope.reached and slope.criterion == "iops_slope:10%"
    assert slope.slope == pytest.approx(1.905891)
    assert slope.after_s is None  # the published excerpt has no job_runtime


def test_fio_ss_after_is_the_job_runtime_and_both_results_are_kept() -> None:
    job = {
        "jobname": "ss",
        "job_runtime": 4511,
        "steadystate": {"ss": "iops:5.000000%", "duration": 3, "attained": 1, "criterion": "0.000000%",
                        "max_deviation": 0.0, "slope": 0.0},
    }
    fio_ss = fio_steady_state(job)
    assert fio_ss == FioSteadyState(True, "iops:5%", 3.0, 4.511, 0.0, 0.0, "0.000000%")
    both = steady_state(_times(12), [500.0] * 12, fio_ss=fio_ss)
    record = both.to_record()
    assert record["method"] == "window" and record["after_s"] == 10.0
    assert record["fio_ss"] == {"reached": True, "criterion": "iops:5%", "after_s": 4.511, "duration_s": 3.0,
                                "max_deviation": 0.0, "slope": 0.0, "achieved": "0.000000%"}
    alone = steady_state([], [], fio_ss=fio_ss)
    assert alone.method == "fio-ss" and alone.reached and alone.after_s == 4.511
    assert alone.to_record() == {"reached": True, "after_s": 4.511, "method": "fio-ss"}
    assert alone.sentence() == "fio: steady after 4.511 s (iops:5%)"


def test_a_job_without_ss_has_no_fio_result() -> None:
    assert fio_steady_state({"jobname": "x", "read": {"runtime": 1000}}) is None
    assert fio_steady_states({"jobs": [{"jobname": "x"}]}) == {}


def test_the_live_judgement_leaves_paused_seconds_out_as_the_record_does() -> None:
    # A pause on the Run screen (p) gave "not steady: IOPS falling 150%" live: the paused
    # seconds' near-zero IOPS were judged there, while the record leaves them out.
    from iotui.core.records.steady import LiveSteady

    iops = [1000.0, 1010.0, 990.0, 100.0, 0.0, 0.0, 500.0, 1000.0, 1005.0, 995.0, 1000.0, 1002.0, 998.0, 1001.0]
    paused = [False, False, False, True, True, True, True] + [False] * 7
    samples = [
        {"t_s": float(second), "dt_s": 1.0, "read_iops": value, **({"paused": True} if was_paused else {})}
        for second, (value, was_paused) in enumerate(zip(iops, paused), start=1)
    ]
    live = LiveSteady()
    sentences = [
        live.add(sample["t_s"], 1.0, sample["read_iops"], "read", paused=bool(sample.get("paused"))).sentence()
        for sample in samples
    ]
    assert not any("falling" in sentence for sentence in sentences)
    assert sentences[-1] == section_steady_state(samples).sentence()


def test_a_five_second_section_is_too_short_to_judge_never_not_steady() -> None:
    """The desktop preset's 5-second sections: a part of a second at each end, four whole seconds between."""
    from iotui.core.records.findings import steady_sentence
    from iotui.core.records.steady import section_steady_state

    # Falling IOPS that would read "not steady" if the window were judged.
    samples = [{"t_s": 10.4, "dt_s": 0.4, "read_iops": 100.0}]
    samples += [{"t_s": 10.4 + i, "dt_s": 1.0, "read_iops": 1000.0 - 150 * i} for i in range(1, 5)]
    samples += [{"t_s": 15.0, "dt_s": 0.6, "read_iops": 900.0}]
    state = section_steady_state(samples)
    assert state.too_short and not state.reached
    assert state.sentence() == "too short to judge: 4 s of the 10 s window needed"
    assert steady_sentence(state.to_record()) == "too short to judge: 4 s of the 10 s window needed"
    # Five whole seconds (the section lined up with fio's status interval) are still too few.
    aligned = [{"t_s": 10.0 + i, "dt_s": 1.0, "read_iops": 1000.0 - 150 * i} for i in range(1, 6)]
    assert section_steady_state(aligned).sentence() == "too short to judge: 5 s of the 10 s window needed"


def test_parts_of_a_second_are_left_out_of_the_window() -> None:
    """A partial first second (low, over 0.3 s) does not keep a flat section from being steady."""
    from iotui.core.records.steady import section_steady_state

    samples = [{"t_s": 0.3, "dt_s": 0.3, "read_iops": 10.0}]
    samples += [{"t_s": 0.3 + i, "dt_s": 1.0, "read_iops": 1000.0} for i in range(1, 11)]
    state = section_steady_state(samples)
    assert state.reached and state.after_s == 10.3  # the section starts at its first (partial) second


def test_a_section_whose_every_second_shared_the_device_is_too_short_to_judge() -> None:
    """Seconds shared with another program's I/O are left out; where that leaves none, the section
    still says it is too short to judge (the desktop table's column showed nothing at all)."""
    samples = [{"t_s": float(t), "dt_s": 1.0, "read_iops": 100.0, "interference": True} for t in range(1, 4)]
    state = section_steady_state(samples)
    assert state.too_short and state.reached is False


def test_live_a_section_planned_shorter_than_the_window_says_so_from_its_first_second() -> None:
    """The desktop preset's 5-second sections, live: never "steady state: 4 of 10 s so far" (a count
    it cannot finish) nor "not steady"; a section planned for the window or longer counts up."""
    from iotui.core.records.steady import LiveSteady

    live = LiveSteady()
    falling = [{"t_s": 0.5 + i, "iops": 1000.0 - 150 * i} for i in range(6)]
    sentences = [live.add(s["t_s"], 1.0, s["iops"], 0, section_s=5.0).sentence() for s in falling]
    assert sentences == ["too short to judge: 5 s of a 10 s window"] * 6
    longer = [live.add(6.5 + i, 1.0, 1000.0, 1, section_s=30.0).sentence() for i in range(10)]
    assert longer[:2] == ["steady state: 1 of 10 s so far", "steady state: 2 of 10 s so far"]
    assert longer[-1] == "steady after 10 s"


def test_one_late_status_document_does_not_make_every_other_second_a_part() -> None:
    """On a busy machine fio printed one document 1.6 s after the last: the other seconds stay whole."""
    samples = [{"t_s": 0.4, "dt_s": 0.4, "read_iops": 50.0}]
    samples += [{"t_s": 0.4 + i, "dt_s": 1.0, "read_iops": 200.0} for i in range(1, 8)]
    samples.append({"t_s": 9.0, "dt_s": 1.6, "read_iops": 200.0})
    samples += [{"t_s": 9.0 + i, "dt_s": 1.0, "read_iops": 200.0} for i in range(1, 6)]
    state = section_steady_state(samples)
    assert state.reached, state  # 13 whole seconds (the late one too), the partial first left out
    assert state.after_s == pytest.approx(11.0)  # the tenth whole second ends at 11.0
