"""A latency target for a sweep: ``--slo "read p99<=1ms"`` and the best point that meets it.

The target names a direction (read, write or trim), a latency figure (p50,
p90, p99, p99.9 or mean: fio's completion latency), a comparison (``<=`` or
``<``) and a time with its unit (ns, us/µs, ms, s). Among the sweep's finished
points, the one with the most IOPS in that direction whose figure meets the
target is the answer; ``docs/sweeps.md`` documents it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.numbers import number

if TYPE_CHECKING:
    from iotui.core.sweep.points import PointResult

SLO_DIRECTIONS = ("read", "write", "trim")
# The figure as written in a target -> its key in a record's direction table.
SLO_FIGURES = {"p50": "lat_p50_ns", "p90": "lat_p90_ns", "p99": "lat_p99_ns", "p99.9": "lat_p99_9_ns", "mean": "lat_mean_ns"}
_UNITS_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9}
_PATTERN = re.compile(
    r"^\s*(?P<direction>[a-z]+)\s+(?P<figure>[a-z0-9.]+)\s*(?P<op><=|<)\s*"
    r"(?P<number>\d+(?:\.\d+)?)\s*(?P<unit>ns|us|µs|μs|ms|s)\s*$",
    re.IGNORECASE,
)
EXAMPLE = '"read p99<=1ms"'


class SloError(ValueError):
    """A latency target that cannot be read; str() is a full sentence."""


@dataclass(frozen=True)
class Slo:
    """A latency target: ``direction`` ``figure`` ``op`` ``limit_ns``."""

    direction: str
    figure: str
    op: str
    limit_ns: float
    text: str

    @property
    def key(self) -> str:
        """The record key of the figure (``lat_p99_ns``)."""
        return SLO_FIGURES[self.figure]

    def met_by(self, latency_ns: float) -> bool:
        return latency_ns <= self.limit_ns if self.op == "<=" else latency_ns < self.limit_ns

    def describe(self) -> str:
        return f"{self.direction} {self.figure} {self.op} {fmt.latency_ns(self.limit_ns)}"


def parse_slo(text: str) -> Slo:
    """``"read p99<=1ms"`` -> Slo; anything else raises SloError naming what was expected."""
    match = _PATTERN.match(str(text))
    if not match:
        raise SloError(
            f"The latency target {text!r} is not of the form DIRECTION FIGURE<=TIME, for example {EXAMPLE} "
            "(direction read, write or trim; figure p50, p90, p99, p99.9 or mean; time in ns, us, ms or s)."
        )
    direction = match.group("direction").lower()
    if direction not in SLO_DIRECTIONS:
        raise SloError(f"The latency target {text!r} names the direction {direction!r}; expected read, write or trim.")
    figure = match.group("figure").lower()
    if figure not in SLO_FIGURES:
        raise SloError(
            f"The latency target {text!r} names the figure {figure!r}; expected p50, p90, p99, p99.9 or mean."
        )
    limit_ns = float(match.group("number")) * _UNITS_NS[match.group("unit").lower()]
    if limit_ns <= 0:
        raise SloError(f"The latency target {text!r} has no time above zero; expected something like {EXAMPLE}.")
    return Slo(direction, figure, match.group("op"), limit_ns, " ".join(str(text).split()))


@dataclass(frozen=True)
class SloCandidate:
    """One sweep point as the choice sees it: its params, its IOPS and its figure in the target's direction."""

    params: dict[str, str]
    iops: float | None
    latency_ns: float | None


@dataclass(frozen=True)
class SloChoice:
    """The answer: the chosen point (None when no point meets the target) and the sentence that says so."""

    slo: Slo
    params: dict[str, str] | None
    iops: float | None
    latency_ns: float | None
    why: str
    index: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "slo": self.slo.text,
            "params": dict(self.params) if self.params is not None else None,
            "iops": self.iops,
            "latency_ns": self.latency_ns,
            "why": self.why,
        }


def _describe(params: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in params.items()) or "the only point"


def choose(slo: Slo, candidates: Sequence[SloCandidate]) -> SloChoice:
    """The highest-IOPS point whose figure meets the target, with a sentence.

    Points without IOPS or without the figure in that direction cannot be
    judged and are left out (and named when nothing else is left). On equal
    IOPS the earlier point wins, so the answer does not depend on ties.
    """
    what = f"{slo.direction} {slo.figure}"
    judged = [
        (index, c) for index, c in enumerate(candidates)
        if c.iops is not None and c.iops > 0 and c.latency_ns is not None
    ]
    if not judged:
        return SloChoice(slo, None, None, None, f"No point has {slo.direction} IOPS and a {what} latency, so none can be held to {slo.describe()}.")
    meeting = [(index, c) for index, c in judged if slo.met_by(c.latency_ns or 0.0)]
    if not meeting:
        lowest_index, lowest = min(judged, key=lambda pair: (pair[1].latency_ns, pair[0]))
        return SloChoice(
            slo, None, None, None,
            f"No point meets {slo.describe()}: the lowest {what} was {fmt.latency_ns(lowest.latency_ns)} "
            f"at {_describe(lowest.params)}.",
        )
    index, best = max(meeting, key=lambda pair: (pair[1].iops, -pair[0]))
    fastest_index, fastest = max(judged, key=lambda pair: (pair[1].iops, -pair[0]))
    why = (
        f"{_describe(best.params)} gives the most {slo.direction} IOPS that meet {slo.describe()}: "
        f"{fmt.iops(best.iops)} IOPS at {what} {fmt.latency_ns(best.latency_ns)}"
    )
    if fastest_index != index:
        why += (
            f"; the fastest point, {_describe(fastest.params)}, gives {fmt.iops(fastest.iops)} IOPS "
            f"but its {what} is {fmt.latency_ns(fastest.latency_ns)}"
        )
    return SloChoice(slo, dict(best.params), best.iops, best.latency_ns, why + ".", index)


def choose_point(slo: Slo, points: Sequence[PointResult]) -> SloChoice:
    """The choice over sweep points (the analysis's PointResult: ``read_iops``, ``read_lat_p99_ns`` ...).

    ``index`` in the answer is the point's place in ``points``.
    """
    candidates = [
        SloCandidate(
            dict(point.params),
            number(getattr(point, f"{slo.direction}_iops", None)),
            number(getattr(point, f"{slo.direction}_{slo.key}", None)),
        )
        for point in points
    ]
    return choose(slo, candidates)
