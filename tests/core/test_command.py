"""fio's argv: iotui's output options, its own file, sections in order."""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.core import command, presets


def test_argv_for_a_two_section_preset() -> None:
    preset = presets.find_preset("rnd4k-q1t1", [presets.shipped_presets_dir()])
    argv = command.build_fio_argv(preset, test_file=Path("/data/.iotui-x.fio-test"), fio_binary="/usr/bin/fio")
    assert argv[:4] == ["/usr/bin/fio", "--output-format=json+", "--status-interval=1", "--eta=never"]
    assert "--filename=/data/.iotui-x.fio-test" in argv
    assert "--time_based" in argv and "--direct=1" in argv
    first, second = argv.index("--name=randread"), argv.index("--name=randwrite")
    assert first < second
    assert argv[second + 1] == "--stonewall"
    assert argv[first + 1] == "--rw=randread"
    assert "--readonly" not in argv


def test_raw_devices_run_read_only() -> None:
    preset = presets.find_preset("blocksize-table", [presets.shipped_presets_dir()])
    argv = command.build_fio_argv(preset, block_device=Path("/dev/sdz"))
    assert "--readonly" in argv and "--filename=/dev/sdz" in argv


def test_exactly_one_destination() -> None:
    preset = presets.find_preset("quick", [presets.shipped_presets_dir()])
    with pytest.raises(ValueError):
        command.build_fio_argv(preset)


def test_format_command_quotes_for_the_shell() -> None:
    assert command.format_command(["fio", "--name=a b", "--bs=4k"]) == "fio '--name=a b' --bs=4k"
