"""A comparison's values: the compared figures, each run's verdict, the rows, the whole comparison.

Kept apart from :mod:`iotui.core.compare.compare` (which makes them) so that the
section-by-section comparison (:mod:`iotui.core.compare.sections`) can hold them
without importing the module that imports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable, Mapping

from iotui.core.compare.samples import WARMUP_FRACTION, WARMUP_S
from iotui.core.records.record import RunRecord

SIGNIFICANCE = 0.05
# A statistically clear difference smaller than this is still called the same.
MIN_EFFECT_PCT = 1.0
# Runs without samples: a difference within this is called the same.
THRESHOLD_PCT = 5.0


@dataclass(frozen=True)
class Metric:
    """One compared figure: where it lives in the record and which way is better."""

    group: str  # "read", "write", "trim", "cpu" or "pressure"
    key: str  # key in [summary.<group>]
    label: str
    higher_is_better: bool
    sample_value: Callable[[Mapping[str, object]], float | None] | None = None


@dataclass(frozen=True)
class Verdict:
    """One run's verdict against the baseline, and how it was reached."""

    verdict: str | None  # BETTER, WORSE, SAME; None when either value is missing
    method: str | None
    p_value: float | None = None


# A row's value in one run: a figure, a responsiveness level (the level row), or None where absent.
RowValue = float | str | None


@dataclass(frozen=True)
class MetricRow:
    """One metric across all runs; index 0 is the baseline."""

    metric: Metric
    values: tuple[RowValue, ...]
    deltas: tuple[float | None, ...]
    delta_pcts: tuple[float | None, ...]
    verdicts: tuple[Verdict | None, ...]


@dataclass
class Comparison:
    labels: list[str]
    records: list[RunRecord]
    rows: list[MetricRow]
    setup: list[tuple[str, list[str | None]]] = field(default_factory=list)
    # Runs with several sections: (section label, that section's comparison), in order.
    sections: list[tuple[str, Comparison]] = field(default_factory=list)
    # Sentences a reader needs beside the verdicts (paused runs, unmatched sections).
    notes: list[str] = field(default_factory=list)

    def row(self, group: str, key: str) -> MetricRow | None:
        return next((r for r in self.rows if r.metric.group == group and r.metric.key == key), None)

    def methods(self) -> set[str]:
        return {v.method for r in self.rows for v in r.verdicts if v is not None and v.method}

    def to_json_dict(self) -> dict[str, object]:
        """Per group and metric: ``a``, ``b`` (``c``...), ``delta``, ``delta_pct``, ``verdict``
        (b against a) and ``versus`` with the same for every later run."""
        metrics: dict[str, dict[str, dict[str, object]]] = {}
        for row in self.rows:
            entry: dict[str, object] = {label: _json_number(value) for label, value in zip(self.labels, row.values)}
            versus: dict[str, dict[str, object]] = {}
            for index in range(1, len(self.labels)):
                verdict = row.verdicts[index]
                versus[self.labels[index]] = {
                    "delta": _json_number(row.deltas[index]),
                    "delta_pct": _json_number(row.delta_pcts[index]),
                    "verdict": verdict.verdict if verdict else None,
                    "method": verdict.method if verdict else None,
                    "p_value": _json_number(verdict.p_value) if verdict else None,
                }
            if len(self.labels) > 1:
                entry.update({k: versus[self.labels[1]][k] for k in ("delta", "delta_pct", "verdict", "method", "p_value")})
                entry["versus"] = versus
            metrics.setdefault(row.metric.group, {})[row.metric.key] = entry
        return {
            "runs": [
                {
                    "label": label,
                    "id": record.id,
                    "title": str(record.run.get("title") or record.preset),
                    "status": record.status,
                    "path": str(record.path) if record.path else None,
                    "source": record.run.get("source"),
                    "samples": len(record.samples),
                }
                for label, record in zip(self.labels, self.records)
            ],
            "metrics": metrics,
            "setup_differences": [{"key": key, "values": values} for key, values in self.setup],
            "sections": [{"name": name, "metrics": part.to_json_dict()["metrics"]} for name, part in self.sections],
            "notes": list(self.notes),
            "method": {
                "warmup_s": WARMUP_S,
                "warmup_fraction": WARMUP_FRACTION,
                "significance": SIGNIFICANCE,
                "min_effect_pct": MIN_EFFECT_PCT,
                "threshold_pct": THRESHOLD_PCT,
            },
        }


def _json_number(value: RowValue) -> RowValue:
    """JSON has no NaN or infinity: such a figure is written as null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
