"""Comparisons: deltas against the first run and noise-aware verdicts."""

from __future__ import annotations

import datetime as dt
import json
import random

import pytest

from iotui.core.compare.compare import (
    BETTER, METHOD_LEVEL, METHOD_REPEATS, METHOD_THRESHOLD, METHOD_WELCH, SAME, WORSE, compare_records, setup_differences,
    welch_verdict,
)
from iotui.core.compare.samples import steady_samples, time_series
from iotui.core.compare.render import comparison_markdown, comparison_text
from iotui.core.records.record import RunRecord
from iotui.core.compare.stats import effective_sample_size, lag1_autocorrelation, t_two_sided_p, welch_test


def make_record(
    run_id: str,
    iops_samples: list[float] | None = None,
    *,
    iops: float | None = None,
    p99_ns: float = 500_000.0,
    p99_samples: list[float] | None = None,
    kernel: str = "6.1",
    options: dict[str, str] | None = None,
    responsiveness: str | None = None,
    cpu: dict[str, float] | None = None,
) -> RunRecord:
    samples = []
    for index, value in enumerate(iops_samples or []):
        sample = {"t_s": float(index + 1), "dt_s": 1.0, "read_iops": value, "read_bw_bytes": value * 4096}
        if p99_samples:
            sample["read_lat_p99_ns"] = p99_samples[index]
        samples.append(sample)
    mean_iops = iops if iops is not None else sum(iops_samples) / len(iops_samples)
    summary = {
        "read": {"iops": mean_iops, "bw_bytes": mean_iops * 4096, "io_bytes": 1, "total_ios": 1, "lat_p99_ns": p99_ns}
    }
    if responsiveness:
        summary["pressure"] = {"responsiveness": responsiveness}
    if cpu:
        summary["cpu"] = cpu
    return RunRecord(
        run={"id": run_id, "preset": "quick", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, tzinfo=dt.timezone.utc), "duration_s": 30.0,
             "fio_version": "fio-3.33", "fio_argv": ["fio"], "fio_report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": kernel, "cpu_model": "c", "cpu_count": 4,
              "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "sda", "mount_options": "rw"},
        options=options if options is not None else {"rw": "randread", "bs": "4k"},
        summary=summary,
        samples=samples,
    )


def noisy(seed: int, centre: float, spread: float, count: int = 30) -> list[float]:
    rng = random.Random(seed)
    return [rng.gauss(centre, spread) for _ in range(count)]


# -- the statistics ----------------------------------------------------------------


@pytest.mark.parametrize(
    "t, df, p",
    [(2.228138851986274, 10, 0.05), (12.706204736174696, 1, 0.05), (3.169272667175838, 10, 0.01), (1.959963984540054, 1e7, 0.05), (0.0, 5, 1.0)],
)
def test_t_distribution_matches_the_tables(t: float, df: float, p: float) -> None:
    assert t_two_sided_p(t, df) == pytest.approx(p, rel=1e-6, abs=1e-9)


def test_effective_sample_size_shrinks_for_correlated_intervals() -> None:
    independent = noisy(1, 100, 5, 200)
    assert abs(lag1_autocorrelation(independent)) < 0.2
    rng = random.Random(2)
    walk = [100.0]
    for _ in range(199):
        walk.append(0.9 * walk[-1] + 10 + rng.gauss(0, 5))  # AR(1), r = 0.9
    assert lag1_autocorrelation(walk) > 0.7
    assert effective_sample_size(walk) < 0.25 * len(walk)
    assert effective_sample_size(independent) > 0.7 * len(independent)


def test_welch_detects_a_shift_and_not_the_same_distribution() -> None:
    assert welch_test(noisy(1, 1000, 30), noisy(2, 1100, 30)).p_value < 1e-6
    assert welch_test(noisy(3, 1000, 30), noisy(4, 1000, 30)).p_value > 0.05


# -- verdicts -----------------------------------------------------------------------


def test_clear_improvement_is_better() -> None:
    a = make_record("a", noisy(1, 10_000, 200))
    b = make_record("b", noisy(2, 11_000, 200))
    row = compare_records([a, b]).row("read", "iops")
    assert row.verdicts[1].verdict == BETTER
    assert row.verdicts[1].method == METHOD_WELCH
    assert row.verdicts[1].p_value < 0.001
    assert row.delta_pcts[1] == pytest.approx((b.summary["read"]["iops"] / a.summary["read"]["iops"] - 1) * 100)


def test_clear_regression_is_worse() -> None:
    a = make_record("a", noisy(1, 10_000, 200))
    b = make_record("b", noisy(2, 9_000, 200))
    assert compare_records([a, b]).row("read", "iops").verdicts[1].verdict == WORSE


def test_noise_is_same_within_noise() -> None:
    # Same device, two runs: the summary IOPS differ by a few percent, but within the runs' own spread.
    a = make_record("a", noisy(5, 10_000, 800))
    b = make_record("b", noisy(6, 10_000, 800))
    row = compare_records([a, b]).row("read", "iops")
    assert row.deltas[1] != 0
    assert row.verdicts[1].verdict == SAME
    assert row.verdicts[1].method == METHOD_WELCH


def test_tiny_but_significant_difference_is_still_same() -> None:
    a = make_record("a", noisy(1, 10_000, 5))
    b = make_record("b", noisy(2, 10_030, 5))  # 0.3 %: real, but below the 1 % floor
    row = compare_records([a, b]).row("read", "iops")
    assert row.verdicts[1].p_value < 0.05
    assert row.verdicts[1].verdict == SAME


def test_lower_latency_is_better_and_higher_is_worse() -> None:
    iops = noisy(1, 10_000, 100)
    a = make_record("a", iops, p99_ns=500_000, p99_samples=noisy(3, 500_000, 10_000))
    faster = make_record("b", iops, p99_ns=400_000, p99_samples=noisy(4, 400_000, 10_000))
    slower = make_record("c", iops, p99_ns=600_000, p99_samples=noisy(5, 600_000, 10_000))
    row = compare_records([a, faster, slower]).row("read", "lat_p99_ns")
    assert [v.verdict for v in row.verdicts[1:]] == [BETTER, WORSE]
    assert row.deltas[1] == -100_000 and row.deltas[2] == 100_000


def test_warm_up_is_skipped() -> None:
    steady = noisy(7, 10_000, 100)
    # Run b starts slow (a cold cache, a filling queue) for two seconds, then matches a.
    b_samples = [1_000.0, 2_000.0, *noisy(8, 10_000, 100)[2:]]
    a = make_record("a", steady)
    b = make_record("b", b_samples)
    assert [s["t_s"] for s in steady_samples(b)][0] >= 3.0
    assert compare_records([a, b]).row("read", "iops").verdicts[1].verdict == SAME


def two_section_record(run_id: str, read_iops: list[float], write_iops: list[float]) -> RunRecord:
    """A preset with a read section, then a write section (stonewall): each direction idles half the run."""
    record = make_record(run_id, iops=sum(read_iops) / len(read_iops))
    record.sections[0]["write"] = {"iops": sum(write_iops) / len(write_iops), "bw_bytes": 1.0, "io_bytes": 1, "total_ios": 1}
    samples = []
    t_s = 0.0
    for read, write in [(r, 0.0) for r in read_iops] + [(0.0, w) for w in write_iops]:
        t_s += 1.0
        samples.append({"t_s": t_s, "dt_s": 1.0, "read_iops": read, "write_iops": write})
    record.samples = samples
    return record


def test_each_direction_is_judged_over_its_own_section() -> None:
    a = two_section_record("a", noisy(1, 20_000, 300, 15), noisy(2, 10_000, 200, 15))
    b = two_section_record("b", noisy(3, 16_000, 300, 15), noisy(4, 10_000, 200, 15))
    comparison = compare_records([a, b])
    # The idle half of the run is not read noise: 20k -> 16k is a clear regression.
    assert comparison.row("read", "iops").verdicts[1].verdict == WORSE
    assert comparison.row("write", "iops").verdicts[1].verdict == SAME
    steady_write = steady_samples(a, "write")
    assert steady_write and all(s["write_iops"] > 0 for s in steady_write)
    assert steady_write[0]["t_s"] >= 15 + 3  # warm-up counts from the start of the write section


def test_runs_without_samples_use_the_five_percent_threshold() -> None:
    a = make_record("a", iops=10_000)
    near = make_record("b", iops=10_300)
    far = make_record("c", iops=11_000)
    lower = make_record("d", iops=9_000)
    row = compare_records([a, near, far, lower]).row("read", "iops")
    assert [v.verdict for v in row.verdicts[1:]] == [SAME, BETTER, WORSE]
    assert {v.method for v in row.verdicts[1:]} == {METHOD_THRESHOLD}


def test_one_run_with_samples_and_one_without_falls_back_to_threshold() -> None:
    a = make_record("a", noisy(1, 10_000, 100))
    b = make_record("b", iops=12_000)
    assert compare_records([a, b]).row("read", "iops").verdicts[1].method == METHOD_THRESHOLD


def test_responsiveness_and_cpu_rows() -> None:
    a = make_record("a", iops=10_000, responsiveness="ok", cpu={"iops_per_fio_core": 50_000, "ctx_switches_per_s": 8_500})
    b = make_record("b", iops=10_000, responsiveness="unresponsive", cpu={"iops_per_fio_core": 80_000, "ctx_switches_per_s": 24_800})
    comparison = compare_records([a, b])
    level = comparison.row("pressure", "responsiveness")
    assert level.values == ("ok", "unresponsive")
    assert level.verdicts[1].verdict == WORSE and level.verdicts[1].method == METHOD_LEVEL
    assert comparison.row("cpu", "iops_per_fio_core").verdicts[1].verdict == BETTER
    assert comparison.row("cpu", "ctx_switches_per_s").verdicts[1].verdict == WORSE


def test_missing_metric_has_no_verdict() -> None:
    a = make_record("a", iops=10_000)
    b = make_record("b", iops=10_000)
    del b.sections[0]["read"]["lat_p99_ns"]
    row = compare_records([a, b]).row("read", "lat_p99_ns")
    assert row.values[1] is None and row.verdicts[1].verdict is None


# -- set-up differences ----------------------------------------------------------------


def test_setup_differences_name_what_differs_only() -> None:
    a = make_record("a", iops=1, kernel="6.1", options={"rw": "randread", "bs": "4k", "direct": "1"})
    b = make_record("b", iops=1, kernel="6.5", options={"rw": "randread", "bs": "64k"})
    differences = dict(setup_differences([a, b]))
    assert differences == {"host.kernel": ["6.1", "6.5"], "options.bs": ["4k", "64k"], "options.direct": ["1", None]}
    assert setup_differences([a, a]) == []


def test_sizes_are_compared_as_fio_reads_them_and_shown_as_each_record_spells_them() -> None:
    a = make_record("a", iops=1, options={"bs": "4096B", "size": "1G", "rate": "4k,64k", "bsrange": "4k-16k"})
    b = make_record("b", iops=1, options={"bs": "4k", "size": "1024M", "rate": "4KB,65536", "bsrange": "4096-16k"})
    assert setup_differences([a, b]) == []
    c = make_record("c", iops=1, options={"bs": "8k", "size": "1GiB", "rate": "4k,64k", "bsrange": "4k-16k"})
    # fio's own units: 1GiB is 1000^3 bytes, not 1G.
    assert dict(setup_differences([a, b, c])) == {"options.bs": ["4096B", "4k", "8k"], "options.size": ["1G", "1024M", "1GiB"]}
    # kb_base=1000 makes 4k 4000 bytes: the same spelling, a different set-up.
    d = make_record("d", iops=1, options={"bs": "4k", "size": "1G", "rate": "4k,64k", "bsrange": "4k-16k", "kb_base": "1000"})
    assert dict(setup_differences([b, d]))["options.bs"] == ["4k", "4k"]
    # A value fio would not read as a plain size (a percentage) is compared as written.
    e = make_record("e", iops=1, options={"offset": "50%"})
    f = make_record("f", iops=1, options={"offset": "50%"})
    assert setup_differences([e, f]) == []


# -- output -----------------------------------------------------------------------------


def test_json_has_a_b_delta_delta_pct_verdict_per_direction_and_metric() -> None:
    a = make_record("a", noisy(1, 10_000, 200))
    b = make_record("b", noisy(2, 11_000, 200))
    c = make_record("c", noisy(3, 9_000, 200))
    doc = json.loads(json.dumps(compare_records([a, b, c]).to_json_dict()))
    iops = doc["metrics"]["read"]["iops"]
    assert iops["a"] == a.summary["read"]["iops"] and iops["b"] == b.summary["read"]["iops"]
    assert iops["delta"] == pytest.approx(iops["b"] - iops["a"])
    assert iops["delta_pct"] == pytest.approx((iops["b"] - iops["a"]) / iops["a"] * 100)
    assert iops["verdict"] == BETTER
    assert iops["versus"]["c"]["verdict"] == WORSE
    assert {"a", "b", "delta", "delta_pct", "verdict"} <= set(doc["metrics"]["read"]["lat_p99_ns"])
    assert [run["label"] for run in doc["runs"]] == ["a", "b", "c"]


def test_text_and_markdown_show_setup_and_method() -> None:
    a = make_record("a", noisy(1, 10_000, 200), kernel="6.1")
    b = make_record("b", iops=12_000, kernel="6.5")
    comparison = compare_records([a, b])
    text = comparison_text(comparison)
    assert "host.kernel" in text and "a=6.1 | b=6.5" in text
    assert "better" in text and "±5%" in text
    markdown = comparison_markdown(comparison)
    assert "| read IOPS |" in markdown
    assert markdown.count("\n|") > 4


def test_time_series_for_plots() -> None:
    record = make_record("a", [1.0, 2.0, 3.0])
    assert time_series(record, "iops") == {"read": [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)]}
    assert time_series(record, "lat_p99_ns") == {}


def test_the_cpu_rows_name_cpu_once() -> None:
    a = make_record("a", iops=10_000, cpu={"user_pct": 20.0, "system_pct": 30.0})
    b = make_record("b", iops=10_000, cpu={"user_pct": 25.0, "system_pct": 30.0})
    comparison = compare_records([a, b])
    for rendered in (comparison_text(comparison), comparison_markdown(comparison)):
        assert "CPU CPU" not in rendered
        assert "CPU user" in rendered and "CPU system" in rendered


def test_one_welch_verdict_for_interval_samples_and_for_repeated_runs() -> None:
    steady = [1000.0, 1000.2, 999.8, 1000.1, 999.9, 1000.0, 1000.2, 999.8]
    faster = [value + 50 for value in steady]
    for method in (METHOD_WELCH, METHOD_REPEATS):
        verdict = welch_verdict(steady, faster, True, method)
        assert (verdict.verdict, verdict.method) == (BETTER, method) and verdict.p_value < 0.05
        assert welch_verdict(steady, faster, False, method).verdict == WORSE  # latency: higher is worse
    # Clearly different (p far below 0.05) but 0.5 %: smaller than the 1 % that counts.
    slightly = [value + 5 for value in steady]
    assert welch_test(steady, slightly).p_value < 0.001
    assert welch_verdict(steady, slightly, True, METHOD_WELCH).verdict == SAME
    idle = welch_verdict([0.0] * 6, [0.0] * 6, True, METHOD_REPEATS)
    assert (idle.verdict, idle.p_value) == (SAME, 1.0)
