"""``iotui report`` without matplotlib (a plain install has none) writes the page: every table, and one
sentence in place of each chart. Run in a subprocess where ``import matplotlib`` fails (a
sitecustomize on PYTHONPATH that blocks it), on runs imported from real fio output."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import FIO_FIXTURES
from tests.report_readback import table_figures

BLOCKER = """\
import sys


class _NoMatplotlib:
    def find_spec(self, name, path=None, target=None):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ModuleNotFoundError("No module named 'matplotlib'", name=name)
        return None


sys.meta_path.insert(0, _NoMatplotlib())
"""


def iotui(*args: str, blocker: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if blocker is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(blocker), env.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, "-m", "iotui", *args], capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs_dir = tmp_path_factory.mktemp("report") / "runs"
    done = iotui("import", str(FIO_FIXTURES / "randread-3jobs-json+.txt"), str(FIO_FIXTURES / "randrw-rate200-json+.txt"),
                 "--runs-dir", str(runs_dir))
    assert done.returncode == 0, done.stderr
    return runs_dir


def test_the_blocker_blocks(tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    probe = subprocess.run([sys.executable, "-c", "import matplotlib"], capture_output=True, text=True, env=env)
    assert probe.returncode != 0 and "No module named 'matplotlib'" in probe.stderr


def test_without_matplotlib_the_page_has_every_table_and_a_sentence_per_chart(runs: Path, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")  # the page with charts is what the one without is held against
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    a, b = sorted(runs.glob("*.toml"))
    drawn_page, plain_page = tmp_path / "drawn.html", tmp_path / "plain.html"
    drawn = iotui("report", str(a), str(b), "-o", str(drawn_page))
    plain = iotui("report", str(a), str(b), "-o", str(plain_page), blocker=tmp_path)
    assert drawn.returncode == 0, drawn.stderr
    assert plain.returncode == 0, plain.stderr
    assert "matplotlib is not installed" in plain.stderr and "Traceback" not in plain.stderr
    with_charts, without = drawn_page.read_text(), plain_page.read_text()
    assert table_figures(without) == table_figures(with_charts) and table_figures(without)
    charts = re.findall(r'<figure data-chart="([^"]+)"', with_charts)
    sentences = re.findall(r'<p class="no-chart" data-chart="([^"]+)">The chart "[^"]+" is not drawn', without)
    assert charts and sentences == charts
    assert "<svg" not in without


def test_chart_files_without_matplotlib_are_refused_in_one_sentence(runs: Path, tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(BLOCKER)
    a = sorted(runs.glob("*.toml"))[0]
    done = iotui("report", str(a), "--format", "svg", "-o", str(tmp_path / "charts"), blocker=tmp_path)
    assert done.returncode == 1 and "matplotlib, which is not installed" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "charts").exists()
