"""Headless tables fit the terminal: ``COLUMNS=80`` keeps every line within 80 characters without
splitting a word, ``--wide`` prints every column, on records imported from real fio output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.presets.files import find_preset
from iotui.core.sweep.plan import POINT_OVERHEAD_S, preset_estimate
from iotui.core.table import Column, Step, fit_table, wrap, labelled_path
from tests.conftest import FIO_FIXTURES


def iotui(*args: str, columns: int | None = 80) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    if columns is not None:
        env["COLUMNS"] = str(columns)
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, env=env, timeout=60)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs_dir = tmp_path_factory.mktemp("width") / "runs"
    done = iotui("import", str(FIO_FIXTURES / "randread-3jobs-json+.txt"), str(FIO_FIXTURES / "randrw-rate200-json+.txt"),
                 "--runs-dir", str(runs_dir))
    assert done.returncode == 0, done.stderr
    return runs_dir


def _fits(narrow: str, wide: str, width: int = 80) -> None:
    """No line wider than ``width``, and every word of the narrow output is a word of the wide one (or
    one cut with …): nothing was split mid-word."""
    assert narrow.strip()
    for line in narrow.splitlines():
        assert len(line) <= width, line
    wide_words = set(wide.split())
    for word in narrow.split():
        assert word in wide_words or word.endswith("…") or word.startswith("…"), word


def test_history_fits_80_columns_and_wide_prints_every_column(runs: Path) -> None:
    narrow = iotui("history", "--runs-dir", str(runs))
    wide = iotui("history", "--runs-dir", str(runs), "--wide")
    assert narrow.returncode == 0 and wide.returncode == 0, narrow.stderr + wide.stderr
    _fits(narrow.stdout, wide.stdout)
    assert max(len(line) for line in wide.stdout.splitlines()) > 80
    assert "where" in wide.stdout.splitlines()[0]
    assert "read IOPS" in narrow.stdout  # the figures stay, the target goes first


def test_presets_fit_80_columns(runs: Path) -> None:
    narrow, wide = iotui("presets"), iotui("presets", "--wide")
    assert narrow.returncode == 0, narrow.stderr
    _fits(narrow.stdout, wide.stdout)
    assert max(len(line) for line in wide.stdout.splitlines()) > 80


def test_compare_fits_80_columns_and_keeps_the_verdicts(runs: Path) -> None:
    a, b = sorted(runs.glob("*.toml"))
    narrow, wide = iotui("compare", str(a), str(b)), iotui("compare", str(a), str(b), "--wide")
    assert narrow.returncode == 0, narrow.stderr
    _fits(narrow.stdout, wide.stdout)
    assert "better" in narrow.stdout or "worse" in narrow.stdout


def test_without_columns_into_a_pipe_every_column_is_printed(runs: Path) -> None:
    piped = iotui("history", "--runs-dir", str(runs), columns=None)
    assert piped.stdout == iotui("history", "--runs-dir", str(runs), "--wide").stdout


def test_fit_table_applies_its_steps_in_order_and_only_as_far_as_needed() -> None:
    columns = [Column("name", min_width=6), Column("where", min_width=4, cut_keeps="end"), Column("n", align="right")]
    rows = [["a-long-name", "/srv/data/disk", "12"]]
    assert fit_table(columns, rows, None) == ["name         where            n", "a-long-name  /srv/data/disk  12"]
    steps = [Step("cut", 1), Step("drop", 1), Step("cut", 0)]
    # Cut to its 4, the target gets the room left back: 28 - (11 + 2 + 2 + 2 + 2) = 11 characters.
    assert fit_table(columns, rows, 28, steps) == ["name         where         n", "a-long-name  …/data/disk  12"]
    assert fit_table(columns, rows, 16, steps) == ["name          n", "a-long-name  12"]
    assert fit_table(columns, rows, 10, steps) == ["name     n", "a-lon…  12"]


def test_wrap_never_splits_a_word_or_a_path() -> None:
    lines = wrap("see /a/very/long/path-with-hyphens-in-it for more", 24)
    assert lines == ["see", "…path-with-hyphens-in-it", "for more"]


def test_a_sweep_presets_estimate_covers_its_whole_sweep() -> None:
    preset = find_preset("numjobs-scaling")
    # 6 points (numjobs 1, 2, 4, 8, 16, 32), each 10 s ramp + 30 s runtime per section, two sections.
    duration_s, _ = preset_estimate(preset)
    assert duration_s == 6 * (2 * (10 + 30) + POINT_OVERHEAD_S)
    listed = iotui("presets", "--wide").stdout
    line = next(line for line in listed.splitlines() if "Where adding jobs stops adding IOPS" in line)
    assert "~8m06s" in line


def test_a_saved_path_that_does_not_fit_after_its_label_has_a_line_of_its_own_uncut() -> None:
    path = "/a/very/long/runs/directory/20261129-073620-desktop-526550ef.toml"
    assert labelled_path("saved:", path, 120, "  ") == [f"  saved: {path}"]
    assert labelled_path("saved:", path, 60, "  ") == ["  saved:", path]
    assert labelled_path("Saved:", path, None) == [f"Saved: {path}"]
