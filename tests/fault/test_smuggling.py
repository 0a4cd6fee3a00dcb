"""Smuggling attempts through every channel, against the real CLI, with a canary.

Each attempt would, if it reached fio, run a command, load an engine, talk to the network or
write a file outside iotui's private test directory; every one names the canary path. The test
runs the ``iotui`` command (in this process, the same code path as the shell) and checks: refused
(exit 1, one sentence naming the option, no traceback), no canary, nothing left in the target.
"""

from __future__ import annotations

import itertools
import shutil
import uuid
from pathlib import Path

import pytest

from iotui import cli
from iotui.core.host import targets as target_checks

# Each payload: the options an attacker sets. CANARY is replaced by the canary's path; SECRET by a
# file whose content must never reach the test file; DIR by a directory outside the target.
PAYLOADS: dict[str, dict[str, str]] = {
    "ioe=exec": {"ioe": "exec", "program": "touch", "arguments": "CANARY"},
    "ioeng=exec": {"ioeng": "exec", "program": "touch", "arguments": "CANARY"},
    "ioengin=exec": {"ioengin": "exec", "program": "touch", "arguments": "CANARY"},
    "ioengine=exec": {"ioengine": "exec", "program": "touch", "arguments": "CANARY"},
    "external:": {"ioe": "external:CANARY.so"},
    "ioeng=LIB.so": {"ioeng": "CANARY.so"},
    "engine path": {"ioengine": "/lib/x86_64-linux-gnu/libc.so.6"},
    "unknown engine": {"ioengine": "canaryengine"},
    "net": {"ioe": "net", "hostname": "127.0.0.1", "port": "47999", "protocol": "tcp"},
    "netsplice": {"ioengine": "netsplice", "hostname": "127.0.0.1", "port": "47999"},
    "e4defrag": {"ioengine": "e4defrag", "donorname": "CANARY", "inplace": "1", "rw": "randwrite"},
    "donorname alone": {"donorname": "CANARY"},
    "sg": {"ioengine": "sg"},
    "exec_prerun": {"exec_prerun": "touch CANARY"},
    "exec_pre": {"exec_pre": "touch CANARY"},
    "exec_postrun": {"exec_postrun": "touch CANARY"},
    "trigger": {"trigger": "touch CANARY"},
    "verify_state_save": {"verify": "crc32c", "verify_state_save": "1"},
    "verify_state_load": {"verify_state_load": "1"},
    "verify_state_s": {"verify_state_s": "1"},
    "buffer_pattern file": {"buffer_pattern": "'SECRET'"},
    "verify_pattern file": {"verify": "pattern", "verify_pattern": "'SECRET'"},
    "write_bw_log": {"write_bw_log": "CANARY"},
    "write_bw": {"write_bw": "CANARY"},
    "write_lat_log": {"write_lat_log": "CANARY"},
    "write_iops_log": {"write_iops_log": "CANARY"},
    "write_hist_log": {"write_hist_log": "CANARY"},
    "write_iolog": {"write_iolog": "CANARY"},
    "read_iolog": {"read_iolog": "CANARY"},
    "replay_redirect": {"replay_redirect": "CANARY"},
    "replay_r": {"replay_r": "CANARY"},
    "filename": {"filename": "CANARY"},
    "filename ..": {"filename": "../../CANARY"},
    "directory": {"directory": "DIR"},
    "filename_format": {"filename_format": "../CANARY"},
    "opendir": {"opendir": "DIR"},
    "cgroup": {"cgroup": "iotui-canary"},
    "cgr": {"cgr": "iotui-canary"},
    "uid": {"uid": "0"},
    "gid": {"gid": "0"},
    "mem mmap:": {"mem": "mmap:CANARY"},
    "iomem mmap:": {"iomem": "mmap:CANARY"},
    "$mb_memory": {"size": "$mb_memory"},
    "${HOME}": {"filename": "${HOME}/CANARY"},
    "ioscheduler": {"ioscheduler": "none"},
    "fill_device": {"fill_device": "1"},
    "fill_fs": {"fill_fs": "1"},
    "output": {"output": "CANARY"},
    "profile": {"profile": "tiobench"},
    "aux-path": {"aux-path": "DIR"},
    "remote-config": {"remote-config": "CANARY"},
    "allow_mounted_write": {"allow_mounted_write": "1"},
    "file_append": {"file_append": "1"},
    "daemonize": {"daemonize": "CANARY"},
    "runtime=-5": {"runtime": "-5"},
}
# Where the job-file tricks below aim, outside the scratch directories or through them.
OUTSIDE_CANARIES = ("/etc/iotui-canary", "/home/iotui-canary", "/tmpfoo", "/tmp/iotui-canary", "/var/tmp/iotui-canary")
# Job files only carry what fio's job-file parser reads; these are the job-file-only tricks.
JOB_FILES: dict[str, str] = {
    "include": "[x]\nrw=read\ninclude CANARY\n",
    "global after section": "[x]\nrw=read\n[global]\nioeng=exec\n[y]\nprogram=touch\narguments=CANARY\n",
    "global engine, section program": "[global]\nioengine=exec\n[x]\nprogram=touch\narguments=CANARY\n",
    "section prefix": "[x]\nioeng=exec\nprogram=touch\narguments=CANARY\n",
    "absolute filename": "[x]\nrw=write\nfilename=/etc/iotui-canary\n",
    "absolute filename in /home": "[x]\nrw=write\nfilename=/home/iotui-canary/f\n",
    "/tmp/.. filename": "[x]\nrw=write\nfilename=/tmp/../etc/iotui-canary\n",
    "/var/tmp/.. filename": "[x]\nrw=write\nfilename=/var/tmp/../../etc/iotui-canary\n",
    "/tmpfoo filename": "[x]\nrw=write\nfilename=/tmpfoo/iotui-canary\n",
    "/tmp itself": "[x]\nrw=write\nfilename=/tmp\n",
    "/tmp and /var/tmp, one name": "[a]\nrw=write\nfilename=/tmp/iotui-canary\n[b]\nrw=write\nfilename=/var/tmp/iotui-canary\n",
    "device filename": "[x]\nrw=read\nfilename=/dev/sda\n",
    "dollar in a value": "[x]\nrw=write\nsize=$mb_memory\nfilename=data\n",
}


def _text(value: str, paths: dict[str, Path]) -> str:
    for word, path in paths.items():
        value = value.replace(word, str(path))
    return value


def _options_toml(options: dict[str, str], paths: dict[str, Path]) -> str:
    return "".join(f'"{key}" = {_toml_string(_text(value, paths))}\n' for key, value in options.items())


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attempt(argv: list[str], world: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> str:
    common = ["--target", str(world["target"]), "--runtime", "1", "--size", "1M", "--baseline", "0"]
    code = cli.main([*argv, *common])
    out, err = capsys.readouterr()
    assert code == 1, (argv, out, err)
    assert "Traceback" not in out + err
    assert not world["CANARY"].exists() and not list(world["target"].iterdir())
    assert [path.name for path in world["DIR"].iterdir()] == ["SECRET-FILE"]
    assert not world["runs"].exists() or not list(world["runs"].glob("*.toml")), "a refused run left a record"
    return err


def _refused(err: str) -> None:
    reasons = ("refused because", "is not an option name", "cannot be planned")
    assert err.startswith("iotui: ") and any(reason in err for reason in reasons), err


@pytest.mark.parametrize("name", sorted(PAYLOADS))
@pytest.mark.parametrize("channel", ["--set", "preset options", "preset jobs", "preset sweep", "--vary"])
def test_every_payload_is_refused_on_every_channel(world, capsys, channel: str, name: str) -> None:
    options = {key: _text(value, world) for key, value in PAYLOADS[name].items()}
    presets_dir = world["config"] / "iotui" / "presets"
    header = 'name = "evil"\ndescription = "x"\n'
    if channel == "--set":
        argv = ["run", "quick"] + list(itertools.chain.from_iterable(("--set", f"{k}={v}") for k, v in options.items()))
    elif channel == "--vary":
        argv = ["sweep", "quick"] + [f"--vary={key}={value}" for key, value in options.items() if "," not in value]
    elif channel == "preset options":
        (presets_dir / "evil.toml").write_text(header + "[options]\n" + _options_toml(options, world))
        argv = ["run", "evil"]
    elif channel == "preset jobs":
        (presets_dir / "evil.toml").write_text(header + '[[jobs]]\nname = "j"\n' + _options_toml(options, world))
        argv = ["run", "evil"]
    else:
        vary = ", ".join(f'"{key}" = [{_toml_string(value)}]' for key, value in options.items())
        (presets_dir / "evil.toml").write_text(header + "[sweep]\nvary = { " + vary + " }\n")
        argv = ["sweep", "evil"]
    _refused(_attempt(argv, world, capsys))


def test_a_job_file_s_directory_outside_is_confined_to_the_private_directory(world, capsys, tmp_path: Path) -> None:
    # directory= in a job file says where its files go, which is the target's role: nothing lands there.
    job = tmp_path / "elsewhere.fio"
    job.write_text(f"[global]\nrw=write\ndirectory={world['DIR']}\n[x]\nfilename=data\n")
    common = ["--target", str(world["target"]), "--runtime", "1", "--size", "1M", "--baseline", "0"]
    assert cli.main(["run", "--job-file", str(job), *common]) == 0, capsys.readouterr().err
    assert [path.name for path in world["DIR"].iterdir()] == ["SECRET-FILE"] and not list(world["target"].iterdir())


# A job file's directory= is confined (above), and so is its filename= in /tmp or /var/tmp, where the
# canary lies when the tests' temporary directory is there (below: names in those, and outside them).
@pytest.mark.parametrize("name", sorted(set(PAYLOADS) - {"directory", "filename"}))
def test_every_payload_is_refused_in_a_job_file(world, capsys, tmp_path: Path, name: str) -> None:
    lines = "".join(f"{key}={_text(value, world)}\n" for key, value in PAYLOADS[name].items())
    job = tmp_path / "evil.fio"
    job.write_text("[global]\nrw=read\n[x]\n" + lines)
    _refused(_attempt(["run", "--job-file", str(job)], world, capsys))


@pytest.mark.parametrize("name", sorted(JOB_FILES))
def test_job_file_tricks_are_refused(world, capsys, tmp_path: Path, name: str) -> None:
    assert not any(Path(path).exists() for path in OUTSIDE_CANARIES)
    job = tmp_path / "evil.fio"
    job.write_text(_text(JOB_FILES[name], world))
    _refused(_attempt(["run", "--job-file", str(job)], world, capsys))
    assert not any(Path(path).exists() for path in OUTSIDE_CANARIES)


@pytest.mark.parametrize("scratch_name", ["/tmp/CANARY-NAME", "/var/tmp/CANARY-NAME/sub/f", "/tmp/CANARY-NAME:/var/tmp/CANARY-NAME-b"])
def test_a_job_file_s_filename_in_tmp_is_placed_in_the_private_directory_and_never_written_there(
    world, capsys, tmp_path: Path, scratch_name: str,
) -> None:
    # A name unique to this test, so that whatever else uses /tmp, its absence afterwards is this run's doing.
    canary_name = f"iotui-canary-{uuid.uuid4().hex}"
    written = [Path(part) for part in scratch_name.replace("CANARY-NAME", canary_name).split(":")]
    tops = [Path("/tmp") / canary_name, Path("/var/tmp") / canary_name, Path("/var/tmp") / f"{canary_name}-b"]
    job = tmp_path / "scratch.fio"
    job.write_text(f"[global]\nrw=write\nfilename={':'.join(map(str, written))}\n[x]\n")
    common = ["--target", str(world["target"]), "--runtime", "1", "--size", "1M", "--baseline", "0"]
    try:
        code = cli.main(["run", "--job-file", str(job), *common])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "Traceback" not in out + err
        assert not any(path.exists() for path in written)
        assert not any(path.exists() for path in tops)
        assert not list(world["target"].iterdir())
        assert len(list(world["runs"].glob("*.toml"))) == 1
    finally:  # only on a failure: what a run in /tmp would have left
        for path in tops:
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()


@pytest.mark.parametrize("key", ["target", "targets"])
def test_a_preset_s_sweep_cannot_choose_the_target(world, capsys, key: str) -> None:
    (world["config"] / "iotui" / "presets" / "evil.toml").write_text(
        f'name = "evil"\ndescription = "x"\n[sweep]\nvary = {{ {key} = [{_toml_string(str(world["DIR"]))}] }}\n'
    )
    err = _attempt(["sweep", "evil"], world, capsys)
    assert "targets come from you" in err


@pytest.mark.parametrize("vary, words", [('tool = ["sh"]', "not one iotui knows"), ('job = ["other"]', "own job sections")])
def test_a_preset_s_sweep_names_only_its_own_jobs_and_known_tools(world, capsys, vary: str, words: str) -> None:
    presets_dir = world["config"] / "iotui" / "presets"
    (presets_dir / "evil.toml").write_text(f'name = "evil"\ndescription = "x"\n[sweep]\nvary = {{ {vary} }}\n')
    assert words in _attempt(["sweep", "evil"], world, capsys)


def test_a_file_size_option_cannot_pass_the_free_space_check(world, capsys, monkeypatch) -> None:
    # --size 8M --set filesiz=200M: the check uses the size fio will lay out (filesize), not --size.
    monkeypatch.setattr(target_checks, "_free_bytes", lambda path: 100 << 20)
    code = cli.main(["run", "quick", "--target", str(world["target"]), "--runtime", "1", "--size", "8M",
                     "--set", "filesiz=200M", "--baseline", "0"])
    err = capsys.readouterr().err
    assert code == 1 and "Not enough free space" in err and "200 MiB" in err
    assert not list(world["target"].iterdir())


def test_a_four_million_point_sweep_is_refused_before_any_work(world, capsys) -> None:
    values = ",".join(str(n) for n in range(1, 2001))
    code = cli.main(["sweep", "quick", "--vary", f"iodepth={values}", "--vary", f"rate_iops={values}",
                     "--target", str(world["target"])])
    err = capsys.readouterr().err
    assert code == 1 and "4,000,000 points" in err and "Traceback" not in err
    assert not world["runs"].exists() or not list(world["runs"].iterdir())


def test_a_sweep_over_ten_thousand_points_asks_first(world, capsys) -> None:
    values = ",".join(str(n) for n in range(1, 102))
    code = cli.main(["sweep", "quick", "--vary", f"iodepth={values}", "--vary", f"rate_iops={values}",
                     "--target", str(world["target"]), "--runtime", "1", "--size", "1M"])
    err = capsys.readouterr().err
    assert code == 1 and "10,201 points" in err and "--yes" in err
    assert not list(world["target"].iterdir())
