"""Presets and job files: loading, validation, overrides, estimates, portability."""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.core.fio import policy as safety
from iotui.core.fio.units import parse_seconds, parse_size_bytes
from iotui.core.presets.estimate import estimate
from iotui.core.presets.job_file import load_job_file
from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.files import find_preset, list_presets, load_preset_file, preset_dirs, shipped_presets_dir, user_presets_dir
from iotui.core.presets.model import JobSection, Preset, PresetError, PresetPolicyError, section_option, section_options, uses_direct_io
from iotui.core.presets.platform import for_platform

SHIPPED = [shipped_presets_dir()]
REQUIRED_SHIPPED = {
    "quick", "seq1m-q8t1", "seq1m-q1t1", "rnd4k-q32t1", "rnd4k-q1t1", "rnd4k-q32t16", "randrw-70-30",
    "sustained-write", "numjobs-scaling", "numjobs-scaling-quick", "sysbench-compare", "engine-efficiency",
    "mount-options", "blocksize-table",
}


def shipped(name: str) -> Preset:
    return find_preset(name, SHIPPED)


# -- shipped presets ---------------------------------------------------------------------


def test_every_shipped_preset_loads_with_a_description() -> None:
    found, errors = list_presets(SHIPPED)
    assert errors == []
    assert REQUIRED_SHIPPED <= {p.name for p in found}
    for preset in found:
        assert preset.description and preset.tells and preset.title, preset.name
        assert preset.source == shipped_presets_dir() / f"{preset.name}.toml"
        assert all("filename" not in options for options in section_options(preset))


def test_classic_presets_use_direct_io_a_1gib_file_and_libaio_only_for_queues() -> None:
    for name, depth in (("seq1m-q8t1", 8), ("seq1m-q1t1", 1), ("rnd4k-q32t1", 32), ("rnd4k-q1t1", 1)):
        preset = shipped(name)
        assert uses_direct_io(preset), name
        assert preset.options["size"] == "1G" and preset.options["iodepth"] == str(depth)
        assert preset.options["ioengine"] == ("libaio" if depth > 1 else "psync"), name
        assert [section.options["rw"] for section in preset.jobs] in (["read", "write"], ["randread", "randwrite"])
        assert estimate(preset)[1] == 1 << 30


def test_quick_is_twenty_seconds_on_a_small_file() -> None:
    preset = shipped("quick")
    assert estimate(preset) == (20.0, 256 << 20)
    assert uses_direct_io(preset) and preset.options["rw"] == "randrw"


def test_nvme_preset_uses_sixteen_jobs_sharing_one_file() -> None:
    preset = shipped("rnd4k-q32t16")
    assert preset.options["numjobs"] == "16" and preset.options["iodepth"] == "32"
    assert estimate(preset)[1] == 1 << 30  # numjobs does not multiply the file


def test_study_presets_have_sweeps_over_the_studies_keys() -> None:
    assert shipped("numjobs-scaling").sweep["vary"] == {"numjobs": ["1", "2", "4", "8", "16", "32"]}
    assert shipped("numjobs-scaling-quick").sweep["vary"] == {"numjobs": ["1", "2", "4", "8"]}
    for name in ("engine-efficiency", "blocksize-table", "sysbench-compare"):
        preset = shipped(name)
        assert preset.sweep["vary"] == {"job": [section.name for section in preset.jobs]}, name
    assert "--targets" in shipped("mount-options").sweep["note"]


def test_engine_efficiency_compares_engines_at_the_same_concurrency() -> None:
    preset = shipped("engine-efficiency")
    engines = [section.options["ioengine"] for section in preset.jobs]
    assert engines == ["sync", "psync", "vsync", "pvsync", "pvsync2", "pvsync2", "libaio", "io_uring"]
    assert preset.jobs[5].options["hipri"] == "1"
    for options in section_options(preset):
        assert int(options["numjobs"]) * int(options["iodepth"]) == 16
        assert options["rw"] == "randread" and options["bs"] == "4k"


def test_mount_options_measures_the_sync_between_write_and_read() -> None:
    preset = shipped("mount-options")
    assert [section.name for section in preset.jobs] == ["write", "sync", "read"]
    sync = section_options(preset)[1]
    assert sync["number_ios"] == "1" and sync["fsync"] == "1" and not uses_direct_io(preset)


def test_blocksize_table_is_the_seaweedfs_table() -> None:
    rows = [(o["rw"], o["bs"], o["direct"]) for o in section_options(shipped("blocksize-table"))]
    assert rows == [
        ("randread", "4k", "1"), ("randread", "128k", "1"), ("randread", "2m", "1"),
        ("read", "4k", "0"), ("read", "128k", "0"), ("read", "2m", "0"),
    ]


# -- where presets come from -------------------------------------------------------------


def test_user_presets_live_in_the_xdg_config_dir(tmp_path: Path) -> None:
    assert user_presets_dir({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "iotui" / "presets"
    assert user_presets_dir({}) == Path.home() / ".config" / "iotui" / "presets"
    assert preset_dirs()[0] == shipped_presets_dir()
    assert (shipped_presets_dir() / "quick.toml").is_file()


def test_user_preset_overrides_shipped(tmp_path: Path) -> None:
    (tmp_path / "quick.toml").write_text('name = "quick"\ndescription = "mine"\n[options]\nrw = "read"\n')
    preset = find_preset("quick", [shipped_presets_dir(), tmp_path])
    assert preset.description == "mine" and preset.title == "quick"
    assert preset.jobs == (JobSection("quick", {}),)


def test_a_broken_user_override_raises_its_own_error(tmp_path: Path) -> None:
    (tmp_path / "quick.toml").write_text('name = "quick"\n')
    with pytest.raises(PresetError, match="'description' is missing"):
        find_preset("quick", [shipped_presets_dir(), tmp_path])


def test_an_unknown_name_lists_the_presets() -> None:
    with pytest.raises(PresetError, match="No preset named 'nope'; the presets are: .*quick"):
        find_preset("nope", SHIPPED)


# -- validation --------------------------------------------------------------------------

GOOD = 'name = "x"\ndescription = "d"\n'


@pytest.mark.parametrize(
    "text, expected",
    [
        ('description = "x"\n', "key 'name' is missing (expected a string)"),
        ('name = "a b"\ndescription = "x"\n', "key 'name' should be letters"),
        ('name = "x"\n', "key 'description' is missing"),
        ('name = "x"\ndescription = "two\\nlines"\n', "key 'description' spans several lines"),
        ('name = "x"\ndescription = 3\n', "key 'description' should be a string"),
        (GOOD + "bogus = 1\n", "unknown key 'bogus'"),
        (GOOD + "options = 1\n", "key 'options' is not a table"),
        (GOOD + "[options]\nbs = [1]\n", "key 'options.bs' is a list; expected a string"),
        (GOOD + "[options]\nrwmixread = 0.5\n", "key 'options.rwmixread' is a number with a fraction"),
        (GOOD + "jobs = 1\n", "key 'jobs' should be an array of tables"),
        (GOOD + '[[jobs]]\nrw = "read"\n', "key 'jobs[0].name' is missing"),
        (GOOD + '[[jobs]]\nname = "a"\n[[jobs]]\nname = "a"\n', "key 'jobs[1].name' repeats 'a'"),
        (GOOD + "[sweep]\nvary = 1\n", "key 'sweep.vary' should be a table"),
        (GOOD + "[sweep]\nvary = { numjobs = [] }\n", "key 'sweep.vary.numjobs' should be a non-empty array"),
        (GOOD + "[sweep]\nvaries = {}\n", "unknown key 'sweep.varies'"),
        (GOOD + "[sweep]\nnote = 1\n", "key 'sweep.note' should be a string"),
        ('name = "x"\ndescription = ', "not valid TOML"),
    ],
)
def test_bad_presets_are_refused_with_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(PresetError) as error:
        load_preset_file(path)
    assert str(error.value).startswith(f"{path}")
    assert expected in str(error.value)
    assert error.value.path == path


@pytest.mark.parametrize(
    "text, option",
    [
        (GOOD + '[options]\nexec_prerun = "rm -rf /"\n', "exec_prerun"),
        (GOOD + '[options]\nexec_pre = "rm -rf /"\n', "exec_pre"),
        (GOOD + '[[jobs]]\nname = "j"\nfilename = "/dev/sda"\n', "filename"),
        (GOOD + '[[jobs]]\nname = "j"\nioengine = "external:/tmp/x.so"\n', "ioengine"),
        (GOOD + '[options]\nsize = "${SIZE}"\n', "size"),
        (GOOD + '[sweep]\nvary = { exec_postrun = ["a"] }\n', "exec_postrun"),
        (GOOD + '[sweep]\nvary = { ioengine = ["psync", "exec"] }\n', "ioengine=exec"),
    ],
)
def test_presets_with_refused_options_name_them(tmp_path: Path, text: str, option: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(PresetPolicyError) as error:
        load_preset_file(path)
    assert f"'{option}" in str(error.value) and str(path) in str(error.value)
    assert isinstance(error.value, safety.PolicyError) and isinstance(error.value, PresetError)


def test_special_sweep_keys_are_not_fio_options(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(GOOD + '[[jobs]]\nname = "x"\n[sweep]\nvary = { job = ["x"], tool = ["fio"], numjobs = [1, 2] }\n')
    assert load_preset_file(path).sweep["vary"]["numjobs"] == ["1", "2"]


@pytest.mark.parametrize(
    "vary, words",
    [
        ('target = ["/elsewhere"]', "targets come from you"),
        ('targets = ["/elsewhere"]', "targets come from you"),
        ('tool = ["sh"]', "not one iotui knows"),
        ('job = ["nope"]', "not one of the preset's own job sections"),
        ('ioe = ["exec"]', "runs a command"),
        ("buffer_pattern = [\"'/etc/passwd'\"]", "read that file"),
    ],
)
def test_a_preset_s_sweep_cannot_choose_targets_tools_or_smuggle_options(tmp_path: Path, vary: str, words: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(GOOD + '[[jobs]]\nname = "x"\n[sweep]\nvary = { ' + vary + " }\n")
    with pytest.raises(PresetPolicyError, match=words):
        load_preset_file(path)


def test_values_become_fio_strings(tmp_path: Path) -> None:
    path = tmp_path / "v.toml"
    path.write_text(GOOD + '[options]\ndirect = true\nbuffered = false\niodepth = 32\ntime_based = ""\nbs = "4k"\n')
    assert load_preset_file(path).options == {
        "direct": "1", "buffered": "0", "iodepth": "32", "time_based": "", "bs": "4k"
    }


def test_bad_file_is_listed_as_an_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("name = ")
    (tmp_path / "good.toml").write_text('name = "good"\ndescription = "d"\n')
    (tmp_path / "notes.txt").write_text("not a preset")
    found, errors = list_presets([tmp_path, tmp_path / "missing"])
    assert [p.name for p in found] == ["good"]
    assert len(errors) == 1 and "bad.toml" in str(errors[0])


# -- job files ---------------------------------------------------------------------------


def job_file(tmp_path: Path, text: str) -> Preset:
    path = tmp_path / "my.fio"
    path.write_text(text)
    return load_job_file(path)


def test_job_file_sections_and_valueless_keys(tmp_path: Path) -> None:
    preset = job_file(
        tmp_path,
        "; comment\n[global]\nioengine=libaio\ndirect=1\ntime_based\n\n[reader]\nrw=randread\nbs=4k\n"
        "# another\n[writer]\nrw=randwrite\n",
    )
    assert preset.options == {"ioengine": "libaio", "direct": "1", "time_based": ""}
    assert [s.name for s in preset.jobs] == ["reader", "writer"]
    assert preset.jobs[0].options == {"rw": "randread", "bs": "4k"}
    assert preset.serial is False and preset.source == tmp_path / "my.fio" and preset.title == "my.fio"


def test_job_files_are_read_the_way_fio_reads_them(tmp_path: Path) -> None:
    preset = job_file(
        tmp_path,
        "[global-defaults]\nbs=8k ; trailing comment\n  iodepth = 4   # another\n"
        "[one]\nrw=read\nblocksize=16k\nbs=32k\nname=renamed\n"
        "[global]\ndirect=1\n"
        "[two]\nrw=write\nstonewall\n",
    )
    assert preset.options == {"bs": "8k", "iodepth": "4"}
    assert [s.name for s in preset.jobs] == ["renamed", "two"]
    assert preset.jobs[0].options == {"rw": "read", "bs": "32k"}  # the later alias wins, as in fio
    assert preset.jobs[1].options == {"direct": "1", "rw": "write", "stonewall": ""}  # a late [global] folds in


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[global]\nrw=read\n", "no job section"),
        ("rw=read\n[j]\n", "before any [section]"),
        ("[j\nrw=read\n", "expected a section header"),
        ("[j]\n=4k\n", "no option name"),
        ("[$HOME]\nrw=read\n", "characters fio would expand"),
    ],
)
def test_malformed_job_files_are_sentences(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(PresetError) as error:
        job_file(tmp_path, text)
    assert expected in str(error.value) and "my.fio" in str(error.value)


@pytest.mark.parametrize(
    "text, option",
    [
        ("[j]\ninclude other.fio\n", "include"),
        ("[j]\n  include=other.fio\n", "include"),
        ("[j]\nexec_postrun=touch /tmp/x\n", "exec_postrun"),
        ("[j]\nexec_post=touch /tmp/x\n", "exec_post"),
        ("[global]\nfilename=/etc/passwd\n[j]\n", "filename"),
        ("[j]\ndirectory=../elsewhere\n", "directory"),
        ("[j]\nsize=${SIZE}\n", "size"),
        ("[j]\nioengine=external:/tmp/evil.so\n", "ioengine"),
        ("[j]\nwrite_bw_log=/tmp/bw\n", "write_bw_log"),
        ("[j]\ntrigger-file=/tmp/t\n", "trigger-file"),
    ],
)
def test_job_files_that_smuggle_are_refused(tmp_path: Path, text: str, option: str) -> None:
    with pytest.raises(PresetPolicyError) as error:
        job_file(tmp_path, text)
    assert f"'{option}" in str(error.value) and "my.fio" in str(error.value)


def test_a_job_file_s_absolute_directory_becomes_the_private_test_directory(tmp_path: Path) -> None:
    preset = job_file(tmp_path, "[global]\ndirectory=/scratch\n[j]\nfilename=data\n")
    assert preset.options["directory"] == "." and "directory=/scratch is iotui's private test directory" in preset.description
    with pytest.raises(PresetPolicyError, match="'directory=/dev/sda'"):
        job_file(tmp_path, "[j]\ndirectory=/dev/sda\n")


@pytest.mark.parametrize(
    "written, placed",
    [
        ("/tmp/testfile", "testfile"),
        ("/tmp/a/b", "a/b"),
        ("/var/tmp/data", "data"),
        ("/tmp/x:/var/tmp/y", "x:y"),
        ("/dev/null:/tmp/z", "/dev/null:z"),
    ],
)
def test_a_job_file_s_filename_in_tmp_or_var_tmp_is_a_name_in_the_private_directory(
    tmp_path: Path, written: str, placed: str
) -> None:
    # A scratch name says "some file", not a particular one: it is placed by its path below /tmp or /var/tmp.
    preset = job_file(tmp_path, f"[global]\nfilename={written}\n[j]\nrw=read\n")
    assert preset.options["filename"] == placed
    for relative, original in zip(placed.split(":"), written.split(":")):
        if original != relative:
            assert f"its filename={original} is {relative} in iotui's private test directory" in preset.description
    section = job_file(tmp_path, f"[j]\nrw=read\nfilename={written}\n")
    assert section.jobs[0].options["filename"] == placed


def test_a_job_file_s_filename_format_in_tmp_is_placed_too(tmp_path: Path) -> None:
    preset = job_file(tmp_path, "[j]\nnrfiles=2\nfilename_format=/tmp/run/$jobname.$filenum\n")
    assert preset.jobs[0].options["filename_format"] == "run/$jobname.$filenum"
    assert "filename_format=/tmp/run/$jobname.$filenum is run/$jobname.$filenum" in preset.description


@pytest.mark.parametrize(
    "written",
    [
        "/home/x/f", "/etc/x", "/data/x", "/var/x", "/tmp/../etc/passwd", "/var/tmp/../../etc/passwd",
        "/tmpfoo/x", "/var/tmpx/y", "/tmp", "/tmp/", "/var/tmp/", "/tmp/./x", "/tmp//x", "/tmp/a/..",
        "/tmp/~x", "~/x", "/tmp/a\\:b", "/tmp/x:/etc/passwd",
    ],
)
def test_a_job_file_s_other_absolute_filenames_stay_refused(tmp_path: Path, written: str) -> None:
    with pytest.raises(PresetPolicyError) as error:
        job_file(tmp_path, f"[j]\nrw=write\nfilename={written}\n")
    message = str(error.value)
    assert f"the option 'filename={written}'" in message and "outside iotui's private test directory" in message


@pytest.mark.parametrize(
    "text",
    [
        "[a]\nfilename=/tmp/a\n[b]\nfilename=/var/tmp/a\n",
        "[global]\nfilename=/tmp/a:/var/tmp/a\n[j]\n",
        "[a]\nfilename=a\n[b]\nfilename=/tmp/a\n",
    ],
)
def test_two_names_for_one_file_in_the_private_directory_are_refused(tmp_path: Path, text: str) -> None:
    with pytest.raises(PresetPolicyError) as error:
        job_file(tmp_path, text)
    assert "would both be the file 'a' in iotui's private test directory" in str(error.value)
    assert "my.fio" in str(error.value)


def test_the_same_scratch_name_in_several_sections_is_one_file(tmp_path: Path) -> None:
    # Like fio, where every section naming /tmp/a shares that file; and 'a' under its own directory= is another.
    preset = job_file(tmp_path, "[global]\nfilename=/tmp/a\n[x]\nrw=write\n[y]\nrw=read\n[z]\ndirectory=d\nfilename=a\n")
    assert preset.options["filename"] == "a" and preset.jobs[2].options == {"directory": "d", "filename": "a"}


# -- overrides ---------------------------------------------------------------------------


def test_overrides_apply_globally_and_win_over_sections() -> None:
    preset = shipped("blocksize-table")
    changed = with_overrides(
        preset, runtime_s=2, size="8M", bs="64k", iodepth=4, numjobs=2, direct=True, sets={"rw": "read"}
    )
    assert changed.options["runtime"] == "2" and changed.options["time_based"] == ""
    assert changed.options["bs"] == "64k" and changed.options["direct"] == "1"
    assert changed.options["iodepth"] == "4" and changed.options["numjobs"] == "2"
    assert all(s.options == {} for s in changed.jobs)
    assert estimate(changed) == (12.0, 8 << 20)
    assert preset.jobs[0].options["bs"] == "4k"  # the original is unchanged


def test_set_name_renames_the_one_job_and_refuses_one_name_for_several() -> None:
    preset = Preset("p", "p", "d", "", {"rw": "randread", "name": "old"}, (JobSection("p", {"name": "older", "bs": "4k"}),))
    changed = with_overrides(preset, sets={"name": "nightly"})
    assert [(section.name, section.options) for section in changed.jobs] == [("nightly", {"bs": "4k"})]
    assert changed.options == {"rw": "randread"} and changed.name == "p"  # no name fio would not use
    assert "name nightly" in changed.title
    # Other changes still win over the job's own options, whichever comes first.
    for sets in ({"bs": "8k", "name": "nightly"}, {"name": "nightly", "bs": "8k"}):
        both = with_overrides(preset, sets=sets)
        assert both.options["bs"] == "8k" and [(s.name, s.options) for s in both.jobs] == [("nightly", {})]
    with pytest.raises(PresetError) as several:
        with_overrides(shipped("rnd4k-q1t1"), sets={"name": "nightly"}, names={"set": "--set"})
    assert str(several.value).startswith("--set: name=nightly would give every job of rnd4k-q1t1 one name")
    assert "(randread, randwrite)" in str(several.value) and "[[jobs]] name" in str(several.value)
    # Where fio makes the name part of a file name (nrfiles > 1), the file-name rule holds for it too.
    files = Preset("p", "p", "d", "", {"nrfiles": "4"}, (JobSection("p", {}),))
    assert with_overrides(files, sets={"name": "run.1"}).jobs[0].name == "run.1"
    with pytest.raises(PresetPolicyError, match="must match"):
        with_overrides(files, sets={"name": "../escape"})
    with pytest.raises(PresetError, match=r"holds a .\$. substitution"):
        with_overrides(preset, sets={"name": "$HOME"})


def test_overrides_replace_aliases_and_related_settings() -> None:
    preset = Preset(
        "p", "p", "d", "", {"blocksize": "4k", "timeout": "9", "filesize": "2G", "buffered": "1"},
        (JobSection("a", {"readwrite": "randwrite", "bssplit": "4k/50:64k/50", "bsrange": "4k-8k"}),),
    )
    changed = with_overrides(preset, runtime_s=1, size="4M", bs="16k", direct=True, sets={"rw": "read"})
    assert changed.options == {"bs": "16k", "runtime": "1", "size": "4M", "direct": "1", "time_based": "", "rw": "read"}
    assert changed.jobs[0].options == {}
    assert uses_direct_io(changed) and not uses_direct_io(preset)


def test_overrides_keep_the_order_of_the_options() -> None:
    preset = Preset("p", "p", "d", "", {"ioengine": "libaio", "bs": "4k", "size": "1G"}, (JobSection("p", {}),))
    assert list(with_overrides(preset, bs="8k").options) == ["ioengine", "bs", "size"]


def test_set_goes_through_the_policy() -> None:
    preset = shipped("quick")
    flags = {"set": "--set", "size": "--size"}  # as the command line names them
    with pytest.raises(PresetPolicyError, match="--set: the option 'write_lat_log=/tmp/x' is refused because it writes log files"):
        with_overrides(preset, sets={"write_lat_log": "/tmp/x"}, names=flags)
    with pytest.raises(safety.PolicyError, match="'exec_pre=touch x'|'exec_pre'"):
        with_overrides(preset, sets={"--exec_pre": "touch x"})
    with pytest.raises(PresetPolicyError, match="--size: the option 'size=\\$mb_memory'"):
        with_overrides(preset, size="$mb_memory", names=flags)
    with pytest.raises(PresetPolicyError, match="^size: the option 'size=\\$mb_memory'"):
        with_overrides(preset, size="$mb_memory")


@pytest.mark.parametrize(
    "kwargs, key, expected",
    [
        ({"runtime_s": 0}, "runtime", "runtime should be a number of seconds above 0"),
        ({"runtime_s": float("nan")}, "runtime", "runtime should be a number of seconds above 0"),
        ({"iodepth": 0}, "iodepth", "iodepth should be a whole number from 1 to 4294967295"),
        ({"numjobs": "many"}, "numjobs", "numjobs should be a whole number"),
        ({"size": " "}, "size", "size is empty"),
    ],
)
def test_bad_overrides_are_sentences_naming_the_change(kwargs: dict, key: str, expected: str) -> None:
    """The core names the change by its key; each caller may name it in its own terms instead."""
    with pytest.raises(PresetError, match=f"^{expected}") as refused:
        with_overrides(shipped("quick"), **kwargs)
    assert refused.value.key == key
    with pytest.raises(PresetError, match=f"^--{expected}"):
        with_overrides(shipped("quick"), **kwargs, names={key: f"--{key}"})


def test_no_overrides_is_the_same_preset() -> None:
    preset = shipped("quick")
    assert with_overrides(preset) is preset


# -- estimates ----------------------------------------------------------------------------


def make(options: dict[str, str], *sections: dict[str, str], serial: bool = True) -> Preset:
    jobs = tuple(JobSection(f"j{index}", section) for index, section in enumerate(sections))
    return Preset("p", "p", "d", "", options, jobs or (JobSection("p", {}),), serial=serial)


@pytest.mark.parametrize(
    "preset, expected",
    [
        (make({"runtime": "30", "ramp_time": "10", "size": "1G"}, {}, {}), (80.0, 1 << 30)),
        (make({"runtime": "2m", "startdelay": "1-5", "size": "1G"}), (125.0, 1 << 30)),
        (make({"timeout": "10", "size": "1G"}, {}, {"timeout": "5"}), (15.0, 1 << 30)),
        (make({"size": "1G"}, {"runtime": "10"}, {}), (None, 1 << 30)),  # the 2nd ends when its size is done
        (make({"runtime": "10", "size": "1G", "numjobs": "8"}), (10.0, 1 << 30)),  # clones share the file
        (make({"runtime": "1", "size": "1M", "numjobs": "3", "offset_increment": "2M"}), (1.0, 5 << 20)),
        (make({"runtime": "1", "size": "1M", "offset": "3M"}), (1.0, 4 << 20)),
        (make({"runtime": "1", "size": "1M", "filesize": "1M-2M"}), (1.0, 2 << 20)),
        (make({"runtime": "1", "size": "1G"}, {"size": "2G"}, {"size": "512M"}), (2.0, 2 << 30)),
        (make({"runtime": "1", "size": "1G", "kb_base": "1000"}), (1.0, 10**9)),
        (make({"runtime": "1", "size": "50%"}), (1.0, None)),
        (make({"runtime": "1"}), (1.0, None)),
    ],
)
def test_estimates(preset: Preset, expected: tuple) -> None:
    assert estimate(preset) == expected


def test_job_file_sections_run_together_until_a_stonewall(tmp_path: Path) -> None:
    preset = job_file(
        tmp_path,
        "[global]\nruntime=10\nsize=1M\n[a]\n[b]\nruntime=20\n[c]\nstonewall\nruntime=5\n[d]\nruntime=1\n",
    )
    assert estimate(preset) == (25.0, 1 << 20)  # max(10, 20) + max(5, 1)


@pytest.mark.parametrize(
    "text, kb_base, expected",
    [
        ("4k", 1024, 4096), ("4K", 1024, 4096), ("1kb", 1024, 1024), ("1G", 1024, 1 << 30),
        ("512m", 1024, 512 << 20), ("1Mi", 1024, 1 << 20), ("100", 1024, 100), ("100b", 1024, 100),
        # fio's compatibility mode: the IEC suffixes are powers of 1000 (checked against fio 3.33).
        ("1KiB", 1024, 1000), ("1MiB", 1024, 10**6), ("1GiB", 1024, 10**9),
        ("1k", 1000, 1000), ("1M", 1000, 10**6), ("1KiB", 1000, 1024), ("1MiB", 1000, 1 << 20),
        ("1x", 1024, None), ("10%", 1024, None), ("", 1024, None), (None, 1024, None),
    ],
)
def test_size_syntax(text: str | None, kb_base: int, expected: int | None) -> None:
    assert parse_size_bytes(text, kb_base=kb_base) == expected


@pytest.mark.parametrize(
    "text, expected",
    [("30", 30.0), ("30s", 30.0), ("2m", 120.0), ("2min", 120.0), ("500ms", 0.5), ("1h", 3600.0), ("10us", 1e-5),
     ("soon", None), ("5x", None), (None, None)],
)
def test_time_syntax(text: str | None, expected: float | None) -> None:
    assert parse_seconds(text) == (None if expected is None else pytest.approx(expected))


# -- options of a section ------------------------------------------------------------------


def test_section_options_apply_sections_over_globals_with_aliases() -> None:
    preset = make({"rw": "read", "direct": "1", "bs": "4k"}, {"readwrite": "write", "buffered": "1"}, {})
    first, second = section_options(preset)
    assert first == {"bs": "4k", "readwrite": "write", "buffered": "1"}
    assert second == {"rw": "read", "direct": "1", "bs": "4k"}
    assert section_option(preset, preset.jobs[0], "rw") == "write"
    assert section_option(preset, preset.jobs[1], "readwrite") == "read"
    assert not uses_direct_io(preset)
    assert uses_direct_io(make({"buffered": "0"}))
    assert not uses_direct_io(make({}))


# -- portability -----------------------------------------------------------------------------


def test_linux_presets_are_unchanged() -> None:
    preset = shipped("engine-efficiency")
    assert for_platform(preset, "linux") is preset


@pytest.mark.parametrize(
    "platform, queued, pvsync2",
    [("darwin", "posixaio", "pvsync"), ("freebsd14", "posixaio", "pvsync"), ("openbsd7", "psync", "pvsync"),
     ("win32", "windowsaio", "psync")],
)
def test_linux_only_engines_fall_back_elsewhere(platform: str, queued: str, pvsync2: str) -> None:
    preset = for_platform(shipped("engine-efficiency"), platform)
    engines = {section.name: section.options["ioengine"] for section in preset.jobs}
    assert engines["libaio-batch"] == queued and engines["io_uring"] == queued
    assert engines["pvsync2"] == pvsync2 and engines["sync"] == "sync"
    assert "hipri" not in preset.jobs[5].options
    assert for_platform(shipped("quick"), platform).options["ioengine"] == queued


def test_varied_engines_fall_back_without_duplicates() -> None:
    preset = make({}, {})
    preset = Preset(**{**preset.__dict__, "sweep": {"vary": {"ioengine": ["psync", "libaio", "io_uring", "pvsync2"]}}})
    assert for_platform(preset, "darwin").sweep["vary"]["ioengine"] == ["psync", "posixaio", "pvsync"]


def test_loading_applies_the_platform(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text(GOOD + '[options]\nioengine = "libaio"\n')
    assert load_preset_file(path, platform="darwin").options["ioengine"] == "posixaio"
    assert load_preset_file(path, platform="linux").options["ioengine"] == "libaio"


def test_a_changed_preset_is_titled_with_its_effective_options() -> None:
    quick = find_preset("quick")
    assert quick.title == "Quick check (20 s)"
    ten = with_overrides(quick, runtime_s=10)
    assert ten.title == "quick · runtime 10s"
    again = with_overrides(ten, size="64M", runtime_s=5)
    assert again.title == "quick · runtime 5s, size 64M"
    assert with_overrides(quick).title == "Quick check (20 s)"


def test_headless_sizes_are_checked_as_the_editor_checks_them() -> None:
    quick = find_preset("quick")
    with pytest.raises(PresetError, match="^size should be a size such as 4k, 1M or 1G, not '64Q'"):
        with_overrides(quick, size="64Q")
    with pytest.raises(PresetError, match="^--bs should be a size"):
        with_overrides(quick, bs="4kk", names={"bs": "--bs"})
    assert with_overrides(quick, size="64MiB", bs="4k").options["size"] == "64MiB"


def test_runtime_leaves_a_deletion_engine_one_pass(tmp_path: Path) -> None:
    # filedelete removes each file once: a time-based loop would fail on the files already gone.
    path = tmp_path / "delete.fio"
    path.write_text("[global]\nioengine=filedelete\nnrfiles=3\nfilesize=4k\n[t0]\n[t1]\nioengine=psync\n")
    preset = with_overrides(load_job_file(path), runtime_s=2)
    assert preset.options["time_based"] == "" and preset.options["runtime"] == "2"
    assert [dict(section.options).get("time_based") for section in preset.jobs] == ["0", None]


def test_presets_listing_leaves_out_a_duration_it_cannot_know(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """steady-randwrite ends when fio sees IOPS settle: no "~-" placeholder, the disk size alone."""
    from iotui.cli import main

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert main(["presets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    estimate_line = lines[[line.split()[0] if line.strip() else "" for line in lines].index("steady-randwrite") + 1]
    assert "~-" not in estimate_line and estimate_line.strip().startswith("1.0GiB on disk.")
    quick_line = lines[[line.split()[0] if line.strip() else "" for line in lines].index("quick") + 1]
    assert quick_line.strip().startswith("~20s, 256MiB on disk.")
