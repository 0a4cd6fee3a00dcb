"""fio's own example job files (tests/fixtures/fio-examples, see SOURCE.md) through ``iotui run``.

Confine, do not refuse what is harmless: those that do I/O on files run with fio's own figures,
per section; those that name devices, run commands, load engines or talk to the network are
refused with a sentence. None gives a traceback and none leaves a file behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from iotui import cli
from iotui.core.runs.record_files import load_record
from tests.conftest import requires_fio

EXAMPLES = Path(__file__).parents[1] / "fixtures" / "fio-examples"
# Files that do I/O on files: they run (relative names and a job file's directory= confined).
RUNS = (
    "aio-read", "backwards-read", "cpuio", "dedupe-global", "falloc", "fio-rand-RW", "fio-rand-read",
    "fio-rand-write", "fio-seq-RW", "fio-seq-read", "fio-seq-write", "ftruncate", "null", "rand-zones",
    "ssd-test", "tiobench-example", "zipf",
)
# Refused, with the option that is: devices, absolute files, exec, network, code, logs, fills.
REFUSED = {
    "basic-verify": "filename=/dev/XXX", "butterfly": "filename=/tmp/testfile", "cmdprio-bssplit": "filename=/dev/sda",
    "cmdprio-percentage": "filename=/dev/sda", "cross-stripe-verify": "filename=/dev/nvme0n1",
    "disk-zone-profile": "write_bw_log", "e4defrag": "ioengine=e4defrag", "exec": "ioengine=exec",
    "exitwhat": "filename=/tmp/test", "flow": "filename=/tmp/testfile", "fsx": "rwmixcycle=40",
    "fusion-aw-sync": "ioengine=fusion-aw-sync", "jesd219": "filename=/dev/nvme0n1",
    "latency-profile": "filename=/dev/sda", "netio": "ioengine=net", "poisson-rate-submission": "rate_poisson=1",
    "ssd-steadystate": "filename=/dev/fioa", "steadystate": "threads=1", "surface-scan": "fill_device=1",
    "waitfor": "threads=1",
}
# enospc-pressure fails inside fio 3.33 (its verifier); fixed-rate-submission hangs inside fio 3.33
# (io_submit_mode=offload with a rate): neither is iotui's to fix, so they are not run here.


def _run(name: str, root: Path) -> tuple[str, subprocess.CompletedProcess, Path, Path]:
    target, runs = root / name / "target", root / name / "runs"
    target.mkdir(parents=True)
    (root / name / "runtime").mkdir(mode=0o700)
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "--job-file", str(EXAMPLES / f"{name}.fio"), "--runtime", "2",
         "--size", "16M", "--target", str(target), "--runs-dir", str(runs), "--baseline", "0", "--json"],
        capture_output=True, text=True, timeout=180,
        # Four example files run at once to keep the suite short: each gets its own runtime
        # directory, so the one-run-per-machine lock does not refuse its neighbours.
        env={**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_RUNTIME_DIR": str(root / name / "runtime")},
    )
    return name, result, target, runs


def _fio_groups(report: dict) -> dict[int, list[dict]]:
    groups: dict[int, list[dict]] = {}
    for job in report["jobs"]:
        groups.setdefault(job["groupid"], []).append(job)
    return groups


def _check_figures(record, report: dict) -> None:
    """Each section equals fio's own group: one entry copied, several merged as fio merges them."""
    groups = _fio_groups(report)
    assert [section["groupid"] for section in record.sections] == [g for g, jobs in groups.items()
                                                                    if any(_did_io(job) for job in jobs)]
    for section in record.sections:
        jobs = groups[section["groupid"]]
        for direction in ("read", "write", "trim"):
            if not any(job[direction]["total_ios"] for job in jobs):
                continue
            figures = section[direction]
            total_ios = sum(job[direction]["total_ios"] for job in jobs)
            io_bytes = sum(job[direction]["io_bytes"] for job in jobs)
            assert figures["total_ios"] == total_ios and figures["io_bytes"] == io_bytes
            if len(jobs) == 1:
                assert figures["iops"] == jobs[0][direction]["iops"]
            else:
                runtime_ms = max(job[direction]["runtime"] for job in jobs)
                if runtime_ms:  # fio measured no time (gtod_reduce): only the counts are fio's figures
                    assert figures["iops"] == pytest.approx(total_ios * 1000 / runtime_ms, rel=1e-9)


def _did_io(job: dict) -> bool:
    return any(job[direction]["total_ios"] or job[direction]["runtime"] for direction in ("read", "write", "trim"))


@requires_fio
@pytest.mark.fio
@pytest.mark.slow
def test_the_example_job_files_that_use_files_run_with_fio_s_figures(tmp_path: Path) -> None:
    with ThreadPoolExecutor(max_workers=4) as pool:
        outcomes = list(pool.map(lambda name: _run(name, tmp_path), RUNS))
    problems = []
    for name, result, target, runs in outcomes:
        if "Traceback" in result.stderr or result.returncode != 0:
            problems.append(f"{name}: exit {result.returncode}: {result.stderr[-600:]}")
            continue
        record = load_record(Path(json.loads(result.stdout)["path"]))
        report = json.loads((runs / record.run["report"]).read_text())
        try:
            assert record.status == "completed"
            _check_figures(record, report)
        except (AssertionError, KeyError, ZeroDivisionError) as error:
            problems.append(f"{name}: {error!r}")
        if list(target.iterdir()):
            problems.append(f"{name}: left {[p.name for p in target.iterdir()]}")
    assert problems == []
    assert len(RUNS) >= 17


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_the_example_job_files_that_name_devices_or_run_things_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    target = tmp_path / "target"
    target.mkdir()
    code = cli.main(["run", "--job-file", str(EXAMPLES / f"{name}.fio"), "--runtime", "2", "--size", "16M",
                     "--target", str(target), "--runs-dir", str(tmp_path / "runs"), "--baseline", "0"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert f"the option '{REFUSED[name]}" in err and "can still be run with fio directly" in err
    assert list(target.iterdir()) == []


def test_every_example_is_either_run_or_refused_or_explained() -> None:
    names = {path.stem for path in EXAMPLES.glob("*.fio")}
    assert names == set(RUNS) | set(REFUSED) | {"enospc-pressure", "fixed-rate-submission"}
