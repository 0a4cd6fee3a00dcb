"""``iotui import DIR`` is bounded: no recursion on deep trees, no raw escapes in names, linear in groups."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from iotui import cli
from iotui.core.records.importer import import_fio_runs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
JSON_PLUS = FIXTURES / "import" / "fio-3.33" / "two-groups-json+.txt"
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x9b2J"
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_import_groups import report_with_groups  # noqa: E402


def _no_escapes(text: str) -> bool:
    return not any(ord(character) < 0x20 and character != "\n" or 0x7f <= ord(character) <= 0x9f for character in text)


def test_a_directory_1000_levels_deep_imports_its_file(tmp_path: Path, capsys) -> None:
    root = tmp_path / "deep"
    folder = root
    folder.mkdir()
    for _ in range(1000):  # one level at a time: os.makedirs recurses too
        folder = folder / "d"
        folder.mkdir()
    (folder / "run.json").write_bytes(JSON_PLUS.read_bytes())
    try:
        code = cli.main(["import", str(root), "--runs-dir", str(tmp_path / "runs")])
    finally:
        (folder / "run.json").unlink()
        while folder != tmp_path:  # bottom up: shutil.rmtree (pytest's clean-up) recurses on Python 3.11
            folder.rmdir()
            folder = folder.parent
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in out + err and "run.json ->" in out
    assert len(list((tmp_path / "runs").glob("*.toml"))) == 1


def test_file_names_with_escape_sequences_are_printed_without_them(tmp_path: Path, capsys) -> None:
    root = tmp_path / "in"
    root.mkdir()
    (root / f"good{ESCAPES}.json").write_bytes(JSON_PLUS.read_bytes())
    (root / f"bad{ESCAPES}.txt").write_text("not fio output\n")
    code = cli.main(["import", str(root), "--runs-dir", str(tmp_path / "runs")])
    out, err = capsys.readouterr()
    assert code != 0  # the file that is not fio output fails the command
    assert "good.json ->" in out and "bad.txt" in err, (out, err)  # named, the whole sequences removed
    assert _no_escapes(out) and _no_escapes(err), (out, err)
    assert len(list((tmp_path / "runs").glob("*.toml"))) == 1


@pytest.mark.slow
def test_import_time_grows_linearly_with_reporting_groups(tmp_path: Path) -> None:
    def import_seconds(groups: int) -> float:
        report = tmp_path / f"groups-{groups}.json"
        report.write_text(report_with_groups(groups, bins=False))
        best_s = float("inf")
        for _ in range(2):
            started = time.process_time()  # CPU time: other work on the machine inflates it less
            runs = import_fio_runs(report)
            best_s = min(best_s, time.process_time() - started)
        assert len(runs) == 1 and len(runs[0].record.sections) == groups
        return best_s

    small_s, large_s = import_seconds(500), import_seconds(2000)
    # Linear: 4x the groups take about 4x the time (measured 3.4x: 2.0 s against 0.59 s of CPU); with a
    # scan of every job or option per group it was 14.5x (9.6 s against 0.66 s).
    assert large_s / small_s < 6, (small_s, large_s)
