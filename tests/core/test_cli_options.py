"""The command line reads argparse's Namespace once, at each command's entry, into typed options."""

from __future__ import annotations

import re
from pathlib import Path

import iotui
from iotui.cli import build_parser
from iotui.cli_options import AppOptions, HostOptions, RunOptions
from iotui.commands.run import RunCommandOptions
from iotui.commands.sweep import SweepOptions

PACKAGE_DIR = Path(iotui.__file__).parent


def test_no_helper_reaches_into_a_namespace_by_name() -> None:
    found = [
        f"{path.relative_to(PACKAGE_DIR.parent)}:{number}"
        for path in sorted(PACKAGE_DIR.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if re.search(r"getattr\(\s*args\b", line)
    ]
    assert len(list(PACKAGE_DIR.rglob("*.py"))) > 100  # the scan saw the package
    assert found == []


def test_runs_dir_before_or_after_the_subcommand_reaches_the_options() -> None:
    parser = build_parser()
    before = RunOptions.from_namespace(parser.parse_args(["--runs-dir", "/r", "--fio", "/f", "run", "quick"]))
    after = RunOptions.from_namespace(parser.parse_args(["run", "quick", "--runs-dir", "/r", "--fio", "/f"]))
    assert before == after
    assert (after.runs_dir, after.fio, after.preset) == ("/r", "/f", "quick")


def test_run_options_carry_every_flag_as_typed() -> None:
    argv = ["run", "quick", "--target", "/t", "--runtime", "2m", "--size", "1G", "--set", "bs=64k", "--set",
            "iodepth=4", "--no-save", "--allow-cache", "--force", "--baseline", "-3", "--hosts", "h1,h2",
            "--hosts-file", "hosts.txt", "--min-hosts", "1", "--no-host-probes", "--ssh", "ssh -p 2222",
            "--json", "--repeat", "3"]
    options = RunCommandOptions.from_namespace(build_parser().parse_args(argv))
    assert options == RunCommandOptions(
        run=RunOptions(
            preset="quick", target="/t", runtime="2m", size="1G", sets=("bs=64k", "iodepth=4"), no_save=True,
            allow_cache=True, force=True, baseline_s=0.0,
            hosts=HostOptions(hosts="h1,h2", hosts_file="hosts.txt", min_hosts=1, host_probes=False, ssh="ssh -p 2222"),
        ),
        json_output=True,
        repeat=3,
    )
    assert options.run.hosts.wanted


def test_defaults_are_the_flags_own() -> None:
    options = RunCommandOptions.from_namespace(build_parser().parse_args(["run"]))
    assert options == RunCommandOptions(run=RunOptions(), json_output=False, repeat=1)
    assert options.run.baseline_s == 2.0 and options.run.lock_by == "iotui run"
    assert not options.run.hosts.wanted


def test_sweep_and_app_options() -> None:
    sweep = SweepOptions.from_namespace(build_parser().parse_args(
        ["sweep", "quick", "--vary", "bs=4k,64k", "--vary", "iodepth=1,8", "--format", "json", "--slo",
         "read p99<=1ms", "--dry-run", "--resume", "--yes", "--targets", "/a,/b"]
    ))
    assert (sweep.vary, sweep.output_format, sweep.slo, sweep.targets) == (
        ("bs=4k,64k", "iodepth=1,8"), "json", "read p99<=1ms", "/a,/b")
    assert sweep.dry_run and sweep.resume and sweep.yes and sweep.run.preset == "quick"
    app = AppOptions.from_namespace(build_parser().parse_args(["--target", "/t", "--preset", "quick"]))
    assert app == AppOptions(target="/t", preset="quick")
