"""What a finished sweep says: sweet spot, balanced point, ranking by average placing.

Pure functions over :class:`PointResult` rows, so the same analysis runs on a
live sweep, a saved sweep record, or a study's published table. The methods are
documented in ``docs/sweeps.md``:

* sweet spot: among the responsive points, the smallest setting reaching 95% of
  the best throughput (the OpenBSD study's "more jobs stop paying" question);
* balanced: the best throughput/latency trade-off, scored as
  ``throughput / best throughput - latency / worst latency``;
* ranking: each key's values by average placing across all points (the NFS
  study's method), and the combination of each key's best value.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

from iotui.core.sweep.responsiveness import describe_point, responsiveness_break
from iotui.core import format as fmt
from iotui.core.sweep.categories import comparison_sentence, is_category_sweep
from iotui.core.sweep.slo import Slo, SloChoice, choose_point
from iotui.core.sweep.mount_axes import mount_option_axes
from iotui.core.sweep.points import FINISHED_STATUSES, PointResult, left_out_reason, usable_points
from iotui.core.sweep.sections import split_sections
from iotui.core.sweep.values import TARGET_KEY, SweepAxis

SWEET_SPOT_SHARE = 0.95
RESPONSIVE = "ok"
UNRESPONSIVE = "unresponsive"
# Block-size keys: IOPS at different block sizes are not comparable, bandwidth is.
BLOCK_SIZE_KEYS = ("bs", "blocksize", "bsrange", "bssplit")


@dataclass(frozen=True)
class Choice:
    """A point the analysis picked, and a sentence saying why."""

    params: dict[str, str]
    why: str

    def to_json(self) -> dict[str, object]:
        return {"params": dict(self.params), "why": self.why}


@dataclass(frozen=True)
class ValuePlacing:
    """One value of one key: its placings summed and averaged over the points that had it."""

    value: str
    placing_sum: float
    points: int

    @property
    def average_placing(self) -> float:
        return self.placing_sum / self.points


@dataclass(frozen=True)
class Ranking:
    """Each key's values by average placing (best first) and the best combination."""

    metric: str
    keys: dict[str, list[ValuePlacing]]
    best_combination: dict[str, str]
    best_combination_measured: bool
    fastest: PointResult | None

    def to_json(self) -> dict[str, object]:
        return {
            "metric": f"total_{self.metric}",
            "keys": {
                key: [
                    {
                        "value": placing.value,
                        "average_placing": round(placing.average_placing, 3),
                        "placing_sum": placing.placing_sum,
                        "points": placing.points,
                    }
                    for placing in placings
                ]
                for key, placings in self.keys.items()
            },
            "best_combination": dict(self.best_combination),
            "best_combination_measured": self.best_combination_measured,
            "fastest": dict(self.fastest.params) if self.fastest else None,
        }


@dataclass
class SweepAnalysis:
    metric: str
    sweet_spot: Choice | None
    balanced: Choice | None
    ranking: Ranking | None
    notes: list[str] = field(default_factory=list)
    # A sweep over kinds (tool, ioengine, targets): each point side by side instead of a sweet spot.
    comparison: str | None = None
    slo: SloChoice | None = None
    # A preset of several sections: each section analysed on its own (the fields above then stay empty).
    sections: list[SectionAnalysis] = field(default_factory=list)


@dataclass
class SectionAnalysis:
    """One section of a multi-section preset, across the sweep's points, and what its analysis found."""

    name: str
    points: list[PointResult]
    analysis: SweepAnalysis


# -- helpers ------------------------------------------------------------------


def throughput_metric(axes: Sequence[SweepAxis]) -> str:
    """"iops", or "bw_bytes" when the block size varies (IOPS would favour the smallest)."""
    return "bw_bytes" if any(axis.key in BLOCK_SIZE_KEYS for axis in axes) else "iops"


def _describe(params: Mapping[str, str]) -> str:
    return ", ".join(f"{key}={value}" for key, value in params.items()) or "the only point"


def _dropped(point: PointResult) -> str:
    return describe_point(point.params, point.responsiveness_detail)


def _throughput_text(value: float, metric: str) -> str:
    return fmt.bytes_per_s(value) if metric == "bw_bytes" else f"{fmt.iops(value)} IOPS"


def _value_rank_key(axes: Sequence[SweepAxis]):
    """Sort key for "smallest": each axis's value rank, first axis first."""
    orders = [(axis.key, axis.order()) for axis in axes]

    def key(point: PointResult) -> tuple[int, ...]:
        return tuple(order.get(point.params.get(name, ""), len(order)) for name, order in orders)

    return key


def responsive_candidates(points: Sequence[PointResult]) -> tuple[list[PointResult], str]:
    """The points where the machine stayed responsive, with a phrase saying which set was used.

    "ok" points first; if none, the points not found unresponsive; if none, all.
    A point with no assessment (an imported table) counts as responsive, and so does one
    an older record judged by io PSI alone: only felt evidence leaves a point out.
    """
    responsive = [p for p in points if p.felt_responsiveness in (None, RESPONSIVE)]
    if responsive:
        dropped = [p for p in points if p not in responsive]
        if not dropped:
            return responsive, ""
        return responsive, f"; left out as not responsive: {'; '.join(_dropped(p) for p in dropped)}"
    not_unresponsive = [p for p in points if p.felt_responsiveness != UNRESPONSIVE]
    if not_unresponsive:
        dropped = [p for p in points if p.felt_responsiveness == UNRESPONSIVE]
        left_out = f" (left out as unresponsive: {'; '.join(_dropped(p) for p in dropped)})" if dropped else ""
        return not_unresponsive, f"; no point stayed fully responsive, so the sluggish ones were used{left_out}"
    return list(points), "; no point stayed responsive, so all points were used"


# -- sweet spot -----------------------------------------------------------------


def sweet_spot(points: Sequence[PointResult], axes: Sequence[SweepAxis], metric: str | None = None) -> Choice | None:
    """The smallest setting reaching 95% of the best throughput among responsive points."""
    metric = metric or throughput_metric(axes)
    usable = usable_points(points)
    if not usable:
        return None
    candidates, excluded_note = responsive_candidates(usable)
    best = max(candidates, key=lambda p: p.throughput(metric))
    best_value = best.throughput(metric)
    threshold = SWEET_SPOT_SHARE * best_value
    reaching = [p for p in candidates if p.throughput(metric) >= threshold]
    chosen = min(reaching, key=_value_rank_key(axes))
    share_pct = 100.0 * chosen.throughput(metric) / best_value if best_value else 100.0
    measure = "total IOPS (read + write)" if metric == "iops" else "total bandwidth (read + write; the block size varies)"
    among = " among the points considered" if excluded_note else ""
    if chosen is best:
        why = (
            f"{_describe(chosen.params)} gives the best {measure}{among}, "
            f"{_throughput_text(best_value, metric)}, and no smaller setting reaches 95% of it{excluded_note}."
        )
    else:
        why = (
            f"{_describe(chosen.params)} is the smallest setting that reaches 95% of the best {measure}{among}: "
            f"{_throughput_text(chosen.throughput(metric), metric)} is {share_pct:.1f}% of "
            f"{_throughput_text(best_value, metric)} at {_describe(best.params)}{excluded_note}."
        )
    return Choice(dict(chosen.params), why)


# -- balanced -------------------------------------------------------------------


def latency_kind(points: Sequence[PointResult]) -> str:
    """"p99" when every point has a p99 latency, else "mean" (published tables often give only means)."""
    return "p99" if points and all(p.latency_ns("p99") is not None for p in points) else "mean"


def balance_score(point: PointResult, best_throughput: float, worst_latency_ns: float, metric: str, kind: str) -> float:
    """Share of the best throughput gained minus share of the worst latency paid (-1..1)."""
    latency = point.latency_ns(kind) or 0.0
    throughput_share = point.throughput(metric) / best_throughput if best_throughput else 0.0
    latency_share = latency / worst_latency_ns if worst_latency_ns else 0.0
    return throughput_share - latency_share


def balanced(points: Sequence[PointResult], axes: Sequence[SweepAxis], metric: str | None = None) -> Choice | None:
    """The point with the best throughput/latency trade-off among responsive points."""
    metric = metric or throughput_metric(axes)
    usable = usable_points(points)
    if not usable:
        return None
    candidates, excluded_note = responsive_candidates(usable)
    kind = latency_kind(usable)
    with_latency = [p for p in candidates if p.latency_ns(kind) is not None]
    if not with_latency:
        return None
    # The scales are the whole sweep's: leaving out unresponsive points must not
    # make the remaining highest-latency point look like the worst case.
    scaled = [p for p in usable if p.latency_ns(kind) is not None]
    best_throughput = max(p.throughput(metric) for p in scaled)
    worst_latency = max(p.latency_ns(kind) or 0.0 for p in scaled)
    rank_key = _value_rank_key(axes)
    chosen = max(
        with_latency,
        key=lambda p: (
            round(balance_score(p, best_throughput, worst_latency, metric, kind), 12),
            tuple(-rank for rank in rank_key(p)),
        ),
    )
    throughput_share = 100.0 * chosen.throughput(metric) / best_throughput if best_throughput else 0.0
    latency_share = 100.0 * (chosen.latency_ns(kind) or 0.0) / worst_latency if worst_latency else 0.0
    measure = "IOPS" if metric == "iops" else "bandwidth"
    why = (
        f"{_describe(chosen.params)} scores best on throughput share minus latency share: "
        f"{throughput_share:.0f}% of the sweep's best {measure} ({_throughput_text(chosen.throughput(metric), metric)}) "
        f"for {latency_share:.0f}% of its worst {kind} latency ({kind} {chosen.latency_text(kind)})"
        f"{excluded_note}."
    )
    return Choice(dict(chosen.params), why)


# -- ranking by average placing ------------------------------------------------------


def placings(points: Sequence[PointResult], metric: str) -> list[tuple[PointResult, float]]:
    """Each point's placing by throughput, 1 = fastest; tied points share the mean of their places."""
    ordered = sorted(points, key=lambda p: -p.throughput(metric))
    result: list[tuple[PointResult, float]] = []
    start = 0
    while start < len(ordered):
        end = start
        value = ordered[start].throughput(metric)
        while end + 1 < len(ordered) and ordered[end + 1].throughput(metric) == value:
            end += 1
        shared_place = (start + 1 + end + 1) / 2
        result.extend((ordered[i], shared_place) for i in range(start, end + 1))
        start = end + 1
    return result


def rank_by_average_placing(
    points: Sequence[PointResult], axes: Sequence[SweepAxis], metric: str | None = None
) -> Ranking | None:
    """The NFS study's method: sum each value's placings over all points; lowest average wins.

    Averages rather than plain sums, so a value measured on fewer points (an
    unfinished sweep) is not favoured; with every combination measured the two
    orders agree.
    """
    metric = metric or throughput_metric(axes)
    usable = usable_points(points)
    if not usable:
        return None
    placed = placings(usable, metric)
    keys: dict[str, list[ValuePlacing]] = {}
    for axis in axes:
        order = axis.order()
        per_value: list[ValuePlacing] = []
        for value in axis.values:
            mine = [place for point, place in placed if point.params.get(axis.key) == value]
            if mine:
                per_value.append(ValuePlacing(value, float(sum(mine)), len(mine)))
        per_value.sort(key=lambda placing: (placing.average_placing, order.get(placing.value, 0)))
        keys[axis.key] = per_value
    best_combination = {key: values[0].value for key, values in keys.items() if values}
    measured = any(all(p.params.get(k) == v for k, v in best_combination.items()) for p in usable)
    fastest = placed[0][0] if placed else None
    return Ranking(metric, keys, best_combination, measured, fastest)


def analyze(points: Sequence[PointResult], axes: Sequence[SweepAxis], slo: Slo | None = None) -> SweepAnalysis:
    """Sweet spot, balanced point, (for several keys) the ranking, and the best point under ``slo``.

    A sweep across targets also ranks the mount options that differ between
    the targets (``mount:rsize`` ...), as the NFS study did by hand.
    """
    split = split_sections(points)
    if split:
        return analyze_sections(split, axes, slo)
    metric = throughput_metric(axes)
    varied = [axis for axis in axes if len(axis.values) > 1]
    notes: list[str] = []
    usable = usable_points(points)
    if not usable:
        notes.append("No point completed with I/O, so there is nothing to analyse yet.")
    left_out = [f"{_describe(p.params)} ({left_out_reason(p)})" for p in points if p not in usable]
    if left_out and usable:
        notes.append("Left out of the analysis: " + "; ".join(left_out) + ".")
    chosen = choose_point(slo, [p for p in points if p.status in FINISHED_STATUSES]) if slo is not None else None
    if is_category_sweep(axes):
        return SweepAnalysis(
            metric=metric, sweet_spot=None, balanced=None, ranking=None, notes=notes,
            comparison=comparison_sentence(usable, metric), slo=chosen,
        )
    ranked_points: Sequence[PointResult] = points
    if any(axis.key == TARGET_KEY for axis in varied):
        mount_axes, ranked_points = mount_option_axes(usable_points(points))
        varied = [*varied, *mount_axes]
    ranking = rank_by_average_placing(ranked_points, varied, metric) if len(varied) > 1 else None
    broke = responsiveness_break(usable_points(points), axes)
    if broke:
        notes.append(broke)
    return SweepAnalysis(
        metric=metric,
        sweet_spot=sweet_spot(points, axes, metric),
        balanced=balanced(points, axes, metric),
        ranking=ranking,
        notes=notes,
        slo=chosen,
    )


def analyze_sections(split: Sequence[tuple[str, list[PointResult]]], axes: Sequence[SweepAxis],
                     slo: Slo | None = None) -> SweepAnalysis:
    """Each section on its own: its sweet spot, balanced point and ranking; nothing added across sections."""
    sections = [SectionAnalysis(name, points, analyze(points, axes, slo)) for name, points in split]
    names = ", ".join(section.name for section in sections)
    note = (
        f"This preset runs {len(sections)} sections one after another ({names}); each is analysed on its own, "
        "and no figure is added across sections."
    )
    return SweepAnalysis(
        metric=throughput_metric(axes), sweet_spot=None, balanced=None, ranking=None, notes=[note], sections=sections,
    )
