"""Values judged in one spelling and handed to fio in another: job names that become file names, sizes
fio reads otherwise than they look, engine names with spaces, buffers larger than the memory.

Each attempt runs the real ``iotui`` command (and fio where the attempt is let through) and checks a
canary outside the target: nothing written, nothing deleted, nothing left in the target, no record of
a refused run, no traceback.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui import cli
from iotui.core.host import targets as target_checks
from iotui.core.runs import plan as run_plan
from iotui.core.sweep import plan as sweep_plan
from tests.conftest import requires_fio

SMALL_FILESYSTEM_BYTES = 253 << 20
COMMON = ["--runtime", "1", "--baseline", "0"]


def _climb(path: Path) -> str:
    """A relative name that reaches ``path`` from any directory: enough '../' to climb to '/'."""
    return "../" * 40 + str(path).lstrip("/")


def _refused_run(argv: list[str], world: dict[str, Path], capsys: pytest.CaptureFixture[str], *, size: bool = True) -> str:
    code = cli.main([*argv, "--target", str(world["target"]), *COMMON, *(["--size", "1M"] if size else [])])
    out, err = capsys.readouterr()
    assert code == 1, (argv, out, err)
    assert "Traceback" not in out + err
    _refused_or_sentence(err)
    assert not list(world["target"].iterdir())
    assert not world["runs"].exists() or not list(world["runs"].glob("*.toml")), "a refused run left a record"
    return err


def _refused_or_sentence(err: str) -> None:
    assert err.startswith("iotui: ") and err.rstrip().endswith("."), err


def _outside_untouched(world: dict[str, Path], *, existing: Path | None = None) -> None:
    names = sorted(path.name for path in world["DIR"].iterdir())
    expected = sorted(["SECRET-FILE"] + ([existing.name] if existing else []))
    assert names == expected, names
    assert (world["DIR"] / "SECRET-FILE").read_text() == "the secret"
    if existing is not None:
        assert existing.read_text() == "keep me"


# -- job names ---------------------------------------------------------------------------------------

# Each: the job file's text; NAME is a name that climbs to the canary, EXISTING an existing file's climb.
NAME_JOB_FILES: dict[str, str] = {
    "section name, nrfiles=2": "[NAME]\nrw=write\nbs=4k\nnrfiles=2\n",
    "name=, nrfiles=2": "[x]\nname=NAME\nrw=write\nnrfiles=2\n",
    "section name, directory=sub, nrfiles=1": "[NAME]\nrw=write\ndirectory=sub\nnrfiles=1\n",
    "name=, directory=sub": "[x]\nname=NAME\nrw=write\ndirectory=sub\n",
    "name= in a late [global] section's job": "[a]\nrw=read\nfilename=f\n[global]\nrw=write\n[b]\nname=NAME\nnrfiles=2\n",
    "filename_format=$jobname, filedelete": "[EXISTING]\nioengine=filedelete\nfilename_format=$jobname\nnrfiles=2\n",
    "filename_format=$jobname.$filenum, filename=": "[NAME]\nrw=write\nfilename=f\nfilename_format=$jobname.$filenum\n",
    "over an existing file": "[EXISTING]\nrw=write\ndirectory=.\n",
    "chosen bytes to a chosen path": "[NAME]\nrw=write\nnrfiles=2\nbuffer_pattern=0x2a2a2a2a\n",
}


@pytest.mark.parametrize("name", sorted(NAME_JOB_FILES))
def test_a_job_name_cannot_walk_out_of_the_private_directory(world, capsys, tmp_path: Path, name: str) -> None:
    existing = world["DIR"] / "existing"
    existing.write_text("keep me")
    text = NAME_JOB_FILES[name].replace("NAME", _climb(world["CANARY"])).replace("EXISTING", _climb(existing))
    job = tmp_path / "evil.fio"
    job.write_text(text)
    err = _refused_run(["run", "--job-file", str(job)], world, capsys)
    assert "part of its file names" in err
    _outside_untouched(world, existing=existing)


def test_a_sweep_of_a_job_file_refuses_its_name_before_any_point_runs(world, capsys, tmp_path: Path) -> None:
    # nrfiles=1 runs on iotui's shared file, where the name is only a label; nrfiles=2 makes it a file name.
    job = tmp_path / "evil.fio"
    job.write_text(f"[{_climb(world['CANARY'])}]\nrw=write\n")
    err = _refused_run(["sweep", "--job-file", str(job), "--vary", "nrfiles=1,2"], world, capsys)
    assert "part of its file names" in err
    _outside_untouched(world)


def test_a_preset_s_job_name_follows_the_same_rule(world, capsys) -> None:
    presets_dir = world["config"] / "iotui" / "presets"
    (presets_dir / "evil.toml").write_text(
        f'name = "evil"\ndescription = "x"\n[[jobs]]\nname = "{_climb(world["CANARY"])}"\nnrfiles = "2"\n'
    )
    _refused_run(["run", "evil"], world, capsys)
    _outside_untouched(world)


# -- sizes fio reads otherwise -----------------------------------------------------------------------


@pytest.fixture
def small_filesystem(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(target_checks, "_free_bytes", lambda path: SMALL_FILESYSTEM_BYTES)
    monkeypatch.setattr(sweep_plan, "_free_bytes", lambda path: SMALL_FILESYSTEM_BYTES)


SIZE_JOB_FILES: dict[str, str] = {
    "filesize=0x20000000": "[x]\nrw=write\nfilesize=0x20000000\n",
    "offset=0x20000000": "[x]\nrw=write\nsize=1M\noffset=0x20000000\n",
    "filesize=+512M": "[x]\nrw=write\nfilesize=+512M\n",
    "filename=a:b:c:d:e:f:g:h with filesize=40M": "[x]\nrw=write\nfilename=a:b:c:d:e:f:g:h\nfilesize=40M\n",
    "nrfiles=0x8 with filesize=40M": "[x]\nrw=write\nnrfiles=0x8\nfilesize=40M\n",
    "kb_base=1000 and size=300MiB": "[global]\nkb_base=1000\n[x]\nrw=write\nsize=300MiB\n",
}


@pytest.mark.parametrize("name", sorted(SIZE_JOB_FILES))
def test_a_size_fio_reads_as_more_than_the_free_space_is_refused(world, capsys, tmp_path: Path, small_filesystem, name: str) -> None:
    job = tmp_path / "big.fio"
    job.write_text(SIZE_JOB_FILES[name])
    err = _refused_run(["run", "--job-file", str(job)], world, capsys, size=False)
    assert "Not enough free space" in err
    _outside_untouched(world)


@pytest.mark.parametrize("setting, needs_mib", [("filesize=0x20000000", 512), ("offset=0x20000000", 513),
                                                ("filesize=+512M", 512), ("filesiz=0x20000000", 512)])
@pytest.mark.parametrize("channel", ["--set", "--vary"])
def test_a_size_through_set_or_vary_is_read_as_fio_reads_it(
    world, capsys, small_filesystem, channel: str, setting: str, needs_mib: int,
) -> None:
    command = "run" if channel == "--set" else "sweep"
    err = _refused_run([command, "quick", channel, setting], world, capsys)
    assert "Not enough free space" in err or "MiB is free" in err
    assert f"{needs_mib} MiB" in err or f"{needs_mib}MiB" in err
    _outside_untouched(world)


@pytest.mark.parametrize(
    "text, words",
    [
        ("[x]\nrw=write\nsize=50%\n", "a percentage of a file that does not exist yet"),
        ("[x]\nrw=write\nsize=1M\noffset=junk\n", "offset=junk is not a size"),
        ("[x]\nrw=write\nfilesize=1.5G\n", "filesize=1.5G is not a size"),
        ("[x]\nrw=write\nsize=1M\nbs=4 k\n", "bs=4 k is not a block size"),
    ],
)
def test_an_unreadable_size_is_refused_with_the_option(world, capsys, tmp_path: Path, text: str, words: str) -> None:
    job = tmp_path / "odd.fio"
    job.write_text(text)
    assert words in _refused_run(["run", "--job-file", str(job)], world, capsys, size=False)


# -- engines in one spelling -------------------------------------------------------------------------


@pytest.mark.parametrize("engine", ["libaio\\u00a0", "\\u00a0sync", "sync\\u2003", "lib aio", "psync\\u200b"])
def test_an_engine_with_unicode_space_is_refused(world, capsys, engine: str) -> None:
    presets_dir = world["config"] / "iotui" / "presets"
    (presets_dir / "evil.toml").write_text(f'name = "evil"\ndescription = "x"\n[options]\nioengine = "{engine}"\n')
    err = _refused_run(["run", "evil"], world, capsys)
    assert "refused because" in err


@pytest.mark.fio
@requires_fio
def test_an_engine_with_trailing_spaces_reaches_fio_as_the_word_that_was_judged(world, capsys, tmp_path: Path) -> None:
    # fio has no engine called "sync " and would dlopen() that name along the loader's path (an empty
    # element of LD_LIBRARY_PATH is the working directory): a file of that name must never be loaded.
    presets_dir = world["config"] / "iotui" / "presets"
    (presets_dir / "spaced.toml").write_text('name = "spaced"\ndescription = "x"\n[options]\nioengine = "psync  "\n'
                                             'rw = "write"\n')
    code = cli.main(["run", "spaced", "--target", str(world["target"]), *COMMON, "--size", "1M", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "--ioengine=psync " not in out and '"ioengine": "psync"' in out
    assert not list(world["target"].iterdir())
    _outside_untouched(world)


# -- memory --------------------------------------------------------------------------------------------


def test_buffers_larger_than_the_available_memory_are_refused_with_the_figures(world, capsys, monkeypatch) -> None:
    monkeypatch.setattr(run_plan, "mem_available_bytes", lambda: 256 << 20)
    err = _refused_run(["run", "quick", "--set", "numjobs=4", "--set", "iodepth=128", "--set", "bs=1M"], world, capsys)
    assert "I/O buffers need 512 MiB (numjobs 4 x iodepth 128 x bs 1,048,576 bytes)" in err
    assert "256 MiB available" in err
    _outside_untouched(world)


@pytest.mark.parametrize("locked", ["1000T", "0x100000000000", "300M"])
def test_memory_pinned_with_lockmem_counts_against_the_available_memory(world, capsys, monkeypatch, locked: str) -> None:
    # fio mlock()s lockmem in every job, capped only at the machine's RAM less 128 MiB: as root it
    # pinned nearly all of it and the OOM killer ended other programs.
    monkeypatch.setattr(run_plan, "mem_available_bytes", lambda: 256 << 20)
    err = _refused_run(["run", "quick", "--set", f"lockmem={locked}"], world, capsys)
    assert "x lockmem" in err and "256 MiB available" in err
    _outside_untouched(world)


def test_lockmem_in_a_job_file_counts_once_per_job(world, capsys, monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setattr(run_plan, "mem_available_bytes", lambda: 256 << 20)
    job = tmp_path / "pinned.fio"
    job.write_text("[a]\nrw=write\nnumjobs=3\nlockmem=100M\n")
    err = _refused_run(["run", "--job-file", str(job)], world, capsys)
    assert "numjobs 3 x lockmem 104,857,600 bytes" in err
