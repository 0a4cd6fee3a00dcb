"""``iotui report``'s page from records made here: text from records escaped, figures carried whole,
any direction a section has, and a sentence (not a traceback) without matplotlib."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from pathlib import Path

import pytest

from iotui.core.report.build import default_charts_dir, default_html_path
from iotui.core.records.record import RunRecord
from iotui.core.records.files import save_record
from tests.report_readback import charts, json_at, table_figures


def charts_svg(page: str) -> list[tuple[str, str]]:
    """Each chart's name and its SVG text."""
    import re

    return re.findall(r'<figure data-chart="([^"]+)"[^>]*>(<svg.*?</svg>)', page, re.S)

HOSTILE = '<script>alert("x")</script> & <img src=x onerror=1>'


def _record(title: str = "plain", *, name: str = "job", directions: tuple[str, ...] = ("read",), warning: str = "") -> RunRecord:
    samples = []
    for second in range(1, 6):
        sample: dict = {"t_s": float(second), "dt_s": 1.0, "section": 0, "responsiveness": "sluggish" if second == 3 else "ok"}
        for number, direction in enumerate(directions):
            sample.update({f"{direction}_iops": 1000.0 * second + number, f"{direction}_bw_bytes": 4096000.0 * second,
                           f"{direction}_lat_p99_ns": 250_000.0 + second})
        samples.append(sample)
    section = {"name": name, "jobs": [name], "groupid": 0}
    for direction in directions:
        section[direction] = {"iops": 3000.123456789, "bw_bytes": 12288000.5, "lat_p99_ns": 250_003.0, "lat_mean_ns": 1.0 / 3}
    return RunRecord(
        run={"id": "abc", "preset": "quick", "status": "completed", "title": title,
             "started": dt.datetime(2026, 11, 21, 12, tzinfo=dt.timezone.utc), "duration_s": 5.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": HOSTILE, "system": "Linux", "kernel": "6.1", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "sda", "mount_options": "rw"},
        options={"rw": "randread"},
        sections=[section],
        samples=samples,
        warnings=[{"code": "cache-latency", "message": warning}] if warning else [],
    )


def _page(records: list[RunRecord]) -> str:
    pytest.importorskip("matplotlib")
    from iotui.core.report.build import runs_report

    return runs_report(records, None)[0]


@pytest.fixture(scope="module")
def hostile() -> tuple[RunRecord, str]:
    """One record whose title, host name and warning are markup, and its page (drawn once: charts are slow)."""
    record = _record(HOSTILE, name=f"{HOSTILE} $x^$", warning=HOSTILE)
    return record, _page([record])


def test_text_from_records_is_escaped_everywhere(hostile) -> None:
    _, page = hostile
    assert "<script>" not in page and "<img" not in page
    assert page.count("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") >= 4  # title, section, host, warning
    # In the charts too (matplotlib's SVG text), and a dollar sign stays one (never read as math).
    assert "$x^$" in next(chart for name, chart in charts_svg(page) if name == "r0-s0-iops")


def test_each_figure_cell_carries_the_records_own_number(hostile) -> None:
    record, page = hostile
    document = record.to_json_dict()
    figures = table_figures(page)
    assert ("0", "sections.0.read.iops", 3000.123456789) in figures
    assert ("0", "sections.0.read.lat_mean_ns", 1.0 / 3) in figures
    assert all(json_at(document, path) == value for _, path, value in figures)


def test_a_direction_the_report_never_heard_of_is_drawn_like_the_others(monkeypatch) -> None:
    # Sections are read direction by direction as the record's schema lists them; a new one is one more.
    import iotui.core.records.record as record_module
    import iotui.core.records.schema as schema

    monkeypatch.setattr(schema, "DIRECTIONS", (*schema.DIRECTIONS, "mixed"))
    monkeypatch.setattr(record_module, "DIRECTIONS", schema.DIRECTIONS)
    record = _record(directions=("read", "mixed"))
    page = _page([record])
    assert ("0", "sections.0.mixed.iops", 3000.123456789) in table_figures(page)
    chart = charts(page)["r0-s0-iops"]
    assert "mixed" in chart.ids()
    assert [round(y) for _, y in chart.data("mixed")] == [1001, 2001, 3001, 4001, 5001]


def test_the_responsiveness_levels_are_under_the_charts(hostile) -> None:
    _, page = hostile
    ids = charts(page)["r0-s0-iops"].ids()
    assert [i for i in ids if i.startswith("level-")] == ["level-0-ok", "level-1-sluggish", "level-2-ok"]
    assert "sluggish</span> 2–3 s" in page


def test_default_places_beside_the_first_record() -> None:
    assert default_html_path(Path("/r/20261121-quick-ab.toml")) == Path("/r/20261121-quick-ab.html")
    assert default_html_path(Path("/r/x-quick-ab.sweep.toml")) == Path("/r/x-quick-ab.sweep.html")
    assert default_charts_dir(Path("/r/x-quick-ab.sweep.toml")) == Path("/r/x-quick-ab-charts")


def test_without_matplotlib_the_command_says_how_to_add_it(tmp_path: Path) -> None:
    path = save_record(_record(), tmp_path)
    code = (
        "import sys\n"
        "sys.modules['matplotlib'] = None  # as if it were not installed\n"
        "from iotui.cli import main\n"
        f"sys.exit(main(['report', {str(path)!r}]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "pip install 'iotui[report]'" in result.stderr and "Traceback" not in result.stderr
    [page] = tmp_path.glob("*.html")  # the page with its tables, a sentence in place of each chart
    assert "<svg" not in page.read_text() and 'class="no-chart"' in page.read_text()


def test_without_matplotlib_a_missing_record_is_named_first(tmp_path: Path) -> None:
    """A mistyped name is the first thing to fix: installing matplotlib would not help it."""
    code = (
        "import sys\n"
        "sys.modules['matplotlib'] = None  # as if it were not installed\n"
        "from iotui.cli import main\n"
        f"sys.exit(main(['report', '--runs-dir', {str(tmp_path)!r}, {str(tmp_path / 'nope.toml')!r}]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 1
    assert "nope.toml: no such record" in result.stderr and "not installed" not in result.stderr


def test_a_desktop_run_leads_with_its_desktop_table() -> None:
    record = _record()
    record.samples = []  # no charts to draw: this is about the table
    record.sections = [
        {"name": name, "jobs": [name], "groupid": number, direction: {"iops": 100.0 + number, "bw_bytes": 1048576.0 * (number + 1)}}
        for number, (name, direction) in enumerate((("seq1m-q8t1-read", "read"), ("seq1m-q8t1-write", "write")))
    ]
    page = _page([record])
    assert page.index('data-table="desktop"') < page.index('data-table="sections"')
    desktop = page[page.index('data-table="desktop"'):page.index('data-table="sections"')]
    assert "SEQ1M Q8T1" in desktop
    assert 'data-path="sections.1.write.bw_bytes" data-value="2097152.0"' in desktop


def test_a_sweep_of_several_sections_gets_each_sections_table_and_curves(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    from iotui.core.report.build import sweep_report
    from iotui.core.sweep.analysis import analyze
    from iotui.core.sweep.output import sweep_json
    from tests.core.test_sweep_sections import FIGURES, _sweep

    sweep = _sweep(tmp_path)
    page, specs = sweep_report(sweep)
    document = sweep_json(sweep, analyze(sweep.results(), sweep.axes))
    figures = table_figures(page)
    assert {path for _, path, _ in figures} >= {"sections.0.points.2.read_iops", "sections.1.points.0.write_lat_p99_ns"}
    assert all(json_at(document, path) == value for _, path, value in figures)
    drawn = charts(page)
    assert sorted(drawn) == ["sweep-0-iops", "sweep-0-lat_p99_ns", "sweep-1-iops", "sweep-1-lat_p99_ns"]
    read = drawn["sweep-0-iops"]
    assert [(round(x), round(y)) for x, y in read.data("read-0")] == [(0, 1000), (1, 1980), (2, 2000)]
    assert [round(x) for x, _ in read.data("sweet-spot")] == [1]  # numjobs=2 for randread
    write = drawn["sweep-1-lat_p99_ns"]
    assert [round(y) for _, y in write.data("write-0")] == [FIGURES[v][3] / 1000 for v in ("1", "2", "4")]


def test_the_comparison_table_names_the_bandwidth_unit() -> None:
    """Bandwidth cells print MiB/s figures without a unit (as the sections table does): the row names it."""
    import re

    from iotui.core.report.run_report import comparison_table
    from iotui.core.compare.compare import compare_records

    page = comparison_table(compare_records([_record("a"), _record("b")]), "metrics")
    rows = re.findall(r"<tr>(.*?)</tr>", page, flags=re.S)
    bandwidth = [row for row in rows if "bandwidth" in row]
    assert bandwidth and all("MiB/s" in row for row in bandwidth)
