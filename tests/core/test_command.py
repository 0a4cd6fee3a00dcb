"""fio's argv: iotui's output options, its own file, sections in order."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.fio import argv as command

from iotui.core.runs import presets

from iotui.core.fio import policy as safety
from iotui.core.runs.presets import JobSection, Preset, PresetError

SHIPPED = [presets.shipped_presets_dir()]
TEST_FILE = Path("/data/.iotui-x.fio-test")


def make(options: dict[str, str], *sections: tuple[str, dict[str, str]], serial: bool = True) -> Preset:
    return Preset("p", "P", "d", "", options, tuple(JobSection(n, o) for n, o in sections), serial=serial)


def test_argv_for_a_two_section_preset() -> None:
    preset = presets.find_preset("rnd4k-q1t1", SHIPPED)
    argv = command.build_fio_argv(preset, test_file=TEST_FILE, fio_binary="/usr/bin/fio")
    assert argv[:6] == [
        "/usr/bin/fio", "--output-format=json+", "--status-interval=1", "--eta=never", "--thread",
        f"--filename={TEST_FILE}",
    ]
    first, second = argv.index("--name=randread"), argv.index("--name=randwrite")
    globals_ = argv[6:first]
    assert "--time_based" in globals_ and "--direct=1" in globals_ and "--size=1G" in globals_
    assert argv[first + 1] == "--rw=randread"
    assert argv[second + 1:] == ["--stonewall", "--rw=randwrite"]
    assert "--readonly" not in argv


def test_options_keep_their_order_and_flags_have_no_value() -> None:
    preset = make({"ioengine": "libaio", "time_based": "", "bs": "4k"}, ("a", {"rw": "read", "group_reporting": ""}))
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    assert argv[6:] == ["--ioengine=libaio", "--time_based", "--bs=4k", "--name=a", "--rw=read", "--group_reporting"]


def test_a_preset_without_sections_still_names_one_job() -> None:
    argv = command.build_fio_argv(make({"rw": "read"}), test_file=TEST_FILE)
    assert argv[-2:] == ["--rw=read", "--name=p"]


def test_job_files_keep_fio_s_own_ordering() -> None:
    preset = make({}, ("a", {}), ("b", {}), ("c", {"stonewall": ""}), serial=False)
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    assert argv[6:] == ["--name=a", "--name=b", "--name=c", "--stonewall"]
    assert argv.count("--stonewall") == 1


def test_raw_devices_run_read_only() -> None:
    preset = presets.find_preset("blocksize-table", SHIPPED)
    argv = command.build_fio_argv(preset, block_device=Path("/dev/sdz"))
    assert argv[5:7] == ["--readonly", "--filename=/dev/sdz"]
    assert "--readonly" in command.build_fio_argv(preset, test_file=TEST_FILE, readonly=True)


def test_exactly_one_destination() -> None:
    preset = presets.find_preset("quick", SHIPPED)
    with pytest.raises(ValueError):
        command.build_fio_argv(preset)
    with pytest.raises(ValueError):
        command.build_fio_argv(preset, test_file=TEST_FILE, block_device=Path("/dev/sdz"))


def test_a_colon_in_the_path_is_escaped_for_fio() -> None:
    argv = command.build_fio_argv(make({}), test_file=Path("/mnt/a:b/.iotui-x.fio-test"))
    assert "--filename=/mnt/a\\:b/.iotui-x.fio-test" in argv


def test_the_policy_is_applied_to_any_preset() -> None:
    # A Preset made in code (a sweep point, a test) never reaches fio with a refused option.
    for options, shown in (({"exec_pre": "touch /tmp/x"}, "exec_pre"), ({"filename": "/etc/passwd"}, "filename")):
        with pytest.raises(safety.PolicyError, match=f"the option '{shown}"):
            command.build_fio_argv(make(options), test_file=TEST_FILE)
        with pytest.raises(PresetError, match=f"the option '{shown}"):
            command.build_fio_argv(make({}, ("s", options)), test_file=TEST_FILE)


def test_several_files_are_numbered_after_the_test_file() -> None:
    # fio given one --filename silently uses that one file whatever nrfiles says.
    preset = make({"nrfiles": "3", "size": "3M"}, ("a", {}))
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    names = [f"{TEST_FILE}.{index}" for index in range(3)]
    assert f"--filename={':'.join(names)}" in argv
    assert command.created_file_paths(preset, TEST_FILE) == [Path(name) for name in names]
    # A raw device is one device whatever nrfiles says.
    assert "--filename=/dev/sdz" in command.build_fio_argv(preset, block_device=Path("/dev/sdz"))


def test_sections_with_their_own_file_count_get_their_own_files() -> None:
    preset = make({"size": "4M"}, ("one", {}), ("many", {"nrfiles": "2"}))
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    many = argv.index("--name=many")
    assert argv[many + 1:many + 3] == ["--stonewall", f"--filename={TEST_FILE}.0:{TEST_FILE}.1"]
    assert f"--filename={TEST_FILE}" in argv[:many]
    assert command.created_file_paths(preset, TEST_FILE) == [TEST_FILE, Path(f"{TEST_FILE}.0"), Path(f"{TEST_FILE}.1")]
    assert command.created_file_paths(make({}), TEST_FILE) == [TEST_FILE]


def test_format_command_quotes_for_the_shell() -> None:
    argv = ["fio", "--name=a b", "--bs=4k", "--description=it's"]
    text = command.format_command(argv)
    assert text.startswith("fio '--name=a b' --bs=4k ")
    assert shlex.split(text) == argv


def test_required_bytes_is_the_shared_test_file() -> None:
    assert command.required_bytes(presets.find_preset("rnd4k-q32t16", SHIPPED)) == 1 << 30
    assert command.required_bytes(make({"size": "25%"})) is None


def test_the_core_modules_never_import_textual() -> None:
    code = (
        "import sys; import iotui.core.runs.presets, iotui.core.fio.policy, iotui.core.fio.argv; "
        "print(any(name == 'textual' or name.startswith('textual.') for name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
