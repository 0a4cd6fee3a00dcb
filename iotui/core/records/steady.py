"""Steady state of a section's IOPS: the SNIA window on per-second samples, and fio's own ``ss``.

The SNIA Solid State Storage Performance Test Specification calls a test
steady when, over a window of five rounds, the range of the values is within
20% of their average and the best-fit line's excursion across the window is
within 10% of the average. iotui applies those limits to ten consecutive
1-second samples (an adaptation: SNIA's rounds are whole test passes, minutes
long; five single seconds are too few to tell a level from a trend, and a
section of five seconds would be judged on one window of itself). The first
window that passes says when the section settled; a section whose windows
never pass is "not steady", described by its last window.

Only whole seconds are judged: a section's first and last seconds are usually
parts of a second (it started or ended inside a status interval), with their own
``dt_s``; they are left out of the window, though the section still starts at
its first one. A section with fewer whole seconds than the window is "too short
to judge", never "not steady".

When a preset asks fio for ``steadystate`` (``ss``), fio's own verdict is read
from its final JSON report as well; both are kept. ``docs/numbers.md``
documents both methods.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, Sequence

from iotui.core.interference import disturbed
from iotui.core.numbers import number, numbers

# Whole 1-second samples in one window (fio's own ``ss_dur`` windows are longer still).
WINDOW_S = 10
# A sample is a whole second when it covers at least this share of the section's usual sample (the
# median: one status interval fio printed late on a busy machine must not make the others parts).
WHOLE_SECOND_SHARE = 0.9
RANGE_LIMIT = 0.20
SLOPE_LIMIT = 0.10
DIRECTIONS = ("read", "write", "trim")

Method = Literal["window", "fio-ss"]


@dataclass(frozen=True)
class Window:
    """One window of samples: its mean, range and the fitted line's change across it (same unit)."""

    end_s: float
    mean: float
    range: float
    fitted_change: float

    @property
    def range_share(self) -> float:
        return self.range / self.mean if self.mean > 0 else float("inf")

    @property
    def change_share(self) -> float:
        """Signed change of the fitted line across the window, as a share of the mean."""
        if self.mean > 0:
            return self.fitted_change / self.mean
        return 0.0 if self.fitted_change == 0 else float("inf")

    @property
    def steady(self) -> bool:
        return self.mean > 0 and self.range_share <= RANGE_LIMIT and abs(self.change_share) <= SLOPE_LIMIT


@dataclass(frozen=True)
class FioSteadyState:
    """fio's own steady-state result for one job (its JSON ``steadystate`` object)."""

    reached: bool
    criterion: str
    duration_s: float | None = None
    after_s: float | None = None
    max_deviation: float | None = None
    slope: float | None = None
    achieved: str | None = None

    def to_record(self) -> dict[str, object]:
        table: dict[str, object] = {"reached": self.reached, "criterion": self.criterion}
        for key in ("after_s", "duration_s", "max_deviation", "slope", "achieved"):
            value = getattr(self, key)
            if value is not None:
                table[key] = value
        return table

    def sentence(self) -> str:
        if self.reached:
            after = f" after {self.after_s:g} s" if self.after_s is not None else ""
            return f"fio: steady{after} ({self.criterion})"
        return f"fio: not steady ({self.criterion} not met)"


@dataclass(frozen=True)
class SteadyState:
    """A section's steady-state judgement.

    ``after_s``: seconds from the start of the section to the end of the first
    steady window (None when not reached). ``window``: the first steady window,
    or the last one judged when never steady (None with fewer samples than the window).
    ``samples``: how many samples were judged.
    """

    reached: bool
    method: Method
    after_s: float | None = None
    window: Window | None = None
    samples: int = 0
    fio_ss: FioSteadyState | None = None
    too_short: bool = False
    planned_s: float | None = None  # live: the section's planned length, where that is what makes it too short

    def to_record(self) -> dict[str, object]:
        """The record's ``sections.steady`` table (``after_s`` absent when not reached).

        A section too short to judge keeps ``judged_s`` (its whole seconds) and
        ``window_s`` (the window needed) so every reader words it the same way.
        """
        table: dict[str, object] = {"reached": self.reached}
        if self.reached and self.after_s is not None:
            table["after_s"] = round(self.after_s, 3)
        table["method"] = self.method
        if self.too_short and self.method == "window":
            table["judged_s"] = self.samples
            table["window_s"] = WINDOW_S
        if self.fio_ss is not None and self.method != "fio-ss":
            table["fio_ss"] = self.fio_ss.to_record()
        return table

    def sentence(self) -> str:
        """"steady after 8 s" / "not steady: IOPS falling 14%" / "steady state: 3 of 10 s so far"."""
        if self.method == "fio-ss" and self.fio_ss is not None:
            return self.fio_ss.sentence()
        if self.reached:
            return f"steady after {self.after_s:.0f} s"
        if self.too_short and self.planned_s is not None:
            # Live, beside the clock: short enough for the figures panel at 80 columns.
            return f"too short to judge: {self.planned_s:.0f} s of a {WINDOW_S} s window"
        if self.too_short:
            return too_short_sentence(self.samples)
        if self.window is None:
            return f"steady state: {self.samples} of {WINDOW_S} s so far"
        return f"not steady: {describe_unsteady(self.window)}"


def too_short_sentence(judged_s: float, window_s: float = WINDOW_S) -> str:
    """"too short to judge: 5 s of the 10 s window needed"."""
    return f"too short to judge: {judged_s:.0f} s of the {window_s:.0f} s window needed"


def describe_unsteady(window: Window, metric: str = "IOPS") -> str:
    """What kept a window from being steady: a trend (falling/rising) or a spread (varying)."""
    if window.mean <= 0:
        return f"no {metric}"
    change = window.change_share
    if abs(change) > SLOPE_LIMIT:
        direction = "falling" if change < 0 else "rising"
        return f"{metric} {direction} {abs(change) * 100:.0f}%"
    return f"{metric} varying {window.range_share * 100:.0f}%"


def judge_window(times_s: Sequence[float], values: Sequence[float]) -> Window:
    """Mean, range and the least-squares line's change from the first to the last time."""
    count = len(values)
    mean = sum(values) / count
    mean_t = sum(times_s) / count
    spread_t = sum((t - mean_t) ** 2 for t in times_s)
    slope = sum((t - mean_t) * (v - mean) for t, v in zip(times_s, values)) / spread_t if spread_t else 0.0
    return Window(
        end_s=times_s[-1],
        mean=mean,
        range=max(values) - min(values),
        fitted_change=slope * (times_s[-1] - times_s[0]),
    )


def steady_state(
    times_s: Sequence[float], values: Sequence[float], *, start_s: float = 0.0, fio_ss: FioSteadyState | None = None
) -> SteadyState:
    """The SNIA window over consecutive samples (``times_s`` are the samples' end times).

    ``start_s`` is the section's start on the same clock, so ``after_s`` counts
    from it. With fewer samples than the window there is no judgement yet (not reached, no
    window); fio's verdict then stands alone when there is one.
    """
    if len(times_s) != len(values):
        raise ValueError("times_s and values differ in length")
    last: Window | None = None
    for end in range(WINDOW_S, len(values) + 1):
        window = judge_window(times_s[end - WINDOW_S:end], values[end - WINDOW_S:end])
        if window.steady:
            return SteadyState(True, "window", window.end_s - start_s, window, len(values), fio_ss)
        last = window
    if last is None and fio_ss is not None:
        return SteadyState(fio_ss.reached, "fio-ss", fio_ss.after_s, None, len(values), fio_ss)
    return SteadyState(False, "window", None, last, len(values), fio_ss)


def sample_iops(sample: Mapping[str, object]) -> float | None:
    """A sample's IOPS: its directions' figures together (directions of one section run at once)."""
    present = numbers(sample.get(f"{direction}_iops") for direction in DIRECTIONS)
    return sum(present) if present else None


def section_steady_state(
    samples: Iterable[Mapping[str, object]], *, fio_ss: FioSteadyState | None = None
) -> SteadyState:
    """The judgement on one section's record samples (``t_s``, ``dt_s``, ``<direction>_iops``).

    Paused samples, samples that shared the device with another program's I/O,
    samples without I/O figures and parts of a second are left out; the section
    starts where its first sample's interval starts. With fewer whole seconds than the window, the section is too short to judge (fio's own
    verdict then stands alone when there is one).
    """
    kept: list[tuple[float, float, float]] = []
    start_s: float | None = None
    for sample in samples:
        iops = sample_iops(sample)
        t_s = number(sample.get("t_s"))
        if iops is None or t_s is None:
            continue
        dt_s = number(sample.get("dt_s", 1.0)) or 0.0
        if start_s is None:
            start_s = t_s - dt_s
        if not sample.get("paused") and not disturbed(sample):
            kept.append((t_s, dt_s, iops))
    usual_s = statistics.median(dt_s for _, dt_s, _ in kept) if kept else 0.0
    whole = [(t_s, iops) for t_s, dt_s, iops in kept if dt_s >= WHOLE_SECOND_SHARE * usual_s]
    # A section with I/O figures but too few whole seconds left to judge (every one of them paused or
    # shared with another program's I/O included) is too short to judge, never silently unjudged.
    if start_s is not None and len(whole) < WINDOW_S:
        if fio_ss is not None:
            return SteadyState(fio_ss.reached, "fio-ss", fio_ss.after_s, None, len(whole), fio_ss)
        return SteadyState(False, "window", samples=len(whole), too_short=True)
    return steady_state([t for t, _ in whole], [v for _, v in whole], start_s=start_s or 0.0, fio_ss=fio_ss)


class SteadyTracker:
    """The live judgement: feed each second's IOPS, read the current state.

    Once a window passes the section stays "steady after N s" (the first
    window decides, as in the record).
    """

    def __init__(self, start_s: float = 0.0) -> None:
        self.start_s = start_s
        self._times: list[float] = []
        self._values: list[float] = []
        self._state = SteadyState(False, "window")

    def add(self, t_s: float, iops: float) -> SteadyState:
        self._times.append(t_s)
        self._values.append(iops)
        if self._state.reached:
            return self._state
        count = len(self._values)
        if count < WINDOW_S:
            self._state = SteadyState(False, "window", samples=count)
            return self._state
        window = judge_window(self._times[-WINDOW_S:], self._values[-WINDOW_S:])
        if window.steady:
            self._state = SteadyState(True, "window", window.end_s - self.start_s, window, count)
        else:
            self._state = SteadyState(False, "window", None, window, count)
        return self._state

    @property
    def state(self) -> SteadyState:
        return self._state


# -- fio's own steadystate -------------------------------------------------------------


def fio_steady_state(job: Mapping[str, object]) -> FioSteadyState | None:
    """fio's ``steadystate`` object of one job of its JSON report, or None when not asked for.

    fio ends a job once its criterion is met, so the job's runtime is when it
    became steady. ``criterion`` is what the preset asked for (``iops:5%``);
    ``achieved`` is fio's figure for the last window, as fio printed it.
    """
    block = job.get("steadystate")
    if not isinstance(block, Mapping):
        return None
    reached = bool(block.get("attained"))
    criterion = _criterion(str(block.get("ss", "")))
    runtime_ms = number(job.get("job_runtime"))
    if runtime_ms is None:
        runtimes = [number(table.get("runtime")) for d in DIRECTIONS if isinstance(table := job.get(d), Mapping)]
        known = [value for value in runtimes if value]
        runtime_ms = max(known) if known else None
    return FioSteadyState(
        reached=reached,
        criterion=criterion,
        duration_s=number(block.get("duration")),
        after_s=runtime_ms / 1000.0 if reached and runtime_ms is not None else None,
        max_deviation=number(block.get("max_deviation")),
        slope=number(block.get("slope")),
        achieved=block["criterion"] if isinstance(block.get("criterion"), str) else None,
    )


def _criterion(text: str) -> str:
    """fio prints ``iops:5.000000%``; keep ``iops:5%``."""
    head, separator, figure = text.rpartition(":")
    if not separator:
        return text
    percent = figure.endswith("%")
    digits = figure.rstrip("%")
    try:
        value = float(digits)
    except ValueError:
        return text
    return f"{head}:{value:g}{'%' if percent else ''}"


def fio_steady_states(report: Mapping[str, object]) -> dict[str, FioSteadyState]:
    """Each job's fio steady-state result by job name (only jobs that asked fio for it)."""
    found: dict[str, FioSteadyState] = {}
    jobs = report.get("jobs")
    for job in jobs if isinstance(jobs, list) else []:
        if not isinstance(job, Mapping):
            continue
        result = fio_steady_state(job)
        name = job.get("jobname")
        if result is not None and isinstance(name, str) and name not in found:
            found[name] = result
    return found


class LiveSteady:
    """The live judgement across a run: a new :class:`SteadyTracker` whenever the section changes.

    ``section_key`` names the section an interval belongs to (fio's group id
    when known, else the directions doing I/O, which change between a preset's
    read and write sections).
    """

    def __init__(self) -> None:
        self._key: object = None
        self._tracker: SteadyTracker | None = None

    def add(
        self, t_s: float, dt_s: float, iops: float, section_key: object, *, paused: bool = False,
        section_s: float | None = None,
    ) -> SteadyState:
        """Judge one more second; a ``paused`` one (a pause fell in it) is left out, as the record does.

        ``section_s``: the section's planned length, where known; one shorter than the window is
        too short to judge from its first second (a 5 s section never counts up to a window it cannot fill).
        """
        if section_key != self._key:
            self._key = section_key
            self._tracker = None
        if paused:
            return self._tracker.state if self._tracker is not None else SteadyState(False, "window")
        if self._tracker is None:
            self._tracker = SteadyTracker(start_s=t_s - dt_s)
        state = self._tracker.add(t_s, iops)
        if section_s is not None and section_s < WINDOW_S and not state.reached:
            return SteadyState(False, "window", samples=state.samples, too_short=True, planned_s=section_s)
        return state
