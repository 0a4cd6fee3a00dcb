"""Presets and job files: loading, validation, overrides, estimates."""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.core import presets
from iotui.core.presets import PresetError

REQUIRED_SHIPPED = {
    "quick", "seq1m-q8t1", "seq1m-q1t1", "rnd4k-q32t1", "rnd4k-q1t1", "rnd4k-q32t16", "randrw-70-30",
    "sustained-write", "numjobs-scaling", "numjobs-scaling-quick", "sysbench-compare", "engine-efficiency",
    "mount-options", "blocksize-table",
}


def test_every_shipped_preset_loads_with_a_description() -> None:
    found, errors = presets.list_presets([presets.shipped_presets_dir()])
    assert errors == []
    names = {p.name for p in found}
    assert REQUIRED_SHIPPED <= names
    for preset in found:
        assert preset.description and preset.tells, preset.name
        assert "filename" not in preset.options


def test_classic_presets_use_direct_io_and_a_1gib_file() -> None:
    for name in ("seq1m-q8t1", "seq1m-q1t1", "rnd4k-q32t1", "rnd4k-q1t1"):
        preset = presets.find_preset(name, [presets.shipped_presets_dir()])
        assert preset.options["direct"] == "1"
        assert preset.options["size"] == "1G"


def test_quick_is_twenty_seconds() -> None:
    duration_s, disk_bytes = presets.estimate(presets.find_preset("quick", [presets.shipped_presets_dir()]))
    assert duration_s == 20
    assert disk_bytes == 256 << 20


def test_user_preset_overrides_shipped(tmp_path: Path) -> None:
    (tmp_path / "quick.toml").write_text('name = "quick"\ndescription = "mine"\n[options]\nrw = "read"\n')
    preset = presets.find_preset("quick", [presets.shipped_presets_dir(), tmp_path])
    assert preset.description == "mine"
    assert preset.jobs[0].name == "quick"


@pytest.mark.parametrize(
    "text, expected",
    [
        ('description = "x"\n', "'name' is missing"),
        ('name = "a b"\ndescription = "x"\n', "key 'name'"),
        ('name = "x"\n', "'description' is missing"),
        ('name = "x"\ndescription = "x"\nbogus = 1\n', "unknown key 'bogus'"),
        ('name = "x"\ndescription = "x"\n[options]\nbs = [1]\n', "options.bs"),
        ('name = "x"\ndescription = "x"\n[[jobs]]\nrw = "read"\n', "jobs[0].name"),
        ('name = "x"\ndescription = "x"\n[options]\nexec_prerun = "rm -rf /"\n', "exec_prerun"),
        ('name = "x"\ndescription = "x"\n[[jobs]]\nname = "j"\nfilename = "/dev/sda"\n', "filename"),
        ('name = "x"\ndescription = ', "not valid TOML"),
    ],
)
def test_bad_presets_are_refused_with_file_and_key(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(PresetError) as error:
        presets.load_preset_file(path)
    assert str(path) in str(error.value)
    assert expected in str(error.value)


def test_bad_file_is_listed_as_an_error_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("name = ")
    (tmp_path / "good.toml").write_text('name = "good"\ndescription = "d"\n')
    found, errors = presets.list_presets([tmp_path])
    assert [p.name for p in found] == ["good"]
    assert len(errors) == 1 and "bad.toml" in str(errors[0])


def test_job_file_sections_and_valueless_keys(tmp_path: Path) -> None:
    path = tmp_path / "my.fio"
    path.write_text(
        "; comment\n[global]\nioengine=libaio\ndirect=1\ntime_based\n\n[reader]\nrw=randread\nbs=4k\n"
        "# another\n[writer]\nrw=randwrite\n"
    )
    preset = presets.load_job_file(path)
    assert preset.options == {"ioengine": "libaio", "direct": "1", "time_based": ""}
    assert [s.name for s in preset.jobs] == ["reader", "writer"]
    assert preset.jobs[0].options == {"rw": "randread", "bs": "4k"}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[global]\nrw=read\n", "no job section"),
        ("rw=read\n[j]\n", "before any [section]"),
        ("[j]\ninclude other.fio\n", "include"),
        ("[j]\nexec_postrun=touch /tmp/x\n", "exec_postrun"),
        ("[j]\nfilename=/etc/passwd\n", "filename"),
        ("[j]\nsize=${SIZE}\n", "$"),
        ("[j]\nioengine=external:/tmp/evil.so\n", "ioengine"),
    ],
)
def test_job_files_that_smuggle_are_refused(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "job.fio"
    path.write_text(text)
    with pytest.raises(PresetError) as error:
        presets.load_job_file(path)
    assert expected in str(error.value)


def test_overrides_apply_globally_and_win_over_sections() -> None:
    preset = presets.find_preset("blocksize-table", [presets.shipped_presets_dir()])
    changed = presets.with_overrides(preset, runtime_s=2, size="8M", bs="64k", iodepth=4, numjobs=2, direct=True, sets={"rw": "read"})
    assert changed.options["runtime"] == "2" and changed.options["time_based"] == ""
    assert changed.options["bs"] == "64k" and changed.options["direct"] == "1"
    assert all("bs" not in s.options and "rw" not in s.options for s in changed.jobs)
    assert presets.estimate(changed) == (12.0, 8 << 20)


def test_set_goes_through_the_policy() -> None:
    preset = presets.find_preset("quick", [presets.shipped_presets_dir()])
    with pytest.raises(PresetError, match="write_lat_log"):
        presets.with_overrides(preset, sets={"write_lat_log": "/tmp/x"})
    with pytest.raises(PresetError, match="runtime"):
        presets.with_overrides(preset, runtime_s=0)


@pytest.mark.parametrize("text, expected", [("4k", 4096), ("1G", 1 << 30), ("1GiB", 1 << 30), ("512m", 512 << 20), ("100", 100), ("1x", None)])
def test_size_syntax(text: str, expected: int | None) -> None:
    assert presets.parse_size_bytes(text) == expected


@pytest.mark.parametrize("text, expected", [("30", 30.0), ("2m", 120.0), ("500ms", 0.5), ("1h", 3600.0), ("soon", None)])
def test_time_syntax(text: str, expected: float | None) -> None:
    assert presets.parse_seconds(text) == expected
