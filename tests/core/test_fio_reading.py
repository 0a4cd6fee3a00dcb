"""One reading of every value, fio's own: sizes, file lists, engine spellings, job names, buffers.

The sizes here are checked against fio 3.33 itself in tests/e2e/test_fio_size_reading.py.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from iotui.core.fio import policy
from iotui.core.presets.argv import build_fio_argv, checked_preset, name_in_file_names
from iotui.core.host.memory import buffers_problem, mem_available_bytes
from iotui.core.remote import plan as remote_plan
from iotui.core.remote.plan import fio_args_for
from iotui.core.remote.transport import HostFacts, RemoteError
from iotui.core.presets.estimate import buffer_estimate, disk_estimate
from iotui.core.presets.job_file import parse_job_file_text
from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.model import JobSection, Preset, PresetError, PresetPolicyError

MIB = 1 << 20


def _preset(options: dict[str, str], jobs: dict[str, dict[str, str]] | None = None, serial: bool = False) -> Preset:
    sections = tuple(JobSection(name, dict(own)) for name, own in (jobs or {}).items())
    return Preset(name="p", title="p", description="", tells="", options=dict(options), jobs=sections, serial=serial)


# -- sizes -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, expected_bytes",
    [
        ({"filesize": "0x20000000"}, 512 * MIB),
        ({"filesize": "+512M"}, 512 * MIB),
        ({"size": "1M", "offset": "0x20000000"}, 512 * MIB + MIB),
        ({"filename": "a:b:c:d:e:f:g:h", "filesize": "40M"}, 8 * 40 * MIB),
        ({"filename": "a:b:c", "size": "120M"}, 120 * MIB),  # size is the total over the files
        ({"filesize": "1M-4M"}, 4 * MIB),  # a range: its larger end
        ({"nrfiles": "0x4", "filesize": "1M"}, 4 * MIB),  # fio's integers take hex and suffixes too
        ({"nrfiles": "1k", "filesize": "4k"}, 1024 * 4096),
        ({"filesize": "1MiB"}, 10**6),  # kb_base=1024 (fio's default): MiB is a power of 1000
        ({"filesize": "1MiB", "kb_base": "1000"}, MIB),
        ({"filesize": "1M", "kb_base": "1000"}, 10**6),
        ({"filesize": "2Gb"}, 2 << 30),
    ],
)
def test_the_free_space_check_reads_sizes_as_fio_does(options: dict[str, str], expected_bytes: int) -> None:
    assert disk_estimate(_preset(options)) == (expected_bytes, None)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"size": "50%"}, "a percentage of a file that does not exist yet"),
        ({"size": "1M", "offset": "10%"}, "offset=10% is a percentage"),
        ({"filesize": "1.5G"}, "filesize=1.5G is not a size"),  # fio reads 1.5G as 1 byte
        ({"size": "4 k"}, "size=4 k is not a size"),  # fio reads 4 k as 4 bytes
        ({"size": "1e"}, "size=1e is not a size"),
        ({"size": "1M", "offset": "0x1k"}, "offset=0x1k is not a size"),  # fio: 1 (the k is ignored)
        ({"size": "1M", "offset": "junk"}, "offset=junk is not a size"),  # was counted as 0
        ({"size": "1M", "filesize": "junk"}, "filesize=junk is not a size"),  # was counted as size
        ({"rw": "write"}, "it has no size"),
    ],
)
def test_an_unreadable_size_is_refused_not_guessed(options: dict[str, str], words: str) -> None:
    disk_bytes, why = disk_estimate(_preset(options))
    assert disk_bytes is None and why is not None and words in why


def test_a_section_s_unreadable_size_names_the_section() -> None:
    _, why = disk_estimate(_preset({"size": "1M"}, {"a": {}, "b": {"offset": "1.5M"}}))
    assert why is not None and why.startswith("preset p [b]: offset=1.5M")


# -- memory --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, expected_bytes",
    [
        ({}, 4096),
        ({"numjobs": "4", "iodepth": "32", "bs": "1M"}, 4 * 32 * MIB),
        ({"numjobs": "2", "iodepth": "8", "bs": "4k,64k"}, 2 * 8 * 65536),
        ({"iodepth": "4", "bsrange": "1k-256k"}, 4 * 256 * 1024),
        ({"iodepth": "2", "bssplit": "4k/50:1M/50"}, 2 * MIB),
        ({"iodepth": "2", "bs": "1M", "verify": "crc32c"}, 2 * 2 * MIB),
    ],
)
def test_the_buffers_are_numjobs_iodepth_and_the_largest_block(options: dict[str, str], expected_bytes: int) -> None:
    assert buffer_estimate(_preset(options))[0] == expected_bytes


def test_sections_that_run_together_add_their_buffers_and_a_stonewall_separates_them() -> None:
    together = _preset({"bs": "1M"}, {"a": {"iodepth": "8"}, "b": {"iodepth": "4"}})
    assert buffer_estimate(together)[0] == 12 * MIB
    apart = _preset({"bs": "1M"}, {"a": {"iodepth": "8"}, "b": {"iodepth": "4", "stonewall": ""}})
    assert buffer_estimate(apart)[0] == 8 * MIB


def test_buffers_that_exceed_mem_available_are_refused_with_the_figures(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       2048000 kB\nMemAvailable:    1024000 kB\n")
    available = mem_available_bytes(meminfo)
    assert available == 1024000 * 1024
    needs, how = buffer_estimate(_preset({"numjobs": "16", "iodepth": "64", "bs": "1M"}))
    problem = buffers_problem(needs, how, available)
    assert problem is not None and "1,024 MiB" in problem and "1,000 MiB available" in problem
    assert "numjobs 16 x iodepth 64" in problem
    assert buffers_problem(needs, how, None) is None and buffers_problem(MIB, how, available) is None


# -- one spelling for enumerated values -------------------------------------------------------------


@pytest.mark.parametrize("engine", ["sync ", " psync", "  libaio  "])
def test_an_engine_is_judged_and_passed_in_one_spelling(engine: str) -> None:
    preset = _preset({"ioengine": engine, "size": "1M"})
    argv = build_fio_argv(preset, test_file=Path("/t/.iotui-x/testfile"))
    assert f"--ioengine={engine.strip(' ')}" in argv
    assert not any(arg.startswith("--ioengine=") and arg != f"--ioengine={engine.strip(' ')}" for arg in argv)


@pytest.mark.parametrize("engine", ["libaio\u00a0", "\u00a0sync", "sync\u2003", "lib aio", "Sync", "sync\u200b"])
def test_an_engine_fio_would_not_read_as_the_allowed_word_is_refused(engine: str) -> None:
    with pytest.raises(policy.PolicyError) as caught:
        policy.check_options({"ioengine": engine}, "test")
    assert caught.value.code == "refused-engine"


def test_non_ascii_is_refused_in_a_word_but_kept_in_a_file_name() -> None:
    with pytest.raises(policy.PolicyError, match="U\\+00A0"):
        policy.check_options({"rw": "write\u00a0"}, "test")
    assert policy.check_options({"filename": "données"}, "test") == {"filename": "données"}


def test_a_job_file_keeps_a_no_break_space_for_the_policy_to_judge() -> None:
    # Python's str.strip() drops U+00A0; fio's parser (C's isspace) does not.
    _, sections = parse_job_file_text("[x]\nioengine=libaio\u00a0\n", "j.fio")
    assert sections[0].options == {"ioengine": "libaio\u00a0"}
    _, sections = parse_job_file_text("[x]\nioengine=libaio\u2028exec_prerun=touch CANARY\n", "j.fio")
    assert sections[0].options == {"ioengine": "libaio\u2028exec_prerun=touch CANARY"}  # one line for fio


def test_a_set_value_reaches_the_argv_in_the_judged_spelling() -> None:
    preset = with_overrides(_preset({"size": "1M"}), sets={"ioengine": "psync ", "rw": " randread"})
    argv = build_fio_argv(preset, test_file=Path("/t/.iotui-x/testfile"))
    assert "--ioengine=psync" in argv and "--rw=randread" in argv


# -- job names that become file names ---------------------------------------------------------------


@pytest.mark.parametrize(
    "options, in_file_names",
    [
        ({}, False),  # iotui's shared test file
        ({"filename": "f"}, False),
        ({"nrfiles": "2"}, True),
        ({"nrfiles": "0x2"}, True),
        ({"directory": "sub"}, True),
        ({"directory": "sub", "filename": "f"}, False),
        ({"filename": "f", "nrfiles": "2"}, True),
        ({"filename_format": "$jobname"}, True),
        ({"filename_format": "x.$filenum"}, False),
    ],
)
def test_when_a_job_s_name_becomes_part_of_a_file_name(options: dict[str, str], in_file_names: bool) -> None:
    assert name_in_file_names(options) is in_file_names


@pytest.mark.parametrize("name", ["../../../../OUTSIDE/CANARY", "a/b", ".hidden", "-x", "x y", "na\u00efve", "..", ""])
@pytest.mark.parametrize("options", [{"nrfiles": "2"}, {"directory": "sub"}, {"filename_format": "$jobname", "nrfiles": "2"}])
def test_a_job_name_that_would_be_a_path_is_refused(name: str, options: dict[str, str]) -> None:
    preset = _preset({"size": "1M", "rw": "write"}, {name: options})
    with pytest.raises(PresetPolicyError) as caught:
        checked_preset(preset)
    assert caught.value.facts["option"] == "name" and "part of its file names" in str(caught.value)


def test_other_names_keep_their_spelling() -> None:
    preset = _preset({"size": "1M"}, {"burn_2x50%_qsort": {}, "sequential aio-dio write": {"filename": "f"},
                                      "job.1-a_b": {"nrfiles": "2"}})
    argv = build_fio_argv(preset, test_file=Path("/t/.iotui-x/testfile"))
    assert "--name=burn_2x50%_qsort" in argv and "--name=sequential aio-dio write" in argv
    assert "--name=job.1-a_b" in argv


def test_a_job_file_s_name_option_is_judged_as_the_name() -> None:
    _, sections = parse_job_file_text("[x]\nname=../../CANARY\nrw=write\ndirectory=sub\n", "j.fio")
    with pytest.raises(PresetPolicyError):
        checked_preset(_preset({"size": "1M"}, {section.name: section.options for section in sections}))


def test_a_section_s_kb_base_reads_the_section_s_sizes_only() -> None:
    assert disk_estimate(_preset({"size": "1M"}, {"x": {"kb_base": "1000"}})) == (MIB, None)
    assert disk_estimate(_preset({"kb_base": "1000"}, {"x": {"size": "1M"}})) == (10**6, None)
    argv = build_fio_argv(_preset({"size": "1M", "kb_base": "1000"}), test_file=Path("/t/.iotui-x/testfile"))
    assert argv.index("--kb_base=1000") < argv.index("--size=1M")


# -- the remote path -----------------------------------------------------------------------------------


def _facts(host: str, mem_available_bytes: int | None) -> HostFacts:
    return HostFacts(name=host, tool_version="fio-3.33", kernel="6.1", path="/data", filesystem="ext4",
                     device="/dev/sda1", mount_point="/", free_bytes=100 << 30, writable=True,
                     mem_available_bytes=mem_available_bytes)


def test_the_remote_job_passes_the_same_name_check() -> None:
    preset = _preset({"size": "1M"}, {"../../../../CANARY": {"nrfiles": "2"}})
    with pytest.raises(PresetPolicyError):
        fio_args_for(preset)
    with pytest.raises(RemoteError) as caught:
        asyncio.run(remote_plan.make_remote_plan(preset, ["a"], ["ssh"], None))
    assert caught.value.code == "policy" and "part of its file names" in str(caught.value)


def test_each_host_s_memory_is_checked_and_an_unreadable_size_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    memory = {"roomy": 64 << 30, "small": 256 << 20, "silent": None}

    async def preflight(self: object, host: str, target: str | None, timeout_s: float = 0) -> HostFacts:
        return _facts(host, memory[host])

    monkeypatch.setattr(remote_plan.HostConnections, "preflight", preflight)
    preset = _preset({"size": "1M", "numjobs": "4", "iodepth": "128", "bs": "1M"})
    asyncio.run(remote_plan.make_remote_plan(preset, ["roomy", "silent"], ["ssh"], None))
    with pytest.raises(RemoteError) as caught:
        asyncio.run(remote_plan.make_remote_plan(preset, ["roomy", "small"], ["ssh"], None))
    assert caught.value.code == "memory" and caught.value.host == "small"
    assert "512 MiB" in str(caught.value) and "256 MiB available" in str(caught.value)
    with pytest.raises(RemoteError) as caught:
        asyncio.run(remote_plan.make_remote_plan(_preset({"filesize": "0x1k"}), ["roomy"], ["ssh"], None))
    assert caught.value.code == "size-unknown" and "filesize=0x1k" in str(caught.value)


def test_an_enumerated_word_is_compared_exactly_as_fio_compares_it() -> None:
    # fio reads zonemode case by case ("STRIDED" is no mode of its): the word judged is the word it gets.
    assert policy.check_options({"zonemode": "strided "}, "test") == {"zonemode": "strided"}
    for spelling in ("STRIDED", "None", "strided\u00a0"):
        with pytest.raises(policy.PolicyError):
            policy.check_options({"zonemode": spelling}, "test")


@pytest.mark.parametrize("spelling", ["9223372036854775808", "8388608T", "0x8000000000000000", "1" + "0" * 400])
def test_a_size_beyond_fio_s_64_bits_is_refused_not_overflowed(spelling: str) -> None:
    # fio reads the number with strtoll and multiplies in 64 bits: it refuses or wraps these.
    _, why = disk_estimate(_preset({"size": spelling}))
    assert why is not None and "is not a size" in why


@pytest.mark.parametrize("name", ["\x1b[2J", "${HOME}", "$jobname"])
def test_a_name_option_follows_the_section_header_s_rule(name: str) -> None:
    with pytest.raises(PresetError, match="characters fio would expand"):
        parse_job_file_text(f"[x]\nname={name}\nrw=read\n", "j.fio")
    with pytest.raises(PresetError, match="characters fio would expand"):
        parse_job_file_text(f"[{name}]\nrw=read\n", "j.fio")
