"""A section's `pressure`, from the per-second samples that fell inside it.

The run's `[pressure]` comes from the monitor, which saw every second; a section's
comes from its samples, judged by the same rules (each sample carries the level and
cause of its second), so both read alike: the worst level, the cause that held it
for the most seconds, that cause's peak and the threshold it went past.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from iotui.core.host.levels import CAUSE_FIGURES, SUMMARY_SIGNALS, THRESHOLDS, Level

_BASELINE_KEYS = {
    "wakeup": "probe_baseline_p99_ms",
    "io_probe_read": "io_probe_baseline_p99_ms",
    "io_probe_write": "io_probe_write_baseline_p99_ms",
}


def pressure_from_samples(samples: Sequence[Mapping[str, Any]], run_pressure: Mapping[str, Any]) -> dict[str, Any]:
    """The `pressure` table over `samples` (a section's); baselines come from the run's."""
    levels = [Level(s["responsiveness"]) for s in samples if s.get("responsiveness") in {level.value for level in Level}]
    if not levels:
        return {}
    worst = max(levels, key=lambda level: level.rank)
    result: dict[str, Any] = {"responsiveness": worst.value}
    at_worst = [s for s in samples if s.get("responsiveness") == worst.value and s.get("responsiveness_cause")]
    if worst is not Level.OK and at_worst:
        counts = Counter(str(s["responsiveness_cause"]) for s in at_worst)
        cause = max(counts, key=lambda name: counts[name])
        figure = CAUSE_FIGURES.get(cause)
        values = [
            s[figure] for s in at_worst
            if figure is not None and s["responsiveness_cause"] == cause and isinstance(s.get(figure), (int, float))
        ]
        threshold = next((t for t in THRESHOLDS if t.cause == cause and t.level is worst), None)
        result["cause"] = cause
        if values:
            result["cause_value"] = max(values)
        if threshold is not None:
            result["cause_unit"] = threshold.unit
            base = run_pressure.get(_BASELINE_KEYS.get(cause, ""), 0.0) if threshold.relative else 0.0
            result["cause_threshold"] = round(threshold.limit + float(base or 0.0), 3)
    for name in SUMMARY_SIGNALS:
        values = [s[name] for s in samples if isinstance(s.get(name), (int, float))]
        if values:
            result[f"{name}_max"] = max(values)
    return result


def apply_section_pressure(record: Any) -> None:
    """Give each section its own `pressure` from its samples, thresholds from the run's baselines.

    Sections without samples keep what they had.
    """
    for index, section in enumerate(getattr(record, "sections", [])):
        table = pressure_from_samples(record.section_samples(index), record.pressure)
        if table:
            section["pressure"] = table
