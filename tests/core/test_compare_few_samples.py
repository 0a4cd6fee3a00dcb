"""Two runs of 3 interval samples each: the threshold note says too few samples, not none."""

from __future__ import annotations

from iotui.core.compare.compare import METHOD_THRESHOLD, compare_records
from iotui.core.compare.render import method_note
from tests.core.test_compare import make_record


def test_three_samples_each_are_too_few_for_the_test_and_the_note_says_so() -> None:
    a = make_record("a", [10_000.0, 10_100.0, 9_900.0])
    b = make_record("b", [10_050.0, 9_950.0, 10_000.0])
    comparison = compare_records([a, b])
    assert comparison.row("read", "iops").verdicts[1].method == METHOD_THRESHOLD
    note = method_note(comparison)
    assert "no interval samples" not in note
    assert "fewer than 5 interval samples of that figure after warm-up in one run or both" in note


def test_without_samples_the_note_counts_none() -> None:
    note = method_note(compare_records([make_record("a", iops=10_000), make_record("b", iops=10_300)]))
    assert "fewer than 5 interval samples of that figure" in note and "no interval samples in both" not in note
