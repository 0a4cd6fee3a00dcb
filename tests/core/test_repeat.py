"""--repeat: the spread between runs, and compare's verdict on it; compare's notes on runs that never settled."""

from __future__ import annotations

import pytest

from iotui.core.compare.compare import BETTER, METHOD_REPEATS, METHOD_WELCH, SAME, compare_records
from iotui.core.compare.answers import never_settled, repeat_groups
from iotui.core.compare.render import comparison_text
from iotui.core.compare.repeat import repeat_keys, siblings, spreads
from tests.core.test_compare import make_record

def _group(prefix: str, group: str, iops_values: list[float]) -> list:
    records = []
    for index, iops in enumerate(iops_values, 1):
        record = make_record(f"{prefix}{index}", [iops] * 10, iops=iops)
        record.run.update(repeat_keys(group, index))
        records.append(record)
    return records

def test_spread_is_the_standard_deviation_between_runs() -> None:
    runs = _group("a", "g1", [100.0, 110.0, 120.0])
    (spread,) = spreads(runs)
    assert spread.direction == "read" and spread.values == (100.0, 110.0, 120.0)
    assert spread.mean == 110.0
    assert spread.stdev == pytest.approx(10.0)  # sqrt(((-10)^2 + 0 + 10^2) / 2)
    assert spread.cv_pct == pytest.approx(100 * 10 / 110)
    assert spread.sentence() == "quick read: 110 IOPS ± 10 (9.1%) over 3 runs"

def test_siblings_are_the_completed_runs_of_the_group_in_order() -> None:
    runs = _group("a", "g1", [100.0, 110.0, 120.0])
    other = _group("b", "g2", [1.0, 2.0])
    stopped = _group("c", "g1", [5.0])[0]
    stopped.run["status"] = "stopped"
    found = siblings(runs[1], [runs[2], other[0], runs[0], stopped])
    assert [r.id for r in found] == ["a1", "a2", "a3"]
    assert siblings(make_record("x", [1.0] * 5), runs) == []

def test_compare_uses_the_spread_between_repeats_when_both_runs_have_them() -> None:
    before = _group("a", "g1", [100.0, 102.0, 98.0])
    after = _group("b", "g2", [150.0, 149.0, 151.0])
    groups = repeat_groups([before[0], after[0]], before + after)
    comparison = compare_records([before[0], after[0]], groups)
    verdict = comparison.row("read", "iops").verdicts[1]
    assert verdict.method == METHOD_REPEATS and verdict.verdict == BETTER
    assert "[repeats p=" in comparison_text(comparison)
    # The same figures with runs as noisy as the difference: the same within noise.
    noisy = _group("c", "g3", [60.0, 140.0, 100.0])
    comparison = compare_records([noisy[0], after[0]], repeat_groups([noisy[0], after[0]], noisy + after))
    assert comparison.row("read", "iops").verdicts[1].verdict == SAME
    # Without repeats, the per-interval samples decide as before.
    plain = compare_records([before[0], after[0]])
    assert plain.row("read", "iops").verdicts[1].method == METHOD_WELCH

def test_two_runs_of_the_same_group_are_not_judged_by_their_own_spread() -> None:
    runs = _group("a", "g1", [100.0, 150.0])
    comparison = compare_records(runs, repeat_groups(runs, runs))
    assert comparison.row("read", "iops").verdicts[1].method != METHOD_REPEATS

def test_compare_says_which_runs_never_settled() -> None:
    settled = make_record("s", [100.0] * 10)
    settled.sections[0]["steady"] = {"reached": True, "after_s": 5.0, "method": "window"}
    drifting = make_record("d", [100.0] * 10)
    drifting.sections[0]["steady"] = {"reached": False, "method": "window"}
    notes = never_settled([settled, drifting], ["a", "b"])
    assert notes == [
        "Run b never settled in quick: its figures were still moving when the section ended, so a difference "
        "there may be the run's own drift."
    ]
    assert notes[0] in comparison_text(compare_records([settled, drifting]))
