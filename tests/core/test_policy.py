"""The option policy: names resolved as fio resolves them, then an allow-list by name and value."""

from __future__ import annotations

import pytest

from iotui.core.fio import options as fio_options
from iotui.core.fio import policy as safety
from iotui.core.fio.options import COMMAND_LINE, JOB_FILE
from iotui.core.fio.policy import PolicyError
from iotui.core.presets.files import list_presets, shipped_presets_dir
from iotui.core.presets.model import section_options

TABLE = fio_options.shipped_table()


def refused(options: dict[str, str], channel=COMMAND_LINE, engines=()) -> PolicyError:
    with pytest.raises(PolicyError) as caught:
        safety.check_options(options, "test.toml", channel=channel, engines=engines, table=TABLE)
    message = str(caught.value)
    assert message.startswith("test.toml: the option '") and "refused because" in message
    assert message.endswith("can still be run with fio directly.")
    return caught.value


# -- names, as each channel reads them ------------------------------------------------------


@pytest.mark.parametrize(
    "given, canonical",
    [("ioe", "ioengine"), ("ioeng", "ioengine"), ("ioengin", "ioengine"), ("blocksize", "bs"), ("readwrite", "rw"),
     ("readwr", "rw"), ("filesiz", "filesize"), ("bs", "bs"), ("direct", "direct"), ("timeout", "runtime"),
     ("nr_files", "nrfiles")],
)
def test_the_command_line_takes_unique_prefixes_and_aliases(given: str, canonical: str) -> None:
    assert TABLE.resolve(given, COMMAND_LINE) == canonical


@pytest.mark.parametrize("given", ["ioeng", "ioe", "filesiz", "time-based", "BS"])
def test_a_job_file_takes_exact_names_only(given: str) -> None:
    with pytest.raises(fio_options.OptionNameError) as caught:
        TABLE.resolve(given, JOB_FILE)
    assert caught.value.code == "unknown-option"


def test_ambiguous_and_duplicated_prefixes_are_ambiguous_with_candidates() -> None:
    with pytest.raises(fio_options.OptionNameError) as caught:
        TABLE.resolve("verify_s", COMMAND_LINE)
    assert caught.value.candidates == ("verify_state_load", "verify_state_save")
    # 'profile' is in fio's command-line table twice: its prefixes are ambiguous, as fio says.
    with pytest.raises(fio_options.OptionNameError):
        TABLE.resolve("prof", COMMAND_LINE)


def test_engine_options_count_only_where_the_engine_is_in_effect() -> None:
    with pytest.raises(fio_options.OptionNameError):
        TABLE.resolve("hipri", JOB_FILE)
    assert TABLE.resolve("hipri", JOB_FILE, ["io_uring"]) == "hipri"
    assert TABLE.resolve("hip", COMMAND_LINE, ["io_uring"]) == "hipri"
    assert TABLE.resolve("prog", COMMAND_LINE, ["exec"]) == "program"


def test_the_shipped_table_matches_the_installed_fio_s_own_ambiguity_list() -> None:
    # fio names every candidate of an ambiguous one-letter prefix; the table holds them in order.
    import shutil
    import subprocess

    fio = shutil.which("fio")
    if fio is None or subprocess.run([fio, "--version"], capture_output=True, text=True).stdout.strip() != TABLE.version:
        pytest.skip("the installed fio is not the version of the shipped table")
    output = subprocess.run([fio, "--parse-only", "--e=1"], capture_output=True, text=True).stderr
    listed = [name for name in TABLE.getopt_names if name.startswith("e")]
    assert "possibilities: " + " ".join(f"'--{name}'" for name in listed) in output


# -- the allow-list ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, code, words",
    [
        ({"ioe": "exec"}, "refused-engine", "runs a command"),
        ({"ioeng": "exec"}, "refused-engine", "runs a command"),
        ({"ioengin": "exec"}, "refused-engine", "runs a command"),
        ({"ioe": "external:/tmp/x.so"}, "refused-engine", "load an I/O engine's code"),
        ({"ioeng": "/tmp/x.so"}, "refused-engine", "load an I/O engine's code"),
        ({"ioengine": "libevil"}, "refused-engine", "load a library"),
        ({"ioe": "net"}, "refused-engine", "network"),
        ({"ioengine": "e4defrag"}, "refused-engine", "donorname"),
        ({"ioengine": "sg"}, "refused-engine", "devices"),
        ({"donorname": "/etc/passwd"}, "unknown-option", "e4defrag engine"),
        ({"verify_state_save": "1"}, "refused-value", "verify state"),
        ({"verify_state_load": "1"}, "refused-value", "verify state"),
        ({"buffer_pattern": "'/etc/shadow'"}, "refused-value", "read that file"),
        ({"verify_pattern": "'secret'"}, "refused-value", "read that file"),
        ({"write_bw_log": "x"}, "refused-option", "log files"),
        ({"write_iolog": "x"}, "refused-option", "log files"),
        ({"read_iolog": "x"}, "refused-option", "replays"),
        ({"replay_redirect": "/dev/sda"}, "refused-option", "device"),
        ({"replay_no_stall": "1"}, "refused-option", "replaying"),
        ({"cgroup": "x"}, "refused-option", "control group"),
        ({"cgroup_weight": "100"}, "refused-option", "control group"),
        ({"uid": "0"}, "refused-option", "another user"),
        ({"gid": "0"}, "refused-option", "another group"),
        ({"exec_prerun": "touch x"}, "refused-option", "runs a command"),
        ({"exec_pre": "touch x"}, "refused-option", "runs a command"),
        ({"filename": "/etc/passwd"}, "refused-value", "outside"),
        ({"directory": "/tmp"}, "refused-value", "outside"),
        ({"filename": "../x"}, "refused-value", "'..'"),
        ({"filename": "-"}, "refused-value", "standard input"),
        ({"unlink": "1"}, "refused-value", "removes the test files"),
        ({"mem": "mmaphuge:/x"}, "refused-value", "memory-map"),
        ({"size": "$mb_memory"}, "refused-value", "fio's own built-in values"),
        ({"runtime": "-5"}, "refused-value", "negative"),
        ({"fill_fs": "1"}, "refused-option", "full"),
        ({"file_append": "1"}, "refused-option", "past the end"),
        ({"output": "/tmp/o"}, "refused-option", "report"),
        ({"eta": "always"}, "refused-option", "reads that output"),
        ({"hostname": "127.0.0.1"}, "unknown-option", "net"),
        ({"allow_mounted_write": "1"}, "refused-option", "mounted"),
        ({"ioscheduler": "none"}, "refused-option", "scheduler"),
        ({"opendir": "x"}, "refused-option", "files of its own"),
        ({"zonemode": "zbd"}, "refused-value", "only"),
    ],
)
def test_refusals_say_what_and_why(options: dict[str, str], code: str, words: str) -> None:
    error = refused(options)
    assert error.code == code and words in str(error), str(error)
    given = next(iter(options))
    assert f"'{given}" in str(error) and error.facts["given"] == given


def test_program_is_refused_even_with_the_exec_engine_named_first() -> None:
    error = refused({"ioengine": "exec", "program": "touch"})
    assert error.facts["option"] == "ioengine"


def test_a_prefix_names_the_option_fio_reads() -> None:
    error = refused({"ioe": "exec"})
    assert "(fio reads 'ioe' as 'ioengine')" in str(error) and error.facts["option"] == "ioengine"


@pytest.mark.parametrize(
    "options",
    [{"unlink": "0"}, {"filename": "/dev/null"}, {"filename": "/dev/zero"}, {"filename": "data/file1"},
     {"directory": "work"}, {"name": "label"}, {"verify": "crc32c"}, {"verify_state_save": "0"},
     {"buffer_pattern": "0xdeadbeef"}, {"verify_pattern": '"abc"'}, {"mem": "mmap"}, {"nice": "-5"},
     {"ioengine": "io_uring", "hipri": ""}, {"ioengine": "libaio", "userspace_reap": ""},
     {"ioengine": "cpuio", "cpuload": "50"}],
)
def test_harmless_options_pass_by_value(options: dict[str, str]) -> None:
    assert set(safety.check_options(options, "x", table=TABLE)) == set(options)


@pytest.mark.parametrize("engine", sorted(safety.SAFE_ENGINES - {"solarisaio", "windowsaio"}))
def test_engines_that_do_io_on_the_test_file_pass(engine: str) -> None:
    assert safety.check_options({"ioengine": engine}, "x", table=TABLE) == {"ioengine": engine}


def test_only_canonical_names_come_out() -> None:
    checked = safety.check_options({"blocksize": "8k", "readwr": "read", "ioe": "psync"}, "x", table=TABLE)
    assert checked == {"bs": "8k", "rw": "read", "ioengine": "psync"}


def test_every_allowed_option_is_an_option_of_this_fio() -> None:
    known = set(TABLE.options) | {n for names in TABLE.engine_options.values() for n in names}
    assert safety.ALLOWED_OPTIONS - safety.TIOBENCH_PROFILE_SETTINGS <= known
    assert safety.TIOBENCH_PROFILE_SETTINGS <= set(TABLE.global_names)  # fio's tiobench profile adds them


def test_every_shipped_preset_passes_the_policy() -> None:
    found, errors = list_presets([shipped_presets_dir()])
    assert errors == [] and found
    for preset in found:
        for options in section_options(preset):
            safety.check_options(options, preset.name, table=TABLE)


# -- fio's example job files: harmless settings pass, the refused engine is the reason ------------


def test_the_tiobench_profile_s_numbers_are_inert_without_the_profile() -> None:
    # fio's steadystate and waitfor examples write threads=1: a tiobench profile setting, inert.
    assert safety.check_options({"threads": "1"}, "job.fio", channel=JOB_FILE, table=TABLE) == {"threads": "1"}
    assert refused({"profile": "tiobench"}, channel=JOB_FILE).facts["option"] == "profile"


def test_filename_format_takes_fio_s_own_naming_but_no_substitution() -> None:
    value = "fio-test.$jobname.$jobnum.$filenum"
    assert safety.check_options({"filename_format": value}, "job.fio", channel=JOB_FILE, table=TABLE) == {
        "filename_format": value}
    assert "substitution" in str(refused({"filename_format": "f.$mb_memory"}, channel=JOB_FILE))
    assert "substitution" in str(refused({"filename_format": "f.$jobnumber"}, channel=JOB_FILE))
    assert "outside" in str(refused({"filename_format": "/etc/$jobnum"}, channel=JOB_FILE))


def test_a_refused_engine_is_named_before_options_this_fio_lacks() -> None:
    # fio's nfs example: nfs_url is an option of an engine this fio was built without.
    error = refused({"nfs_url": "nfs://127.0.0.1/nfs", "ioengine": "nfs"}, channel=JOB_FILE)
    assert error.code == "refused-engine" and "over the network" in str(error)


def test_zoned_device_modes_are_refused_with_why() -> None:
    assert "zoned block device" in str(refused({"zonemode": "zbd"}, channel=JOB_FILE))
    assert safety.check_options({"zonemode": "strided"}, "job.fio", channel=JOB_FILE, table=TABLE)
