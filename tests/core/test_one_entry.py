"""The command line and the app start multi-host runs and sweep points through the core's one entry:
the same pre-flight, the same refusal codes, each worded in its own terms."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from iotui.cli_common import CommandError, start_refusal as cli_start_refusal
from iotui.cli_options import RunOptions
from iotui.commands import sweep as sweep_command
from iotui.commands.run_remote import hosts_start_refusal, remote_session
from iotui.core import start
from iotui.core.presets.files import find_preset
from iotui.core.start import StartError, StartRequest, start_run
from iotui.core.sweep.record import SweepPointState
from iotui.core.sweep.runner import SweepPointError
from iotui.ui.service_types import Overrides, RunRequest
from iotui.ui.services import ServiceError, Services, start_refusal as app_start_refusal

HOSTS = ("127.0.0.1", "127.0.0.2")


def _cli_args(**changes: object) -> RunOptions:
    values: dict[str, object] = {
        "hosts": ",".join(HOSTS), "hosts_file": None, "ssh": None, "min_hosts": None, "no_host_probes": False,
        "target": "/data", "fio": None, "allow_cache": False, "baseline": 0.0, "force": False, "lock_by": None,
    }
    values.update(changes)
    return RunOptions.from_namespace(argparse.Namespace(**values))


def _counting_runs_dir_checks(monkeypatch) -> list[Path]:
    checked: list[Path] = []
    real_check = start.check_runs_dir

    def counting_check(path: Path) -> None:
        checked.append(path)
        real_check(path)

    monkeypatch.setattr(start, "check_runs_dir", counting_check)
    return checked


async def _core_refusal(request: StartRequest) -> StartError:
    with pytest.raises(StartError) as raised:
        await start_run(request, lambda event: None)
    return raised.value


async def test_a_multi_host_start_refused_for_its_runs_directory_is_the_same_refusal_from_both(tmp_path, monkeypatch) -> None:
    runs_dir = tmp_path / "a-file"
    runs_dir.write_text("not a directory")
    checked = _counting_runs_dir_checks(monkeypatch)
    core = await _core_refusal(StartRequest(find_preset("quick"), target="/data", runs_dir=runs_dir, hosts=HOSTS))
    assert core.code == "runs-dir"
    # Refused before any host is reached: these addresses are never connected to.
    with pytest.raises(CommandError) as cli:
        await remote_session(_cli_args(), find_preset("quick"), runs_dir=runs_dir, on_event=lambda event: None)
    assert str(cli.value) == cli_start_refusal(core) and "--runs-dir" in str(cli.value)
    services = Services(runs_dir=runs_dir, baseline_s=0)
    target = services.inspect_target(str(tmp_path))
    with pytest.raises(ServiceError) as app:
        await services.make_session(RunRequest(find_preset("quick"), target, hosts=HOSTS), lambda event: None)
    assert str(app.value) == app_start_refusal(core) == str(core)
    assert checked == [runs_dir] * 3


async def test_a_host_refusal_carries_the_remote_code_as_its_key_for_both(tmp_path, monkeypatch) -> None:
    core = await _core_refusal(StartRequest(find_preset("quick"), target="/data", hosts=HOSTS, ssh="'unclosed"))
    assert (core.code, core.key) == ("hosts-refused", "ssh-command")
    with pytest.raises(CommandError) as cli:
        await remote_session(_cli_args(ssh="'unclosed"), find_preset("quick"), runs_dir=None, on_event=lambda event: None)
    assert str(cli.value) == hosts_start_refusal(core)
    assert str(cli.value).startswith(str(core)) and str(cli.value).endswith(
        "Give one with --ssh or IOTUI_SSH. The run did not start on any host."
    )
    monkeypatch.setenv("IOTUI_SSH", "'unclosed")
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    with pytest.raises(ServiceError) as app:
        await services.make_session(
            RunRequest(find_preset("quick"), services.inspect_target(str(tmp_path)), hosts=HOSTS), lambda event: None
        )
    assert str(app.value) == f"{core} Set IOTUI_SSH to the ssh command to use. Nothing started on any host."


def test_sysbench_with_hosts_is_refused_by_the_core_and_worded_by_the_command_line(tmp_path) -> None:
    with pytest.raises(StartError) as raised:
        start.start_sysbench_run(StartRequest(find_preset("quick"), target=str(tmp_path), hosts=HOSTS), lambda event: None)
    assert raised.value.code == "sysbench-hosts"
    assert hosts_start_refusal(raised.value) == "sysbench points run on this machine only; drop --hosts for them."


async def test_the_command_line_and_the_app_start_sweep_points_with_one_factory(tmp_path, monkeypatch) -> None:
    runs_dir = tmp_path / "a-file"
    runs_dir.write_text("not a directory")
    captured = []

    class CapturingRunner:
        def __init__(self, sweep, *, start_point, **kwargs) -> None:
            captured.append(start_point)

        async def run(self):
            raise CommandError("captured")

    monkeypatch.setattr(sweep_command, "SweepRunner", CapturingRunner)
    monkeypatch.setattr(sweep_command, "find_sysbench", lambda: None)
    args = argparse.Namespace(
        preset="quick", job_file=None, target=str(tmp_path), runtime="2", size="1M", set=None, no_save=False,
        vary=["bs=4k,8k"], targets=None, resume=False, format="text", dry_run=False, slo=None, yes=True,
        baseline=0.0, runs_dir=str(runs_dir), allow_cache=False, force=False, fio=None, lock_by=None,
        hosts=None, hosts_file=None, ssh=None, min_hosts=None, no_host_probes=False,
    )
    with pytest.raises(CommandError, match="captured"):
        await sweep_command._run(sweep_command.SweepOptions.from_namespace(args))
    services = Services(runs_dir=runs_dir, baseline_s=0)
    setup = services.plan_sweep(find_preset("quick"), str(tmp_path), "bs=4k,8k", Overrides(runtime_s=2, size="1M"))
    captured.append(services.make_sweep_runner(setup, lambda event: None).start_point)
    assert [start_point.__qualname__ for start_point in captured] == ["point_starter.<locals>.start_point"] * 2
    # The same point refused the same way by both (the runs directory cannot take its record).
    sentences = []
    for start_point in captured:
        with pytest.raises(SweepPointError) as refused:
            await start_point(SweepPointState(index=0, params={"bs": "4k"}), lambda event: None)
        sentences.append(str(refused.value))
    assert sentences[0].startswith(sentences[1]) and sentences[0].endswith("Choose another with --runs-dir (or run with --no-save).")


def test_the_apps_request_carries_the_hosts_and_their_probes_switch_to_the_core(tmp_path) -> None:
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0, lock_by="the app in a browser")
    chosen = services.inspect_target(str(tmp_path))
    local = services.start_request(RunRequest(find_preset("quick"), chosen))
    assert (local.hosts, local.lock_by) == ((), "the app in a browser")
    assert local.target is chosen  # the target in its one form, as chosen
    remote = services.start_request(RunRequest(find_preset("quick"), chosen, hosts=HOSTS, host_probes=False))
    assert (remote.hosts, remote.host_probes, remote.target) == (HOSTS, False, str(chosen.path))  # a path on each host
