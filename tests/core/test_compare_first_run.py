"""Compare as a newcomer reads it: samples counted right, percent figures in percentage points, and a
sentence when two runs share no section."""

from __future__ import annotations

import datetime as dt
import random

from iotui.core.compare.compare import METHOD_THRESHOLD, METHOD_WHOLE_RUN, compare_records
from iotui.core.compare.render import comparison_markdown, comparison_text
from iotui.core.records.record import RunRecord


def _record(run_id: str, samples_count: int, user_pct: float, sections: tuple[str, ...] = ("quick",)) -> RunRecord:
    rng = random.Random(run_id)
    built, samples = [], []
    for index, name in enumerate(sections):
        built.append({
            "name": name, "jobs": [name], "groupid": index, "options": {"bs": "4k", "rw": "randread"},
            "read": {"iops": 20_000.0, "bw_bytes": 20_000.0 * 4096, "io_bytes": 1, "total_ios": 1},
            "cpu": {"user_pct": user_pct, "system_pct": 14.0, "fio_cpu_cores": 0.38, "iops_per_busy_core": 15_900.0},
        })
    for second in range(samples_count):
        samples.append({"t_s": second + 1.0, "dt_s": 1.0, "section": 0, "read_iops": rng.gauss(20_000, 200),
                        "cpu_user_pct": rng.gauss(user_pct, 1), "cpu_system_pct": rng.gauss(14, 1)})
    return RunRecord(
        run={"id": run_id, "preset": "quick", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc), "duration_s": float(samples_count),
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 2, "mem_total_bytes": 1},
        target={"path": "/d", "filesystem": "ext4", "device": "sda", "mount_options": "rw"},
        sections=built, samples=samples,
    )


def test_runs_of_21_and_61_samples_are_never_said_to_have_fewer_than_5() -> None:
    comparison = compare_records([_record("a", 21, 20.0), _record("b", 61, 40.0)])
    busy = comparison.row("cpu", "iops_per_busy_core").verdicts[1]
    assert busy is not None and busy.method == METHOD_WHOLE_RUN  # no per-second values, not too few samples
    assert all(v.method != METHOD_THRESHOLD for row in comparison.rows for v in row.verdicts[1:] if v is not None)
    text = comparison_text(comparison)
    assert "fewer than 5" not in text
    assert "only for the whole run" in text


def test_a_short_run_still_says_it_has_too_few_samples() -> None:
    text = comparison_text(compare_records([_record("a", 3, 20.0), _record("b", 61, 40.0)]))
    assert "fewer than 5 interval samples" in text


def test_a_percent_figure_changes_in_percentage_points() -> None:
    comparison = compare_records([_record("a", 21, 68.5), _record("b", 21, 48.3)])
    text = comparison_text(comparison)
    user = next(line for line in text.splitlines() if line.startswith("CPU user"))
    assert "-20.2 pp" in user and "%)" not in user  # not "-20.2% (-29.5%)"
    assert "-20.2 pp" in comparison_markdown(comparison)


def test_runs_that_share_no_section_say_so_instead_of_a_table_of_dashes() -> None:
    a = _record("a", 21, 20.0, sections=("seq-read", "seq-write"))
    b = _record("b", 21, 20.0, sections=("rnd-read", "rnd-write"))
    text = comparison_text(compare_records([a, b]))
    assert "share no section" in text and "a has seq-read, seq-write" in text and "b has rnd-read, rnd-write" in text
    assert "metric" not in text.split("share no section")[1]  # no table after the sentence
    assert "-  " not in text  # no row of dashes


def test_runs_that_share_a_section_still_get_the_table() -> None:
    a = _record("a", 21, 20.0, sections=("seq-read", "rnd-read"))
    b = _record("b", 21, 20.0, sections=("rnd-read", "other"))
    text = comparison_text(compare_records([a, b]))
    assert "share no section" not in text and "rnd-read · read IOPS" in text
