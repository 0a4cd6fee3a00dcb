"""A job-file value fio's own parser would refuse (``rw=randreed``, ``iodepth=abc``, ``direct=maybe``)
is refused before fio runs, in one sentence naming the option and what fio accepts: no fio job starts,
no record is saved, no test file is laid out. Checked against real fio: it refuses each at parse
time, exit 1. A value only fio reads (``thinktime=abc``, ``verify=nosuch``) reaches fio, which refuses
it before any job starts: one sentence with what fio accepts (asked of fio), and no record either.
"""

from __future__ import annotations

import json
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from iotui.cli import main
from iotui.core.fio.parse_refusal import accepted_from_cmdhelp
from iotui.core.fio.policy import RW_VALUES
from iotui.core.fio.values import BOOLEAN_OPTIONS, PERCENT_OPTIONS, TIME_OPTIONS
from tests.conftest import requires_fio

pytestmark = [requires_fio]

JOB = """\
[global]
ioengine=psync
size=2M
runtime=1
time_based
{bad}

[job]
"""


def _canary_fio(tmp_path: Path) -> tuple[Path, Path]:
    """A fio that notes every call that is not a question (--version, --cmdhelp...) and runs real fio."""
    calls = tmp_path / "fio-calls"
    fio = tmp_path / "fio"
    fio.write_text(
        "#!/bin/sh\n"
        'case "$1" in --version|--cmdhelp*|--enghelp*|--help) ;; *) echo "$@" >> ' + str(calls) + " ;; esac\n"
        f'exec {shutil.which("fio")} "$@"\n'
    )
    fio.chmod(fio.stat().st_mode | stat.S_IXUSR)
    return fio, calls


@pytest.mark.parametrize(
    "bad, sentence",
    [
        ("rw=randreed", f"[global]: rw=randreed: fio accepts {', '.join(RW_VALUES)} (with an optional :N"),
        ("iodepth=abc", "[global]: iodepth=abc: fio wants a whole number of 1 or more (such as 1, 16 or 64)."),
        ("readwrite=RandRead", "[global]: readwrite=RandRead (fio reads 'readwrite' as 'rw'): fio accepts read,"),
        ("numjobs=0", "[global]: numjobs=0: fio wants a whole number of 1 or more"),
        ("direct=maybe", "[global]: direct=maybe: fio accepts 0 or 1."),
        ("direct=2", "[global]: direct=2: fio accepts 0 or 1."),
        ("runtime=abc", "[global]: runtime=abc: fio wants a time such as 10s, 500ms or 2m"),
        ("rwmixread=200", "[global]: rwmixread=200: fio accepts a whole number from 0 to 100"),
    ],
)
def test_a_value_fio_would_refuse_is_one_sentence_and_nothing_runs(tmp_path: Path, capsys, bad: str,
                                                                    sentence: str) -> None:
    job = tmp_path / "bad.fio"
    job.write_text(JOB.format(bad=bad))
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    fio, calls = _canary_fio(tmp_path)
    code = main(["run", "--job-file", str(job), "--target", str(target), "--runs-dir", str(runs), "--baseline", "0",
                 "--fio", str(fio)])
    out, err = capsys.readouterr()
    assert code == 1
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("warning [")]
    assert len(lines) == 1 and lines[0].startswith(f"iotui: {job} {sentence}"), err
    assert "is not a size" not in err and "failed parsing" not in err and "Traceback" not in err + out
    assert not calls.exists()  # fio never ran the job
    assert not (runs.exists() and list(runs.glob("*.toml")))  # no record
    assert list(target.iterdir()) == []


def test_what_fio_accepts_still_runs(tmp_path: Path, capsys) -> None:
    """rw with an offset modifier and an iodepth with fio's suffix are fio's own spellings: not refused."""
    job = tmp_path / "good.fio"
    job.write_text(JOB.format(bad="rw=randread:2\niodepth=1k\nrate_iops=50\ndirect=0x1\nrwmixread=0x64\nramp_time=0"))
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    code = main(["run", "--job-file", str(job), "--target", str(target), "--runs-dir", str(runs), "--baseline", "0"])
    assert code == 0, capsys.readouterr().err
    assert len(list(runs.glob("*.toml"))) == 1


# Values only fio reads: (the job-file line, what the sentence says fio accepts, from fio's --cmdhelp).
FIO_REFUSES = [
    ("thinktime=abc", "thinktime takes a whole number of 0 or more, such as 100 or 4k."),
    ("verify=nosuch", "verify takes one of 0, md5, crc64, crc32, crc32c-intel, crc32c, crc16, crc7, sha1,"),
    ("startdelay=q", "startdelay takes a time such as 10s, 500ms or 2m, a bare number being seconds."),
    ("norandommap=x", "norandommap takes 0 or 1, or no value."),
]


@pytest.mark.parametrize(("bad", "accepted"), FIO_REFUSES, ids=[bad for bad, _ in FIO_REFUSES])
def test_a_value_fio_refuses_ends_in_one_sentence_and_saves_no_record(tmp_path: Path, capsys, bad: str,
                                                                     accepted: str) -> None:
    job = tmp_path / "bad.fio"
    job.write_text(JOB.format(bad=bad))
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    fio, calls = _canary_fio(tmp_path)
    code = main(["run", "--job-file", str(job), "--target", str(target), "--runs-dir", str(runs), "--baseline", "0",
                 "--fio", str(fio)])
    out, err = capsys.readouterr()
    assert code == 1
    assert len(calls.read_text().splitlines()) == 1  # fio was given the job, and refused it
    lines = [line for line in err.splitlines() if line.strip()]
    assert "Traceback" not in err + out and sum(line.startswith("iotui:") for line in lines) == 1, err
    assert lines[-1].startswith(f"iotui: fio refused {bad} before any job started, so nothing ran and no record "
                                f"was saved; {accepted}"), err
    assert "failed in" not in out and "saved:" not in out, out  # no summary of a run that did not happen
    assert not (runs.exists() and list(runs.glob("*.toml")))  # no record, so nothing in History
    assert main(["history", "--runs-dir", str(runs), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"] == []
    assert list(target.iterdir()) == []


def test_a_preset_with_a_set_value_fio_refuses_saves_no_record(tmp_path: Path, capsys) -> None:
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    code = main(["run", "quick", "--set", "thinktime=abc", "--runtime", "1", "--size", "4M", "--target", str(target),
                 "--runs-dir", str(runs), "--baseline", "0"])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.splitlines()[-1] == (
        "iotui: fio refused thinktime=abc before any job started, so nothing ran and no record was saved; "
        "thinktime takes a whole number of 0 or more, such as 100 or 4k."), err
    assert not (runs.exists() and list(runs.glob("*.toml")))


@pytest.mark.parametrize("option", sorted(BOOLEAN_OPTIONS | TIME_OPTIONS | PERCENT_OPTIONS))
def test_the_options_read_before_fio_are_of_the_type_the_installed_fio_says(option: str) -> None:
    """iotui's own lists of fio's booleans, times and percentages, against fio's --cmdhelp."""
    said = subprocess.run([shutil.which("fio") or "fio", f"--cmdhelp={option}"], capture_output=True, text=True,
                          timeout=30).stdout
    accepted = accepted_from_cmdhelp(said)
    if option in BOOLEAN_OPTIONS:
        assert accepted == "0 or 1", said
    elif option in PERCENT_OPTIONS:
        assert accepted == "a whole number from 0 to 100", said
    else:
        assert accepted is not None and accepted.startswith("a time"), said
