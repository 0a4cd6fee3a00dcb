"""fio's argv: iotui's output options, its own file, sections in order."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.presets import argv as command
from iotui.core.fio import policy as safety
from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.presets.model import JobSection, Preset, PresetError

SHIPPED = [shipped_presets_dir()]
PRIVATE = Path("/data/.iotui-0123456789abcdef")
TEST_FILE = PRIVATE / "testfile"


def make(options: dict[str, str], *sections: tuple[str, dict[str, str]], serial: bool = True) -> Preset:
    return Preset("p", "P", "d", "", options, tuple(JobSection(n, o) for n, o in sections), serial=serial)


def test_argv_for_a_two_section_preset() -> None:
    preset = find_preset("rnd4k-q1t1", SHIPPED)
    argv = command.build_fio_argv(preset, test_file=TEST_FILE, fio_binary="/usr/bin/fio")
    assert argv[:5] == ["/usr/bin/fio", "--output-format=json+", "--status-interval=1", "--eta=never", "--thread"]
    first, second = argv.index("--name=randread"), argv.index("--name=randwrite")
    globals_ = argv[5:first]
    assert "--time_based" in globals_ and "--direct=1" in globals_ and "--size=1G" in globals_
    assert argv[first + 1:first + 3] == [f"--filename={TEST_FILE}", "--rw=randread"]
    assert argv[second + 1:] == ["--stonewall", f"--filename={TEST_FILE}", "--rw=randwrite"]
    assert "--readonly" not in argv


def test_options_keep_their_order_and_flags_have_no_value() -> None:
    preset = make({"ioengine": "libaio", "time_based": "", "bs": "4k"}, ("a", {"rw": "read", "group_reporting": ""}))
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    assert argv[5:] == [
        "--ioengine=libaio", "--time_based", "--bs=4k", "--name=a", f"--filename={TEST_FILE}", "--rw=read",
        "--group_reporting",
    ]


def test_a_preset_without_sections_still_names_one_job() -> None:
    argv = command.build_fio_argv(make({"rw": "read"}), test_file=TEST_FILE)
    assert argv[-3:] == ["--rw=read", "--name=p", f"--filename={TEST_FILE}"]


def test_job_files_keep_fio_s_own_ordering() -> None:
    preset = make({}, ("a", {}), ("b", {}), ("c", {"stonewall": ""}), serial=False)
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    file_arg = f"--filename={TEST_FILE}"
    assert argv[5:] == ["--name=a", file_arg, "--name=b", file_arg, "--name=c", file_arg, "--stonewall"]
    assert argv.count("--stonewall") == 1


def test_raw_devices_run_read_only() -> None:
    preset = find_preset("blocksize-table", SHIPPED)
    argv = command.build_fio_argv(preset, block_device=Path("/dev/sdz"))
    assert argv[5:7] == ["--readonly", "--filename=/dev/sdz"]
    assert "--readonly" in command.build_fio_argv(preset, test_file=TEST_FILE, readonly=True)


def test_exactly_one_destination() -> None:
    preset = find_preset("quick", SHIPPED)
    with pytest.raises(ValueError):
        command.build_fio_argv(preset)
    with pytest.raises(ValueError):
        command.build_fio_argv(preset, test_file=TEST_FILE, block_device=Path("/dev/sdz"))


def test_a_colon_in_the_path_is_escaped_for_fio() -> None:
    argv = command.build_fio_argv(make({}), test_file=Path("/mnt/a:b/.iotui-x/testfile"))
    assert "--filename=/mnt/a\\:b/.iotui-x/testfile" in argv


def test_the_policy_is_applied_to_any_preset() -> None:
    # A Preset made in code (a sweep point, a test) never reaches fio with a refused option.
    for options, shown in (({"exec_pre": "touch /tmp/x"}, "exec_pre"), ({"filename": "/etc/passwd"}, "filename")):
        with pytest.raises(safety.PolicyError, match=f"the option '{shown}"):
            command.build_fio_argv(make(options), test_file=TEST_FILE)
        with pytest.raises(PresetError, match=f"the option '{shown}"):
            command.build_fio_argv(make({}, ("s", options)), test_file=TEST_FILE)


def test_several_files_are_fio_s_own_inside_the_private_directory() -> None:
    # No list of names on the command line (nrfiles=3000 would not fit): directory= and fio's naming.
    preset = make({"nrfiles": "3000", "size": "3M"}, ("a", {}))
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    assert f"--directory={PRIVATE}" in argv and not any(arg.startswith("--filename") for arg in argv)
    assert command.created_file_paths(preset, TEST_FILE) == []
    # A raw device is one device whatever nrfiles says.
    assert "--filename=/dev/sdz" in command.build_fio_argv(preset, block_device=Path("/dev/sdz"))


def test_sections_with_their_own_file_count_get_the_directory() -> None:
    preset = make({"size": "4M"}, ("one", {}), ("many", {"nrfiles": "2"}))
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    many = argv.index("--name=many")
    assert argv[many + 1:many + 3] == ["--stonewall", f"--directory={PRIVATE}"]
    assert f"--filename={TEST_FILE}" in argv[:many]
    assert command.created_file_paths(preset, TEST_FILE) == [TEST_FILE]


def test_a_job_s_relative_names_are_placed_inside_the_private_directory() -> None:
    preset = Preset("p", "P", "d", "", {}, (
        JobSection("a", {"filename": "data/f1:f2"}), JobSection("b", {"directory": "w", "filename": "x"}),
        JobSection("c", {"filename": "/dev/null"}),
    ), serial=False)
    argv = command.build_fio_argv(preset, test_file=TEST_FILE)
    assert f"--filename={PRIVATE}/data/f1:{PRIVATE}/f2" in argv
    assert f"--directory={PRIVATE}/w" in argv and "--filename=x" in argv
    assert "--filename=/dev/null" in argv
    assert command.placement_dirs(preset, PRIVATE) == [PRIVATE / "data", PRIVATE / "w"]
    assert command.created_file_paths(preset, TEST_FILE) == []


def test_a_global_name_is_a_label_never_a_new_job() -> None:
    argv = command.build_fio_argv(make({"name": "label", "rw": "read"}, ("a", {})), test_file=TEST_FILE)
    assert "--name=label" not in argv and argv.count("--name=a") == 1


def test_the_engine_comes_before_its_own_options() -> None:
    argv = command.build_fio_argv(make({"hipri": "", "ioengine": "io_uring"}), test_file=TEST_FILE)
    assert argv.index("--ioengine=io_uring") < argv.index("--hipri")


def test_format_command_quotes_for_the_shell() -> None:
    argv = ["fio", "--name=a b", "--bs=4k", "--description=it's"]
    text = command.format_command(argv)
    assert text.startswith("fio '--name=a b' --bs=4k ")
    assert shlex.split(text) == argv


def test_required_bytes_is_the_shared_test_file() -> None:
    assert command.required_bytes(find_preset("rnd4k-q32t16", SHIPPED)) == 1 << 30
    assert command.required_bytes(make({"size": "25%"})) is None


@pytest.mark.parametrize(
    "options, expected",
    [
        ({"size": "8M", "filesize": "200M"}, 200 << 20),  # --size 8M --set filesiz=200M
        ({"size": "8M", "numjobs": "4"}, 8 << 20),  # clones share the one test file
        ({"size": "8M", "numjobs": "4", "nrfiles": "2"}, 4 * (8 << 20)),  # fio's own files per clone
        ({"filesize": "1M", "nrfiles": "3", "numjobs": "2"}, 2 * 3 * (1 << 20)),
        ({"io_size": "5M"}, 5 << 20),
        ({"size": "8M", "directory": "d", "numjobs": "3"}, 3 * (8 << 20)),
        ({"size": "8M", "filename": "f", "numjobs": "3"}, 8 << 20),
    ],
)
def test_required_bytes_follow_each_section_s_effective_size(options: dict[str, str], expected: int) -> None:
    assert command.required_bytes(make(options)) == expected


def test_the_core_modules_never_import_textual() -> None:
    code = (
        "import sys; import iotui.core.presets.files, iotui.core.presets.overrides, iotui.core.presets.job_file; "
        "import iotui.core.fio.policy, iotui.core.presets.argv; "
        "print(any(name == 'textual' or name.startswith('textual.') for name in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
