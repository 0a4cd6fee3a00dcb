"""fio's own example job files (tests/fixtures/fio-examples, see SOURCE.md) through ``iotui run``.

All 86 of fio 3.33's examples. Confine, do not refuse what is harmless: those that do I/O on files
run with fio's own figures, per section; those that name devices or other files, run commands,
load engines or talk to the network are refused with a sentence; those that fail inside fio 3.33
end with a sentence and a failed record. None gives a traceback and none leaves a file behind.
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
from iotui.core.records.files import load_record
from tests.conftest import requires_fio

EXAMPLES = Path(__file__).parents[1] / "fixtures" / "fio-examples"
# Files that do I/O on files: they run (relative names, names in /tmp and a job file's directory= confined).
RUNS = (
    "aio-read", "backwards-read", "butterfly", "cpuio", "dedupe-global", "exitwhat", "falloc", "filecreate-ioengine",
    "filedelete-ioengine", "filestat-ioengine", "fio-rand-RW", "fio-rand-read", "fio-rand-write", "fio-seq-RW",
    "fio-seq-read", "fio-seq-write", "flow", "fsx", "ftruncate", "iometer-file-access-server", "null", "rand-zones",
    "ssd-test", "steadystate", "tiobench-example", "waitfor", "zipf",
)
# Their scratch files (filename=/tmp/...) are placed in the private test directory: nothing is written here.
SCRATCH_FILES = {"butterfly": "/tmp/testfile", "exitwhat": "/tmp/test", "flow": "/tmp/testfile", "waitfor": "/tmp/data"}
# Runs too, but its 32 jobs start 4 s apart (startdelay up to 124 s): two minutes, too long for the suite.
RUNS_SLOWLY = ("1mbs_clients",)
# Refused, with the option that is, by why (docs/safety.md has the same table).
REFUSED_BY_CATEGORY: dict[str, dict[str, str]] = {
    "a device": {
        "basic-verify": "filename=/dev/XXX", "cmdprio-bssplit": "filename=/dev/sda",
        "cmdprio-percentage": "filename=/dev/sda", "cross-stripe-verify": "filename=/dev/nvme0n1",
        "disk-zone-profile": "filename=/dev/sdb", "jesd219": "filename=/dev/nvme0n1",
        "latency-profile": "filename=/dev/sda", "numa": "filename=/dev/sdb1", "ssd-steadystate": "filename=/dev/fioa",
    },
    "an engine for devices": {
        "dev-dax": "ioengine=dev-dax", "libpmem": "ioengine=libpmem", "mtd": "ioengine=mtd",
        "pmemblk": "ioengine=pmemblk", "sg_verify": "ioengine=sg", "sg_verify-fail": "ioengine=sg",
        "sg_write_same_ndob": "ioengine=sg", "uring-cmd-ng": "ioengine=io_uring_cmd",
        "uring-cmd-zoned": "ioengine=io_uring_cmd",
    },
    "a zoned block device": {
        "libzbc-rand-write": "zonemode=zbd", "libzbc-seq-read": "zonemode=zbd", "xnvme-zoned": "zonemode=zbd",
        "zbd-rand-write": "zonemode=zbd", "zbd-seq-read": "zonemode=zbd",
    },
    "the network": {
        "dfs": "ioengine=dfs", "gfapi": "ioengine=gfapi", "gpudirect-rdmaio-client": "ioengine=rdma",
        "gpudirect-rdmaio-server": "ioengine=rdma", "http-s3": "ioengine=http", "http-s3-crypto": "ioengine=http",
        "http-s3-storage-class": "ioengine=http", "http-swift": "ioengine=http", "http-webdav": "ioengine=http",
        "libhdfs": "ioengine=libhdfs", "libiscsi": "ioengine=libiscsi",
        "librpma_apm-client": "ioengine=librpma_apm_client", "librpma_apm-server": "ioengine=librpma_apm_server",
        "librpma_gpspm-client": "ioengine=librpma_gpspm_client",
        "librpma_gpspm-server": "ioengine=librpma_gpspm_server", "nbd": "ioengine=nbd", "netio": "ioengine=net",
        "netio_multicast": "ioengine=net", "nfs": "ioengine=nfs", "rados": "ioengine=rados", "rbd": "ioengine=rbd",
        "rdmaio-client": "ioengine=rdma", "rdmaio-server": "ioengine=rdma",
    },
    "code loaded from a library": {
        "cpp_null": "ioengine=cpp_null", "ime": "ioengine=ime_psync", "libcufile-cufile": "ioengine=libcufile",
        "libcufile-posix": "ioengine=libcufile",
    },
    "a command": {"exec": "ioengine=exec"},
    "other files' blocks": {"e4defrag": "ioengine=e4defrag", "e4defrag2": "ioengine=e4defrag"},
    "filling the filesystem": {"surface-scan": "fill_device=1"},
    "the environment": {"xnvme-compare": "rw=${FIO_RW}"},
}
REFUSED = {name: option for names in REFUSED_BY_CATEGORY.values() for name, option in names.items()}
# What each category's sentence says (the reason after "because").
REASON_WORDS = {
    "a device": "outside iotui's private test directory", "an engine for devices": "works on devices",
    "a zoned block device": "zoned block device", "the network": "over the network",
    "code loaded from a library": "load a library", "a command": "runs a command", "other files' blocks":
    "another file", "filling the filesystem": "filesystem is full", "the environment": "environment variable",
}
# Fail inside fio 3.33, each with a sentence: enospc-pressure trims a regular file through libaio (fio:
# "Inappropriate ioctl for device"); the two offload examples hang in fio 3.33's submit workers (fixed
# in fio 3.42), so iotui ends them when fio stops reporting. The hang is a race: they may also complete.
FAILS_IN_FIO = {
    "enospc-pressure": "Inappropriate ioctl for device",
    "fixed-rate-submission": "hangs inside fio",
    "poisson-rate-submission": "hangs inside fio",
}
# One second of each section: the figures are checked against fio's own report, whatever the
# length, and a second second doubled fio's CPU in the suite without checking more.
RUNTIME_S = "1"
MAY_COMPLETE = {"fixed-rate-submission", "poisson-rate-submission"}


def _run(name: str, root: Path) -> tuple[str, subprocess.CompletedProcess, Path, Path]:
    target, runs = root / name / "target", root / name / "runs"
    target.mkdir(parents=True)
    (root / name / "runtime").mkdir(mode=0o700)
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "--job-file", str(EXAMPLES / f"{name}.fio"), "--runtime", RUNTIME_S,
         "--size", "16M", "--target", str(target), "--runs-dir", str(runs), "--baseline", "0", "--json"],
        capture_output=True, text=True, timeout=180,
        # Several example files run at once to keep the suite short: each gets its own runtime
        # directory, so the one-run-per-machine lock does not refuse its neighbours.
        env={**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_RUNTIME_DIR": str(root / name / "runtime")},
    )
    return name, result, target, runs


def _state(path: Path) -> tuple[int, int] | None:
    """A file's size and modification time, or None when there is none."""
    try:
        facts = path.stat()
    except FileNotFoundError:
        return None
    return facts.st_size, facts.st_mtime_ns


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
                    # abs: where only one of the group's jobs did I/O in this direction, the section is
                    # that job's own entry, which fio prints to six decimals (317.341329 for 317.3413293...).
                    assert figures["iops"] == pytest.approx(total_ios * 1000 / runtime_ms, rel=1e-9, abs=1e-6)


def _did_io(job: dict) -> bool:
    return any(job[direction]["total_ios"] or job[direction]["runtime"] for direction in ("read", "write", "trim"))


@requires_fio
@pytest.mark.fio
@pytest.mark.slow
def test_the_example_job_files_that_use_files_run_with_fio_s_figures_and_those_fio_fails_give_a_sentence(
    tmp_path: Path,
) -> None:
    # The hanging ones first: they wait for iotui to notice, while the others run beside them.
    names = sorted(FAILS_IN_FIO, key=lambda name: name not in MAY_COMPLETE) + list(RUNS)
    scratch_before = {path: _state(Path(path)) for path in SCRATCH_FILES.values()}
    # Six at once: the two that hang mostly wait, and fio's runs are mostly their 1 s of runtime.
    with ThreadPoolExecutor(max_workers=6) as pool:
        outcomes = list(pool.map(lambda name: _run(name, tmp_path), names))
    # /tmp/testfile, /tmp/test, /tmp/data: as they were (absent, on a machine where nothing else makes them).
    assert {path: _state(Path(path)) for path in SCRATCH_FILES.values()} == scratch_before
    problems = []
    for name, result, target, runs in outcomes:
        if list(target.iterdir()):
            problems.append(f"{name}: left {[p.name for p in target.iterdir()]}")
        if "Traceback" in result.stderr:
            problems.append(f"{name}: traceback: {result.stderr[-600:]}")
            continue
        if name in FAILS_IN_FIO and (result.returncode != 0 or name not in MAY_COMPLETE):
            lines = result.stderr.strip().splitlines()
            if result.returncode != 1 or not lines or FAILS_IN_FIO[name] not in lines[-1]:
                problems.append(f"{name}: exit {result.returncode}, expected fio's failure: {result.stderr[-600:]}")
                continue
            record = load_record(next(runs.glob("*.toml")))
            if record.status != "failed":
                problems.append(f"{name}: record status {record.status}")
            continue
        if result.returncode != 0:
            problems.append(f"{name}: exit {result.returncode}: {result.stderr[-600:]}")
            continue
        record = load_record(Path(json.loads(result.stdout)["path"]))
        report = json.loads((runs / record.run["report"]).read_text())
        try:
            assert record.status == "completed"
            _check_figures(record, report)
        except (AssertionError, KeyError, ZeroDivisionError) as error:
            problems.append(f"{name}: {error!r}")
    assert problems == []
    assert len(RUNS) + len(RUNS_SLOWLY) >= 28


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
    category = next(category for category, names in REFUSED_BY_CATEGORY.items() if name in names)
    assert REASON_WORDS[category] in err
    assert list(target.iterdir()) == []
    assert not (tmp_path / "runs").exists() or list((tmp_path / "runs").iterdir()) == []


@pytest.mark.parametrize("elsewhere", ["/home/x/f", "/etc/x", "/tmp/../etc/passwd", "/tmpfoo/x", "/tmp/"])
def test_an_example_that_names_a_file_outside_tmp_and_var_tmp_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], elsewhere: str
) -> None:
    # butterfly.fio as fio ships it runs (/tmp/testfile is a scratch name); naming any other file, it is refused.
    job = tmp_path / "butterfly.fio"
    job.write_text((EXAMPLES / "butterfly.fio").read_text().replace("filename=/tmp/testfile", f"filename={elsewhere}"))
    target = tmp_path / "target"
    target.mkdir()
    code = cli.main(["run", "--job-file", str(job), "--runtime", "2", "--size", "16M", "--target", str(target),
                     "--runs-dir", str(tmp_path / "runs"), "--baseline", "0"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert f"the option 'filename={elsewhere}' is refused because it names a path outside iotui's private test" in err
    assert list(target.iterdir()) == [] and not (tmp_path / "runs").exists()


def test_every_example_of_fio_3_33_is_here_and_either_runs_or_is_refused_or_fails_in_fio() -> None:
    names = {path.stem for path in EXAMPLES.glob("*.fio")}
    assert len(names) == 86  # every *.fio in examples/ at fio's tag fio-3.33 (SOURCE.md)
    groups = [set(RUNS), set(RUNS_SLOWLY), set(REFUSED), set(FAILS_IN_FIO)]
    assert sum(len(group) for group in groups) == len(names) == len(set().union(*groups))
    assert set().union(*groups) == names
    source = (EXAMPLES / "SOURCE.md").read_text()
    assert all(f"`{name}.fio`" in source for name in names)
