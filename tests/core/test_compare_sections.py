"""Compare matches sections by name and options and judges each; a paused run is never judged silently."""

from __future__ import annotations

import datetime as dt
import random

from iotui.core.compare.compare import BETTER, SAME, WORSE, compare_records
from iotui.core.compare.render import comparison_text
from iotui.core.records.record import RunRecord


def _record(run_id: str, sections: list[tuple[str, str, list[float]]], **run_extra) -> RunRecord:
    built, samples, t_s = [], [], 0.0
    for index, (name, bs, series) in enumerate(sections):
        mean = sum(series) / len(series)
        built.append({"name": name, "jobs": [name], "groupid": index, "options": {"bs": bs, "rw": "randread"},
                      "read": {"iops": mean, "bw_bytes": mean * 4096, "io_bytes": 1, "total_ios": 1}})
        for value in series:
            t_s += 1.0
            samples.append({"t_s": t_s, "dt_s": 1.0, "section": index, "read_iops": value})
    return RunRecord(
        run={"id": run_id, "preset": "blocksize-table", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc), "duration_s": t_s,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": "", **run_extra},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 2, "mem_total_bytes": 1},
        target={"path": "/d", "filesystem": "ext4", "device": "sda", "mount_options": "rw"},
        sections=built,
        samples=samples,
    )


def _noisy(seed: int, mean: float, count: int = 15) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(mean, mean * 0.01) for _ in range(count)]


def test_each_matched_section_is_judged_on_its_own() -> None:
    a = _record("a", [("4k", "4k", _noisy(1, 19_200)), ("128k", "128k", _noisy(2, 6_300)), ("2m", "2m", _noisy(3, 547))])
    b = _record("b", [("4k", "4k", _noisy(4, 19_200)), ("128k", "128k", _noisy(5, 5_000)), ("2m", "2m", _noisy(6, 600))])
    comparison = compare_records([a, b])
    assert [name for name, _ in comparison.sections] == ["4k", "128k", "2m"]
    assert comparison.row("4k · read", "iops").verdicts[1].verdict == SAME
    assert comparison.row("128k · read", "iops").verdicts[1].verdict == WORSE
    assert comparison.row("2m · read", "iops").verdicts[1].verdict == BETTER
    assert comparison.row("128k · read", "iops").values == (a.sections[1]["read"]["iops"], b.sections[1]["read"]["iops"])
    assert comparison.row("read", "iops") is None  # no figure for the run as a whole
    doc = comparison.to_json_dict()
    assert [s["name"] for s in doc["sections"]] == ["4k", "128k", "2m"]
    assert doc["sections"][1]["metrics"]["read"]["iops"]["verdict"] == WORSE
    text = comparison_text(comparison)
    assert "128k · read IOPS" in text and "section by section" in text


def test_sections_with_other_options_are_not_matched() -> None:
    a = _record("a", [("4k", "4k", _noisy(1, 100)), ("big", "128k", _noisy(2, 50))])
    b = _record("b", [("4k", "4k", _noisy(3, 100)), ("big", "1m", _noisy(4, 10))])
    comparison = compare_records([a, b])
    big = [name for name, _ in comparison.sections if name.startswith("big")]
    assert big == ["big [bs=128k, rw=randread]", "big [bs=1m, rw=randread]"]
    row = comparison.row("big [bs=1m, rw=randread] · read", "iops")
    assert row.values[0] is None and row.verdicts[1].verdict is None
    assert any("only one run has" in note for note in comparison.notes)


def test_a_paused_run_is_named_beside_the_verdicts() -> None:
    a = _record("a", [("quick", "4k", _noisy(1, 38_000))])
    b = _record("b", [("quick", "4k", _noisy(2, 37_900))], paused_s=12.0)
    comparison = compare_records([a, b])
    assert any("Run b was paused 12 s" in note for note in comparison.notes)
    assert ("run.paused_s", [None, "12.0"]) in comparison.setup
    assert "Run b was paused 12 s" in comparison_text(comparison)
