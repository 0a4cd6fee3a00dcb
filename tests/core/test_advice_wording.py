"""The core's refusals say what happened; the command line and the app each add what to do in
their own terms (flags, fields), never by patching the other's sentence."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import pytest

from iotui.cli_common import TARGET_ADVICE as CLI_TARGET_ADVICE
from iotui.cli_common import CommandError, load_preset_from_args, start_refusal
from iotui.cli_options import HostOptions, RunOptions
from iotui.commands.run_remote import hosts_from_args, remote_refusal
from iotui.commands.sweep import worded
from iotui.core.presets.job_file import load_job_file
from iotui.core.remote.plan import check_host_target, make_remote_plan
from iotui.core.remote.transport import HostFacts, RemoteError, ssh_command
from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.files import find_preset
from iotui.core.presets.model import PresetError
from iotui.core.start import StartError, StartRequest, plan_run, start_run
from iotui.core.sweep.plan import SweepPlanError
from iotui.core.sweep.prepare import prepare_sweep
from iotui.ui.services import REMOTE_ADVICE as APP_ADVICE
from iotui.ui.services import TARGET_ADVICE as APP_TARGET_ADVICE
from iotui.ui.services import start_refusal as app_start_refusal


def _facts(**changes: object) -> HostFacts:
    values: dict = {"name": "h1", "tool_version": "fio-3.33", "kernel": "6.1", "path": "/data", "filesystem": "ext4",
                    "device": "/dev/sdb1", "mount_point": "/data", "free_bytes": 1 << 40, "writable": True}
    values.update(changes)
    return HostFacts(**values)


def test_the_core_names_no_flag_and_the_command_line_adds_one() -> None:
    with pytest.raises(RemoteError) as read_only:
        check_host_target(_facts(writable=False), needs_bytes=None, allow_cache=False)
    with pytest.raises(RemoteError) as memory:
        check_host_target(_facts(filesystem="tmpfs"), needs_bytes=None, allow_cache=False)
    with pytest.raises(RemoteError) as no_hosts:
        asyncio.run(make_remote_plan(find_preset("quick"), [], ["ssh"], None))
    with pytest.raises(RemoteError) as empty_ssh:
        ssh_command(" ", env={})
    refusals = [read_only.value, memory.value, no_hosts.value, empty_ssh.value]
    assert [error.code for error in refusals] == ["target-read-only", "target-memory", "no-hosts", "ssh-command"]
    for error in refusals:
        assert "--" not in str(error), str(error)
        assert remote_refusal(error).startswith(str(error))
        assert APP_ADVICE[error.code] and "--" not in APP_ADVICE[error.code]
    assert remote_refusal(read_only.value).endswith("with --target.")
    assert "--allow-cache" in remote_refusal(memory.value)
    assert "--hosts h1,h2" in remote_refusal(no_hosts.value)
    assert "--ssh" in remote_refusal(empty_ssh.value)


def test_no_hosts_on_the_command_line_names_the_flags() -> None:
    with pytest.raises(CommandError, match="^No hosts were given. Name them with --hosts h1,h2 or --hosts-file FILE.$"):
        hosts_from_args(HostOptions())


def test_an_override_refused_on_the_command_line_names_its_flag_and_in_the_core_its_key() -> None:
    with pytest.raises(CommandError, match="^--runtime should be a number of seconds above 0"):
        load_preset_from_args(RunOptions.from_namespace(argparse.Namespace(preset="quick", runtime=0.0)))
    with pytest.raises(CommandError, match="^--size should be a size such as 4k"):
        load_preset_from_args(RunOptions(preset="quick", size="64Q"))
    with pytest.raises(CommandError, match="^--set: the option 'write_lat_log=/tmp/x' is refused"):
        load_preset_from_args(RunOptions(preset="quick", sets=("write_lat_log=/tmp/x",)))
    with pytest.raises(PresetError, match="^runtime should be a number of seconds above 0") as refused:
        with_overrides(find_preset("quick"), runtime_s=0)
    assert refused.value.key == "runtime"


def _refused_start(request: StartRequest) -> StartError:
    with pytest.raises(StartError) as refused:
        plan_run(request, "fio")
    return refused.value


def test_a_refused_target_names_the_flag_on_the_command_line_and_the_field_in_the_app(tmp_path) -> None:
    job = tmp_path / "half.fio"
    job.write_text("[x]\nrw=write\nsize=50%\n")  # a percentage of a file not made yet: no size to check
    refusals = {
        "target-missing": _refused_start(StartRequest(find_preset("quick"), target=str(tmp_path / "absent"))),
        "size-unknown": _refused_start(StartRequest(load_job_file(job), target=str(tmp_path))),
    }
    if Path("/dev/shm").is_dir():
        refusals["target-memory"] = _refused_start(StartRequest(find_preset("quick"), target="/dev/shm"))
    for code, error in refusals.items():
        assert (error.code, error.key) == ("refused", code)
        assert "--" not in str(error), str(error)
        assert start_refusal(error) == f"{error} {CLI_TARGET_ADVICE[code]}"
        assert app_start_refusal(error) == f"{error} {APP_TARGET_ADVICE[code]}"
        assert "--" not in app_start_refusal(error)
    assert start_refusal(refusals["target-missing"]).endswith("does not exist. Give an existing directory with --target.")
    assert start_refusal(refusals["size-unknown"]).endswith("Give the run a size with --size.")
    assert "size" in APP_TARGET_ADVICE["size-unknown"] and "options" in APP_TARGET_ADVICE["size-unknown"]
    if "target-memory" in refusals:
        assert "--allow-cache" in start_refusal(refusals["target-memory"])


def test_every_target_code_has_words_in_both_front_ends() -> None:
    assert set(CLI_TARGET_ADVICE) == set(APP_TARGET_ADVICE)
    assert all("--" in advice for advice in CLI_TARGET_ADVICE.values())
    assert not any("--" in advice for advice in APP_TARGET_ADVICE.values())


def test_a_sweep_or_hosts_run_without_a_size_names_the_flag_only_on_the_command_line(tmp_path) -> None:
    job = tmp_path / "half.fio"
    job.write_text("[x]\nrw=write\nsize=50%\n")
    preset = load_job_file(job)
    with pytest.raises(SweepPlanError) as sweep:
        prepare_sweep(preset, vary=["numjobs=1,2"], base={}, target=str(tmp_path))
    assert sweep.value.code == "size-unknown" and "--" not in str(sweep.value)
    assert worded(sweep.value) == f"{sweep.value} Give the sweep a size with --size."
    with pytest.raises(RemoteError) as hosts:
        asyncio.run(make_remote_plan(preset, ["h1"], ["ssh"], None))
    assert hosts.value.code == "size-unknown" and "--" not in str(hosts.value)
    assert remote_refusal(hosts.value).endswith("Give the run a size with --size.")
    assert "--" not in APP_ADVICE["size-unknown"]


async def test_a_fio_path_given_that_is_not_there_is_not_told_to_give_the_path(tmp_path, monkeypatch) -> None:
    given = str(tmp_path / "no-fio")
    with pytest.raises(StartError) as refused:
        await start_run(StartRequest(find_preset("quick"), target=str(tmp_path), fio=given), lambda event: None)
    sentence = start_refusal(refused.value)
    assert sentence.startswith(f"The fio given, {given}, does not exist")
    assert "--fio" not in sentence and "IOTUI_FIO" not in sentence and "apt-get install fio" in sentence
    a_file = tmp_path / "not-fio"
    a_file.write_text("")
    with pytest.raises(StartError, match=f"^The fio given, {a_file}, is not an executable file"):
        await start_run(StartRequest(find_preset("quick"), target=str(tmp_path), fio=str(a_file)), lambda event: None)
    # Not given (IOTUI_FIO names it): the command line tells of its own way to name one.
    monkeypatch.setenv("IOTUI_FIO", given)
    with pytest.raises(StartError) as from_env:
        await start_run(StartRequest(find_preset("quick"), target=str(tmp_path)), lambda event: None)
    assert start_refusal(from_env.value).endswith("The command line also takes it as --fio PATH.")
