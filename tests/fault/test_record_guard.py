"""Every kind of record passes one guard: broken sweep records are refused by name, never a traceback.

Each broken sweep record is an edit of a real one (saved by iotui), one fault each: nested
200,000 deep, ``points = 5``, ``responsiveness = 5``, ``read_iops = nan``, an escape sequence in
an axis key. ``show`` and ``report`` name the file in one sentence; ``sweep --resume`` skips the
broken file with one line and resumes the good sweep beside it.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui import cli
from iotui.core.records.files import load_record, save_record
from iotui.core.sweep.points import PointResult
from iotui.core.sweep import SWEEP_SUFFIX
from iotui.core.sweep.record import SweepRecord, SweepRecordError, load_sweep, save_sweep
from iotui.core.sweep.values import SweepAxis
from tests.conftest import requires_fio
from tests.ui.test_comparison import make_record

ESCAPE = "\\u001b]0;pwned\\u0007\\u001b[2J"
DEEP_PARTS = 200_000


def _good_sweep(runs: Path) -> Path:
    axes = [SweepAxis("numjobs", ("1", "2"))]
    sweep = SweepRecord.new("quick", "Quick", axes, [{"numjobs": "1"}, {"numjobs": "2"}], {"preset": "quick"})
    sweep.points[0].status = "completed"
    sweep.points[0].set_result(PointResult({"numjobs": "1"}, read_iops=100.0, responsiveness="smooth"))
    return save_sweep(sweep, runs)


def _broken(text: str) -> dict[str, str]:
    assert "read_iops = 100.0" in text and 'responsiveness = "smooth"' in text and 'key = "numjobs"' in text
    assert "[[points]]" in text
    return {
        "nested 200,000 deep": text + "\n[base.x" + ".a" * DEEP_PARTS + "]\nv = 1\n",
        "nested 200,000 deep, dotted key": text.replace("[base]", "[base]\nx" + ".a" * DEEP_PARTS + " = 1", 1),
        "points = 5": "points = 5\n" + text.split("[[points]]")[0],
        "responsiveness = 5": text.replace('responsiveness = "smooth"', "responsiveness = 5"),
        "read_iops = nan": text.replace("read_iops = 100.0", "read_iops = nan"),
        "read_iops = a string": text.replace("read_iops = 100.0", 'read_iops = "100"'),
        "escape in an axis key": text.replace('key = "numjobs"', f'key = "numjobs{ESCAPE}"').replace(
            "numjobs = ", f'"numjobs{ESCAPE}" = '
        ),
    }


@pytest.fixture
def broken(tmp_path: Path) -> tuple[Path, Path, dict[str, Path]]:
    runs = tmp_path / "runs"
    runs.mkdir()
    good = _good_sweep(runs)
    paths = {}
    for index, (name, body) in enumerate(_broken(good.read_text()).items()):
        path = runs / f"20200101-0000{index:02d}-broken-{index:08d}{SWEEP_SUFFIX}"
        path.write_text(body)
        paths[name] = path
    return runs, good, paths


def test_each_broken_sweep_record_is_refused_by_name_and_quickly(broken) -> None:
    _, good, paths = broken
    assert load_sweep(good).points[0].result["read_iops"] == 100.0
    for name, path in paths.items():
        started = time.monotonic()
        with pytest.raises(SweepRecordError) as caught:
            load_sweep(path)
        assert time.monotonic() - started < 5, name  # tomllib alone takes hours on the dotted key
        assert str(path) in str(caught.value) and "\x1b" not in str(caught.value), name


@pytest.mark.parametrize("command", ["show", "report"])
def test_show_and_report_name_the_broken_sweep_record_in_one_sentence(broken, capsys, command: str) -> None:
    runs, _, paths = broken
    for name, path in paths.items():
        html = runs / f"{path.stem}.html"
        argv = ["show", str(path)] if command == "show" else ["report", str(path), "-o", str(html)]
        code = cli.main(argv)
        out, err = capsys.readouterr()
        assert code != 0, name
        assert path.name in err and "Traceback" not in out + err and "\x1b" not in out + err, (name, err)
        assert len(err.strip().splitlines()) == 1, (name, err)
        assert not html.exists(), name  # the canary: nothing written for a refused record


def test_a_deep_run_record_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    good = save_record(make_record("aaaaaaaa01", 1, preset="quick", iops=100.0), runs)
    deep = runs / "20200101-000000-deep-00000000.toml"
    deep.write_text(good.read_text() + "\n[x" + ".a" * DEEP_PARTS + "]\nv = 1\n")
    started = time.monotonic()
    with pytest.raises(Exception, match="nests too deeply") as caught:
        load_record(deep)
    assert time.monotonic() - started < 5 and str(deep) in str(caught.value)


RATE_JOB = "[global]\nioengine=psync\nrw=read\nbs=4k\nsize=64k\n\n[one]\n"


@requires_fio
@pytest.mark.fio
def test_sweep_resume_skips_a_broken_sweep_record_with_one_line(tmp_path: Path) -> None:
    job = tmp_path / "one.fio"
    job.write_text(RATE_JOB)
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    command = [
        sys.executable, "-m", "iotui", "sweep", "--job-file", str(job), "--vary", "numjobs=1",
        "--target", str(target), "--runs-dir", str(runs), "--baseline", "0",
    ]
    first = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    records = sorted(path.name for path in runs.glob("*.toml"))
    good = next(runs.glob(f"*{SWEEP_SUFFIX}"))
    broken = {name: body for name, body in _broken_from_cli(good.read_text()).items()}
    for index, body in enumerate(broken.values()):
        (runs / f"29990101-0000{index:02d}-broken-{index:08d}{SWEEP_SUFFIX}").write_text(body)
    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, timeout=60)
    output = resumed.stdout + resumed.stderr
    assert resumed.returncode == 0, output
    assert "Traceback" not in output and "\x1b" not in output
    skipped = [line for line in output.splitlines() if line.startswith("Skipping a sweep record")]
    assert len(skipped) == len(broken), output
    assert f"Resuming {good}: 1 of 1 points already completed" in output
    # The canary: the completed point is not run again (no new run record).
    assert sorted(path.name for path in runs.glob("*.toml")) == records + sorted(
        f"29990101-0000{index:02d}-broken-{index:08d}{SWEEP_SUFFIX}" for index in range(len(broken))
    )


def _broken_from_cli(text: str) -> dict[str, str]:
    """The same faults, on a sweep record ``iotui sweep`` wrote."""
    assert "[[points]]" in text and "read_iops = " in text
    return {
        "nested 200,000 deep": text + "\n[base.x" + ".a" * DEEP_PARTS + "]\nv = 1\n",
        "points = 5": "points = 5\n" + text.split("[[points]]")[0],
        "read_iops = nan": "\n".join(
            "read_iops = nan" if line.startswith("read_iops = ") else line for line in text.splitlines()
        ),
    }
