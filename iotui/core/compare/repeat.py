"""Repeats of one run (``iotui run … --repeat N``) and the spread between them.

The N records share ``run.repeat_group`` and carry ``repeat_index`` 1..N.
For each section and direction, the spread is the sample standard deviation
of the runs' figures and its share of the mean (coefficient of variation), as
the Phoronix Test Suite reports the deviation between its runs. Compare uses
the runs' own figures as the noise when both sides have repeats.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.compare.stats import mean, sample_variance
from iotui.core.numbers import finite_number, number
from iotui.core.records.direction_figures import direction_figures

if TYPE_CHECKING:
    from iotui.core.records.record import RunRecord

DIRECTIONS = ("read", "write", "trim")


def new_repeat_group() -> str:
    return uuid.uuid4().hex


def repeat_keys(group: str, index: int) -> dict[str, str | int]:
    """The ``[run]`` keys of the ``index``-th (1-based) run of a repeat group."""
    return {"repeat_group": group, "repeat_index": index}


@dataclass(frozen=True)
class Spread:
    """One section and direction's figure over the repeats."""

    section: str
    direction: str
    key: str
    values: tuple[float, ...]

    @property
    def mean(self) -> float:
        return mean(list(self.values))

    @property
    def stdev(self) -> float:
        return math.sqrt(sample_variance(list(self.values)))

    @property
    def cv_pct(self) -> float | None:
        return 100.0 * self.stdev / self.mean if self.mean else None

    def sentence(self) -> str:
        what = "IOPS" if self.key == "iops" else self.key
        cv = f" ({self.cv_pct:.1f}%)" if self.cv_pct is not None else ""
        return (
            f"{self.section} {self.direction}: {fmt.iops(self.mean)} {what} ± {fmt.iops(self.stdev)}{cv} "
            f"over {len(self.values)} runs"
        )

    def to_json(self) -> dict[str, object]:
        return {"section": self.section, "direction": self.direction, "key": self.key, "values": list(self.values),
                "mean": self.mean, "stdev": self.stdev, "cv_pct": self.cv_pct}


def _figure(section: Mapping[str, object], direction: str, key: str) -> float | None:
    figures = direction_figures(section, direction)
    return finite_number(figures.figure(key)) if figures is not None else None


def spreads(records: Sequence[RunRecord], key: str = "iops") -> list[Spread]:
    """Per section (matched by name, in the first record's order) and direction: the figure in every run."""
    if not records:
        return []
    found: list[Spread] = []
    for section in records[0].sections:
        name = str(section.get("name", ""))
        for direction in DIRECTIONS:
            values = []
            for record in records:
                match = next((s for s in record.sections if s.get("name") == name), None)
                value = _figure(match, direction, key) if match is not None else None
                if value is None:
                    break
                values.append(value)
            else:
                if values:
                    found.append(Spread(name, direction, key, tuple(values)))
    return found


def siblings(record: RunRecord, candidates: Iterable[RunRecord | None]) -> list[RunRecord]:
    """The completed runs of ``record``'s repeat group (itself included), by repeat_index; [] without a group."""
    group = record.run.get("repeat_group")
    if not group:
        return []
    runs = {c.id: c for c in candidates if c is not None and c.run.get("repeat_group") == group and c.status == "completed"}
    runs.setdefault(record.id, record)
    return sorted(runs.values(), key=lambda r: number(r.run.get("repeat_index")) or 0.0)


def repeat_values(records: Sequence[RunRecord], direction: str, key: str) -> list[float] | None:
    """One figure per repeat for a one-section run's direction (compare's noise); None when unusable."""
    values = []
    for record in records:
        if len(record.sections) != 1:
            return None
        value = _figure(record.sections[0], direction, key)
        if value is None:
            return None
        values.append(value)
    return values
