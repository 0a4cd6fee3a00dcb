"""The core's refusals say what happened; the command line and the app each add what to do in
their own terms (flags, fields), never by patching the other's sentence."""

from __future__ import annotations

import argparse
import asyncio

import pytest

from iotui.cli_common import CommandError, load_preset_from_args
from iotui.cli_options import HostOptions, RunOptions
from iotui.commands.run_remote import hosts_from_args, remote_refusal
from iotui.core.remote.plan import check_host_target, make_remote_plan
from iotui.core.remote.transport import HostFacts, RemoteError, ssh_command
from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.files import find_preset
from iotui.core.presets.model import PresetError
from iotui.ui.services import REMOTE_ADVICE as APP_ADVICE


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
