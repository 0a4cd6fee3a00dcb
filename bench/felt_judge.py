"""bench_felt's judge: the felt program's events as seconds, judged by levels.py's rules, lined up with a record.

The thresholds and the rise and fall rules are levels.py's own constants, so the reference
judges by exactly the budgets iotui claims to judge by; only the evidence is independent.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from iotui.core.host.levels import (
    FALL_AFTER_SAMPLES,
    FALL_BELOW_FRACTION,
    FRAME_MS,
    FROZEN_MS,
    RESPONSE_MS,
    RISE_AFTER_SAMPLES,
    Level,
)

KINDS = ("read", "save", "exec", "timer")
# (level, kind, limit in ms over the kind's idle p99): read, save and a program start as the I/O
# probe is judged (+100 ms answers late, +1 s froze); the 10 ms timer as the wake-up probe.
RULES = (
    (Level.SLUGGISH, "timer", FRAME_MS), (Level.UNRESPONSIVE, "timer", RESPONSE_MS),
    *((Level.SLUGGISH, kind, RESPONSE_MS) for kind in ("read", "save", "exec")),
    *((Level.UNRESPONSIVE, kind, FROZEN_MS) for kind in ("read", "save", "exec")),
)


def p99(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(0.99 * len(ordered)) - 1)]


def felt_seconds(
    events: Sequence[Sequence[Any]], baseline_from: float, baseline_to: float,
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """One row per second of the felt program's clock: each kind's p99 (ms) that second, and the idle baseline.

    An operation counts in every second it was in flight, with its age at that second's end
    (or its whole time in the second it ended), so a stall shows while it lasts. The baseline
    is each kind's p99 over the operations that ended between `baseline_from` and `baseline_to`
    (wall clock): by default the last seconds before iotui started, the quiet moment nearest its own.
    """
    first = min(start for _, start, _ in events)
    last = max(start + taken for _, start, taken in events)
    rows = []
    for second in range(int(last - first) + 1):
        begin, end = first + second, first + second + 1
        figures: dict[str, float] = {}
        for kind in KINDS:
            values = [min(start + taken, end) - start for k, start, taken in events
                      if k == kind and start < end and start + taken >= begin]
            if values:
                figures[kind] = p99(values) * 1000.0
        rows.append({"begin": begin, "end": end, "figures": figures})
    baseline = {}
    for kind in KINDS:
        idle = [taken for k, start, taken in events if k == kind and baseline_from <= start + taken < baseline_to]
        if idle:
            baseline[kind] = p99(idle) * 1000.0
    return rows, baseline


class FeltJudge:
    """levels.py's rise and fall rules over the felt figures, each against its own idle p99."""

    def __init__(self, baseline: Mapping[str, float]) -> None:
        self.baseline = baseline

    def crossed(self, figures: Mapping[str, float]) -> list[Level]:
        return [level for level, kind, limit in RULES
                if kind in figures and figures[kind] > self.baseline.get(kind, 0.0) + limit]

    def judge(self, rows: Sequence[Mapping[str, Any]]) -> list[Level]:
        level, streak, calm, levels = Level.OK, {Level.SLUGGISH: 0, Level.UNRESPONSIVE: 0}, 0, []
        for row in rows:
            met = self.crossed(row["figures"])
            for rule_level in streak:
                streak[rule_level] = streak[rule_level] + 1 if any(m.rank >= rule_level.rank for m in met) else 0
            risen = max((lv for lv, n in streak.items() if n >= RISE_AFTER_SAMPLES[lv]), key=lambda lv: lv.rank,
                        default=Level.OK)
            if risen.rank > level.rank:
                level, calm = risen, 0
            elif level is not Level.OK:
                quiet = all(row["figures"].get(kind, 0.0) - self.baseline.get(kind, 0.0) < limit * FALL_BELOW_FRACTION
                            for rule_level, kind, limit in RULES if rule_level is level)
                calm = calm + 1 if quiet else 0
                if calm >= FALL_AFTER_SAMPLES:
                    level, calm = (Level.OK, Level.SLUGGISH)[level.rank - 1], 0
            levels.append(level)
        return levels


def align(samples: Sequence[Mapping[str, Any]], fio_end: float, rows: Sequence[Mapping[str, Any]],
          levels: Sequence[Level]) -> list[dict[str, Any]]:
    """Each record sample beside the felt second it overlaps most (by wall clock).

    A sample's wall-clock end is fio's report time less how long before fio's last sample it was taken.
    """
    last_t = max(float(s["t_s"]) for s in samples)
    lined = []
    for sample in samples:
        if sample.get("responsiveness") not in {level.value for level in Level}:
            continue
        end = fio_end - (last_t - float(sample["t_s"]))
        begin = end - float(sample.get("dt_s") or 1.0)
        overlaps = [(min(end, row["end"]) - max(begin, row["begin"]), index) for index, row in enumerate(rows)]
        overlap, index = max(overlaps)
        if overlap <= 0:
            continue
        lined.append({"iotui": sample["responsiveness"], "felt_level": levels[index].value,
                      "felt": rows[index]["figures"], "sample": sample})
    return lined


def agreement(lined: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Same level, false alarms (iotui worse than felt), misses (iotui better), and the two severe kinds."""
    rank = {level.value: level.rank for level in Level}
    same = sum(1 for row in lined if row["iotui"] == row["felt_level"])
    worst: dict[str, float] = {}
    for row in lined:
        for kind, value in row["felt"].items():
            worst[kind] = max(worst.get(kind, 0.0), value)
    # The raw figures side by side, before any baseline: iotui's probe p99 against the felt one.
    pairs = {"write/save": ("io_probe_write_p99_ms", "save"), "read/read": ("io_probe_p99_ms", "read"),
             "wake-up/timer": ("probe_p99_ms", "timer")}
    medians = {}
    for label, (key, kind) in pairs.items():
        both = [(row["sample"][key], row["felt"][kind]) for row in lined
                if isinstance(row["sample"].get(key), (int, float)) and kind in row["felt"]]
        if both:
            medians[label] = (statistics.median(a for a, _ in both), statistics.median(b for _, b in both))
    iotui_worst = max((row["iotui"] for row in lined), key=lambda level: rank[level], default="ok")
    return {
        "seconds": len(lined),
        "same": same,
        "same_pct": 100.0 * same / len(lined) if lined else 0.0,
        "false_alarms": sum(1 for row in lined if rank[row["iotui"]] > rank[row["felt_level"]]),
        "misses": sum(1 for row in lined if rank[row["iotui"]] < rank[row["felt_level"]]),
        "severe_false_alarms": sum(1 for row in lined if row["iotui"] == "unresponsive" and row["felt_level"] != "unresponsive"),
        "severe_misses": sum(1 for row in lined if row["iotui"] == "ok" and row["felt_level"] == "unresponsive"),
        "felt_worst": worst,
        "iotui_worst": iotui_worst,
        "medians_ms": medians,
    }
