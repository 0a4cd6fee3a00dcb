"""A section's `pressure`, from the per-second samples that fell inside it.

The run's `[pressure]` comes from the monitor, which saw every second; a section's
comes from its own samples, so its verdict is its own evidence: a second counts at a
level only where the chip showed that level (so the rise rules hold) AND one of that
second's own figures crossed a rule of that level, judged against the run's baselines.
The level, the cause (the rule met for the most such seconds), its peak and its
threshold all come from those same seconds, so a section never reads "sluggish" with
a cause value under the sluggish threshold.

Hysteresis is for the live chip: where it was still easing off into this section (a
level no figure of the section crossed), the section says so in `responsiveness_note`
rather than taking the old level.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, MutableMapping, Sequence
from typing import Protocol

from iotui.core.numbers import is_number, number
from iotui.core.host.levels import CAUSE_FIGURES, SUMMARY_SIGNALS, THRESHOLDS, Crossing, Level, Threshold, crossings

BASELINE_KEYS = {
    "wakeup": "probe_baseline_p99_ms",
    "io_probe_read": "io_probe_baseline_p99_ms",
    "io_probe_write": "io_probe_write_baseline_p99_ms",
    "app_start": "app_start_baseline_ms",
}
_LEVELS = {level.value: level for level in Level}


def threshold_value(threshold: Threshold, run_pressure: Mapping[str, object]) -> float:
    """The figure past which `threshold` is met in this run: the run's baseline + limit for a probe."""
    if not threshold.relative:
        return threshold.limit
    base = number(run_pressure.get(BASELINE_KEYS.get(threshold.cause, "")))
    return threshold.limit + (base if base is not None else 0.0)


def _figure(value: object) -> int | float | None:
    """A figure as the sample holds it (an int stays an int, as the record wrote it); None where it is none."""
    return value if is_number(value) else None


def _cause_figures(sample: Mapping[str, object]) -> dict[str, float | None]:
    return {
        figure: number(sample.get(figure))
        for figure in CAUSE_FIGURES.values()
    }


def _felt(sample: Mapping[str, object], run_pressure: Mapping[str, object]) -> tuple[Level, list[Crossing]]:
    """The level this second counts at, and its own crossings of that level's rules.

    The lower of the chip's level and the highest level a figure of this second crossed.
    """
    shown = _LEVELS.get(str(sample.get("responsiveness")), Level.OK)
    met = crossings(_cause_figures(sample), lambda threshold: threshold_value(threshold, run_pressure))
    crossed = max((c.threshold.level for c in met), key=lambda level: level.rank, default=Level.OK)
    level = shown if shown.rank <= crossed.rank else crossed
    return level, [c for c in met if c.threshold.level is level]


def pressure_from_samples(samples: Sequence[Mapping[str, object]], run_pressure: Mapping[str, object]) -> dict[str, object]:
    """The `pressure` table over `samples` (a section's); baselines come from the run's."""
    judged = [s for s in samples if s.get("responsiveness") in _LEVELS]
    if not judged:
        return {}
    felt = [(_felt(s, run_pressure), s) for s in judged]
    worst = max((level for (level, _), _ in felt), key=lambda level: level.rank)
    result: dict[str, object] = {"responsiveness": worst.value}
    if worst is not Level.OK:
        # Each second at the worst level names the rule it met: the chip's cause where that
        # second's own figure met it, else its strongest crossing.
        named: list[Crossing] = []
        for (level, met), sample in felt:
            if level is worst and met:
                same = [c for c in met if c.threshold.cause == sample.get("responsiveness_cause")]
                named.append(same[0] if same else max(met, key=lambda c: c.ratio))
        counts = Counter(c.threshold.cause for c in named)
        peaks = {cause: max((c for c in named if c.threshold.cause == cause), key=lambda c: c.value) for cause in counts}
        cause = max(counts, key=lambda name: (counts[name], peaks[name].ratio))
        peak = peaks[cause]
        result.update(cause=cause, cause_value=peak.value, cause_unit=peak.threshold.unit,
                      cause_threshold=round(peak.threshold_value, 3))
    note = _easing_note(felt, worst)
    if note:
        result["responsiveness_note"] = note
    for name in SUMMARY_SIGNALS:
        values = [value for s in samples if (value := _figure(s.get(name))) is not None]
        if values:
            result[f"{name}_max"] = max(values)
    return result


def _easing_note(felt: list[tuple[tuple[Level, list[Crossing]], Mapping[str, object]]], level: Level) -> str | None:
    """Words for the seconds the chip showed a level above the section's: it was easing off."""
    above = [s for (_, _), s in felt if _LEVELS.get(str(s.get("responsiveness")), Level.OK).rank > level.rank]
    if not above:
        return None
    shown = max((_LEVELS[str(s["responsiveness"])] for s in above), key=lambda found: found.rank)
    labels = {t.cause: t.label for t in THRESHOLDS}
    causes = sorted({labels.get(str(s.get("responsiveness_cause")), str(s.get("responsiveness_cause")))
                     for s in above if s.get("responsiveness_cause")})
    raised = f" ({', '.join(causes)} had crossed earlier)" if causes else ""
    seconds = len(above)
    return (
        f"The live chip still read {shown.value} for {seconds} s of this section while it eased off{raised}; "
        f"no figure of this section crossed a {shown.value} threshold then, so the section is judged {level.value}."
    )


def verdict_contradiction(pressure: Mapping[str, object], run_pressure: Mapping[str, object] | None = None) -> str | None:
    """Why a `pressure` table's level is not borne out by its own cause figure; None when it is.

    A level above OK needs a cause whose value met that cause's rule of that level (or a
    higher one), against a threshold no lower than the rule's limit over the baseline.
    """
    level = _LEVELS.get(str(pressure.get("responsiveness")))
    if level is None or level is Level.OK:
        return None
    cause, value, limit = pressure.get("cause"), _figure(pressure.get("cause_value")), _figure(pressure.get("cause_threshold"))
    if value is None or limit is None:
        return f"{level.value} without a cause value and threshold"
    rules = [t for t in THRESHOLDS if t.cause == cause and t.level.rank >= level.rank]
    if not rules:
        return f"{level.value} from {cause!r}, which raises no level"
    lowest = min(rules, key=lambda t: t.limit)
    if run_pressure is not None and limit < threshold_value(lowest, run_pressure) - 1e-3:
        return f"threshold {limit} is under the {level.value} rule's {threshold_value(lowest, run_pressure)}"
    if value < limit - 1e-3:  # the record rounds thresholds to 3 decimals
        return f"{level.value} with {cause} {value} under its threshold {limit}"
    return None


class SectionedRecord(Protocol):
    """What :func:`apply_section_pressure` needs of a run record (``core/records/record.py RunRecord``)."""

    @property
    def sections(self) -> Sequence[MutableMapping[str, object]]: ...

    @property
    def pressure(self) -> Mapping[str, object]: ...

    def section_samples(self, index: int) -> Sequence[Mapping[str, object]]: ...


def apply_section_pressure(record: SectionedRecord) -> None:
    """Give each section its own `pressure` from its samples, thresholds from the run's baselines.

    Sections without samples keep what they had.
    """
    for index, section in enumerate(record.sections):
        table = pressure_from_samples(record.section_samples(index), record.pressure)
        if table:
            section["pressure"] = table
