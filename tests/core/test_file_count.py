"""The files a run creates, counted as fio makes them, and the checks against the target's inodes.

A run that makes more files than the target has inodes filled a small-inode
filesystem to ENOSPC (fio stopped at its 295th file of 2,000); nrfiles=0x7fffffff
with size=1M passed every byte check. Counts here are worked out by hand.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iotui.core.host import targets
from iotui.core.presets.estimate import file_estimate
from iotui.core.runs.plan import PlanError, make_plan
from iotui.core.presets.model import JobSection, Preset


def _preset(options: dict[str, str], jobs: dict[str, dict[str, str]] | None = None) -> Preset:
    sections = tuple(JobSection(name, dict(own)) for name, own in (jobs or {}).items())
    return Preset(name="p", title="p", description="", tells="", options=dict(options), jobs=sections)


@pytest.mark.parametrize(
    "options, expected_files",
    [
        ({"size": "1M"}, 1),  # iotui's one test file
        ({"size": "1M", "numjobs": "8"}, 1),  # clones share it
        ({"nrfiles": "2000", "size": "1M"}, 2000),
        ({"nrfiles": "8", "numjobs": "4", "size": "1M"}, 32),  # each clone makes its own 8
        ({"nrfiles": "0x10", "size": "1M"}, 16),  # fio's integers take hex
        ({"nrfiles": "1k", "size": "1M"}, 1024),  # and size suffixes
        ({"filename": "a:b:c", "size": "3M", "numjobs": "4"}, 3),  # a named list: clones share the names
        ({"directory": "sub", "size": "1M", "numjobs": "3"}, 3),  # fio names the files: one per clone
    ],
)
def test_the_file_count_is_numjobs_times_the_files(options: dict[str, str], expected_files: int) -> None:
    count, _ = file_estimate(_preset(options))
    assert count == expected_files


def test_sections_add_their_own_files_and_share_the_test_file() -> None:
    preset = _preset(
        {"size": "1M"},
        {"a": {"nrfiles": "10", "numjobs": "2"}, "b": {"nrfiles": "5", "stonewall": "1"}, "c": {}, "d": {}},
    )
    count, how = file_estimate(preset)
    # a: 10 x 2, b: 5 (fio leaves a's files until the run ends), c and d: the one shared file.
    assert count == 20 + 5 + 1
    assert "[a] nrfiles 10 x numjobs 2" in how and "[b] nrfiles 5 x numjobs 1" in how


def test_an_unreadable_count_is_unknown_with_the_reason() -> None:
    count, why = file_estimate(_preset({"size": "1M"}, {"a": {"nrfiles": "many"}}))
    assert count is None
    assert "[a]" in why and "nrfiles=many" in why


def test_more_than_a_million_files_is_refused_whatever_the_inodes() -> None:
    problem = targets.files_problem(2**31 - 1, "nrfiles 2,147,483,647 x numjobs 1", None, "/t")
    assert problem is not None
    assert "2,147,483,647 files" in problem and "1,000,000" in problem and "nrfiles" in problem
    assert targets.files_problem(1_000_000, "x", None, "/t") is None


def test_more_files_than_free_inodes_is_refused_with_both_figures() -> None:
    problem = targets.files_problem(2000, "nrfiles 2,000 x numjobs 1", 299, "/t")
    assert problem is not None
    assert "2,000 files" in problem and "299 inodes are free" in problem and "/t" in problem
    # The margin: 64 inodes beyond the files.
    assert targets.files_problem(235, "x", 299, "/t") is None
    assert targets.files_problem(236, "x", 299, "/t") is not None


def test_a_filesystem_that_counts_no_inodes_is_not_checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The filesystem's real figures, held still: the rest of the suite makes and removes files on
    # it, so two calls of statvfs a moment apart may see different free inodes.
    real = os.statvfs(tmp_path)
    monkeypatch.setattr(targets.os, "statvfs", lambda path: real)
    assert targets.free_inodes(tmp_path) == (real.f_favail if real.f_files else None)

    class NoInodes:  # what btrfs and many network filesystems report
        f_files = 0
        f_favail = 0

    monkeypatch.setattr(targets.os, "statvfs", lambda path: NoInodes())
    assert targets.free_inodes(tmp_path) is None


def test_the_run_plan_refuses_two_billion_files_before_fio(tmp_path: Path) -> None:
    preset = _preset({"size": "1M", "nrfiles": "0x7fffffff", "rw": "write"})
    with pytest.raises(PlanError, match=r"2,147,483,647 files .*nrfiles 2,147,483,647 x numjobs 1"):
        make_plan(preset, tmp_path, fio_binary="fio")
    assert list(tmp_path.iterdir()) == []


def test_the_run_plan_refuses_more_files_than_the_target_has_inodes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    inspect = targets.inspect_target

    def few_inodes(path: Path, *args: object, **kwargs: object) -> targets.TargetInfo:
        info = inspect(path)
        info.free_inodes = 299
        return info

    monkeypatch.setattr(targets, "inspect_target", few_inodes)
    preset = _preset({"size": "1M", "nrfiles": "2000", "rw": "write"})
    with pytest.raises(PlanError, match=r"creates 2,000 files .* 299 inodes are free"):
        make_plan(preset, tmp_path, fio_binary="fio")


def test_a_sweep_refuses_the_point_that_makes_the_most_files(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from iotui.core.sweep import plan as sweep_plan

    preset = _preset({"size": "1M", "rw": "write", "runtime": "1"})
    plan = sweep_plan.plan_sweep(preset, vary=["nrfiles=10,400,50"], target=str(tmp_path))
    estimate = sweep_plan.estimate_sweep(plan)
    assert [(files, params) for _, files, _, params in estimate.files] == [(400, {"nrfiles": "400"})]
    sweep_plan.check_space(estimate)  # a real directory has inodes enough for 400
    monkeypatch.setattr(sweep_plan, "free_inodes", lambda path: 299)
    with pytest.raises(sweep_plan.SweepPlanError, match=r"nrfiles=400 cannot run: .*creates 400 files .*299 inodes"):
        sweep_plan.check_space(estimate)


def test_a_remote_run_over_the_cap_is_refused_before_any_host_is_asked() -> None:
    import asyncio

    from iotui.core.remote.plan import make_remote_plan
    from iotui.core.remote.transport import RemoteError

    preset = _preset({"size": "1M", "nrfiles": "4P", "rw": "write"})
    with pytest.raises(RemoteError) as refused:
        # "false" as ssh: any connection would fail with another code.
        asyncio.run(make_remote_plan(preset, ["h1"], ["false"], None))
    assert refused.value.code == "too-many-files"
    assert "4,503,599,627,370,496 files (nrfiles 4,503,599,627,370,496 x numjobs 1)" in str(refused.value)
