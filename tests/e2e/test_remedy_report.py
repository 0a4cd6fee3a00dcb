"""`iotui report` and `iotui show` of a real remedy record (a short real `iotui remedy` run on a tmp
target): the page holds the remedy table and the verdict, the same figures and sentence `iotui show`
prints, not a sweep's page."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from iotui.core.remedy.cgroups import Hierarchy, usable_hierarchy
from tests.conftest import requires_fio
from tests.report_readback import json_at, table_figures

pytestmark = [pytest.mark.fio, requires_fio, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent.parent


def _iotui(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "iotui", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=180, env=env or dict(os.environ))


class _Table(HTMLParser):
    """The remedies table's header and each row's cell texts."""

    def __init__(self) -> None:
        super().__init__()
        self.inside = False
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and dict(attrs).get("data-table") == "remedies":
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


@pytest.fixture(scope="module")
def remedy_record(tmp_path_factory: pytest.TempPathFactory) -> Path:
    place = tmp_path_factory.mktemp("remedy-target")
    runtime = tmp_path_factory.mktemp("remedy-runtime")
    runtime.chmod(0o700)  # its own run lock, as every test has (the module's fixture runs before theirs)
    made = _iotui("remedy", "quick", "--size", "8M", "--runtime", "1", "--baseline", "1", "--target", str(place),
                  "--runs-dir", str(place / "runs"), "--json",
                  env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    assert made.returncode == 0, made.stderr
    return Path(json.loads(made.stdout)["sweep"])


def test_report_of_a_remedy_record_is_its_table_and_verdict(remedy_record: Path, tmp_path: Path) -> None:
    page_path = tmp_path / "remedy.html"
    written = _iotui("report", str(remedy_record), "-o", str(page_path))
    assert written.returncode == 0, written.stderr
    page = page_path.read_text(encoding="utf-8")
    shown = json.loads(_iotui("show", str(remedy_record), "--json").stdout)
    assert "Sweep of" not in page  # not an ordinary sweep's page
    parser = _Table()
    parser.feed(page)
    header, *rows = parser.rows
    assert header[:5] == ["remedy", "IOPS", "IOPS change", "BW", "BW change"]
    assert {"start-up p99", "start-up ×rest", "read p99", "level"} <= set(header)
    cgroup = ["cgroup weight 10"] if os.geteuid() == 0 and isinstance(usable_hierarchy(True), Hierarchy) else []
    assert [row[0] for row in rows] == ["as-is", "idle I/O class", *cgroup]  # a tmp target on /: no scheduler
    assert [row[header.index("level")] for row in rows] == [row["level"] for row in shown["rows"]]
    # Every figure in the page is the one `iotui show --json` prints, at the place its cell names.
    figures = [(path, value) for _, path, value in table_figures(page)]
    paths = {path for path, _ in figures}
    for index in range(len(rows)):
        assert {f"rows.{index}.iops", f"rows.{index}.bw_bytes", f"rows.{index}.iops_change_pct",
                f"rows.{index}.felt.start-up.p99_ms"} <= paths
    for path, value in figures:
        assert value == json_at(shown, path), path
    assert shown["rows"][0]["iops_change_pct"] == 0 and shown["rows"][1]["iops"] > 0
    # The verdict is the sentence `iotui show` prints under its table.
    text = _iotui("show", str(remedy_record)).stdout
    verdict = re.search(r"<p data-verdict>(.*?)</p>", page, re.S)
    assert verdict is not None
    from html import unescape

    sentence = unescape(verdict.group(1))
    assert sentence and sentence in text.splitlines()


def test_show_of_a_remedy_record_prints_the_table(remedy_record: Path) -> None:
    text = _iotui("show", str(remedy_record)).stdout
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("remedy"))
    assert "start-up p99" in header and "level" in header
    assert any(line.startswith("as-is") for line in lines) and any(line.startswith("idle I/O class") for line in lines)
    if os.geteuid() == 0 and isinstance(usable_hierarchy(True), Hierarchy):
        assert any(line.startswith("cgroup weight 10") for line in lines)


def test_show_of_a_remedy_record_fits_80_columns_and_wide_keeps_every_column(remedy_record: Path) -> None:
    narrow = _iotui("show", str(remedy_record), env={**os.environ, "COLUMNS": "80"}).stdout.splitlines()
    # The one line allowed past 80: the saved record's path on a line of its own (a path is never cut).
    assert narrow and all(len(line) <= 80 or Path(line) == remedy_record for line in narrow), narrow
    header = next(line for line in narrow if line.startswith("remedy"))
    # Bandwidth, then the wake-up and save figures give way; the start-up and read figures and the level stay.
    assert header.split()[:2] == ["remedy", "IOPS"] and "start-up p99" in header and header.endswith("level")
    assert "BW" not in header.split()
    verdict = [line for line in narrow if line.startswith(("The desktop", "None of", "No verdict", "Use", "Try"))]
    assert verdict, narrow
    wide = _iotui("show", str(remedy_record), "--wide", env={**os.environ, "COLUMNS": "80"}).stdout.splitlines()
    wide_header = next(line for line in wide if line.startswith("remedy"))
    assert "BW" in wide_header.split() and "wake-up p99" in wide_header and len(wide_header) > 80
