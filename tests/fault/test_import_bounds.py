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
        for _ in range(3):
            started = time.process_time()  # CPU time: other work on the machine inflates it less
            runs = import_fio_runs(report)
            best_s = min(best_s, time.process_time() - started)
        assert len(runs) == 1 and len(runs[0].record.sections) == groups
        return best_s

    small_s, large_s = import_seconds(125), import_seconds(2000)
    # Linear: 16x the groups take about 16x the time (a fixed cost makes it less); a scan of every
    # job or option per group made 4x the groups 14.5x the time (9.6 s against 0.66 s), so 16x would
    # be about 200x. 40 leaves room for a machine busy with other work (4x the groups once measured
    # 6.2x on a loaded 2-core CI machine, against 3.4x quiet).
    assert large_s / small_s < 40, (small_s, large_s)
