"""A job-file value fio's own parser would refuse (``rw=randreed``, ``iodepth=abc``) is refused before
fio runs, in one sentence naming the option and what fio accepts: no fio job starts, no record is
saved, no test file is laid out. Checked against real fio: it refuses both at parse time, exit 1.
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from iotui.cli import main
from iotui.core.fio.policy import RW_VALUES
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
    job.write_text(JOB.format(bad="rw=randread:2\niodepth=1k\nrate_iops=50"))
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    code = main(["run", "--job-file", str(job), "--target", str(target), "--runs-dir", str(runs), "--baseline", "0"])
    assert code == 0, capsys.readouterr().err
    assert len(list(runs.glob("*.toml"))) == 1
