"""``iotui report`` of a real run, a real sweep and a real comparison, opened in a real headless Chromium.

The page loads nothing but itself and logs no error; the screenshot is not blank;
every table figure equals ``iotui show --json`` (or ``iotui compare --format json``)
of the same records; each chart's data, read back from the SVG matplotlib wrote,
equals the record's samples, the sweep's points and the comparison's figures.
"""

from __future__ import annotations

import asyncio
import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import requires_fio
from tests.e2e.cdp import Browser, find_chromium
from tests.report_readback import charts, json_at, table_figures

pytest.importorskip("matplotlib")
CHROMIUM, WHY_NOT = find_chromium()
pytestmark = [pytest.mark.fio, pytest.mark.slow, requires_fio, pytest.mark.skipif(CHROMIUM is None, reason=WHY_NOT)]


def iotui(*argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run([sys.executable, "-m", "iotui", *argv], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    return result


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory) -> Path:
    """A real two-point sweep of the quick preset: two run records and the sweep record."""
    root = tmp_path_factory.mktemp("report")
    target = root / "target"
    target.mkdir()
    runs = root / "runs"
    # Its own run lock (the per-test runtime directory is set only after this module's fixtures).
    runtime = root / "runtime"
    runtime.mkdir(mode=0o700)
    iotui("sweep", "quick", "--vary", "iodepth=1,4", "--runtime", "3", "--size", "4M", "--baseline", "0",
          "--target", str(target), "--runs-dir", str(runs), env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    return runs


def _records(runs: Path) -> list[Path]:
    return sorted(path for path in runs.glob("*.toml") if not path.name.endswith(".sweep.toml"))


async def _open(page: Path) -> tuple[list[dict], bytes, str]:
    """The page's events, its screenshot (PNG) and its text, as Chromium saw them."""
    import base64

    browser = Browser(str(CHROMIUM), width=1200, height=1600)
    await browser.start()
    try:
        await browser.call("Network.enable")
        await browser.call("Log.enable")
        await browser.navigate(page.as_uri())
        for _ in range(100):
            if await browser.evaluate("document.readyState") == "complete":
                break
            await asyncio.sleep(0.1)
        text = await browser.evaluate("document.body.innerText")
        shot = base64.b64decode((await browser.call("Page.captureScreenshot", format="png"))["data"])
        return browser.events, shot, text
    finally:
        await browser.close()


def _check_in_browser(page: Path) -> str:
    events, shot, text = asyncio.run(_open(page))
    requested = [e["params"]["request"]["url"] for e in events if e["method"] == "Network.requestWillBeSent"]
    assert requested == [page.as_uri()], requested  # self-contained: nothing else is fetched
    errors = [e for e in events if e["method"] in ("Runtime.exceptionThrown", "Log.entryAdded")
              and (e["method"] == "Runtime.exceptionThrown" or e["params"]["entry"]["level"] == "error")]
    errors += [e for e in events if e["method"] == "Runtime.consoleAPICalled" and e["params"]["type"] == "error"]
    assert errors == []
    from PIL import Image

    image = Image.open(io.BytesIO(shot)).convert("L")
    low, high = image.getextrema()
    assert image.size[0] > 0 and high - low > 100  # something is drawn, not a blank page
    return text


def _close(a: float, b: float, scale: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=scale * 1e-5)


def test_a_runs_report_opens_with_its_figures_and_samples(sweep_dir: Path) -> None:
    record = _records(sweep_dir)[0]
    out = sweep_dir / "one.html"
    iotui("report", str(record), "-o", str(out))
    page = out.read_text()
    shown = json.loads(iotui("show", "--json", str(record)).stdout)
    figures = table_figures(page)
    assert len(figures) >= 7
    for _, path, value in figures:
        assert json_at(shown, path) == value, path
    text = _check_in_browser(out)
    assert "Responsiveness:" in text and "Warnings" in text and shown["host"]["hostname"] in text
    drawn = charts(page)
    samples = [s for s in shown["samples"] if not s.get("paused")]
    for key, divisor in (("iops", 1.0), ("bw_bytes", float(1 << 20)), ("lat_p99_ns", 1000.0)):
        chart = drawn[f"r0-s0-{key}"]
        for direction in ("read", "write"):
            expected = [(s["t_s"], s[f"{direction}_{key}"] / divisor) for s in samples if f"{direction}_{key}" in s]
            got = chart.data(direction)
            assert len(got) == len(expected) > 0
            scale = chart.y_limits[1] - chart.y_limits[0]
            for (x, y), (t, v) in zip(got, expected):
                assert _close(x, t, chart.x_limits[1]) and _close(y, v, scale), (key, direction, (x, y), (t, v))


def test_a_sweeps_report_opens_with_its_points_and_curves(sweep_dir: Path) -> None:
    (sweep,) = sweep_dir.glob("*.sweep.toml")
    iotui("report", str(sweep))
    out = sweep.with_name(sweep.name[: -len(".toml")] + ".html")
    page = out.read_text()
    shown = json.loads(iotui("show", "--json", str(sweep)).stdout)
    figures = table_figures(page)
    assert {path for _, path, _ in figures} >= {"points.0.read_iops", "points.1.write_lat_p99_ns"}
    for _, path, value in figures:
        assert json_at(shown, path) == value, path
    text = _check_in_browser(out)
    # The sweep's figures, as the terminal writes them, are in the page people see.
    table = iotui("show", str(sweep)).stdout
    for line in table.splitlines()[1:3]:
        for cell in line.split()[1:7]:
            assert cell in text, (cell, line)
    assert "Sweet spot" in text
    drawn = charts(page)
    values = ["1", "4"]
    for key, divisor in (("iops", 1.0), ("lat_p99_ns", 1000.0)):
        chart = drawn[f"sweep-0-{key}"]
        scale = chart.y_limits[1] - chart.y_limits[0]
        for direction in ("read", "write"):
            expected = [(float(values.index(p["params"]["iodepth"])), p[f"{direction}_{key}"] / divisor) for p in shown["points"]]
            got = chart.data(f"{direction}-0")
            assert len(got) == len(expected)
            for (x, y), (i, v) in zip(got, expected):
                assert _close(x, i, 1.0) and _close(y, v, scale)
        sweet = shown["sweet_spot"]["params"]["iodepth"]
        marked = chart.data("sweet-spot")
        assert marked and all(_close(x, float(values.index(sweet)), 1.0) for x, _ in marked)


def test_a_comparisons_report_opens_with_its_bars_and_noise_band(sweep_dir: Path) -> None:
    first, second = _records(sweep_dir)
    out = sweep_dir / "compared.html"
    iotui("report", str(first), str(second), "-o", str(out))
    page = out.read_text()
    compared = json.loads(iotui("compare", "--format", "json", str(first), str(second)).stdout)
    shown = [json.loads(iotui("show", "--json", str(path)).stdout) for path in (first, second)]
    figures = table_figures(page)
    for record, path, value in figures:
        document = compared if record is None else shown[int(record)]
        assert json_at(document, path) == value, path
    assert any(path.startswith("metrics.") for record, path, _ in figures if record is None)
    _check_in_browser(out)
    chart = charts(page)["cmp-read-iops"]
    scale = chart.y_limits[1] - chart.y_limits[0]
    for label in ("a", "b"):
        assert _close(chart.bar_top(label), compared["metrics"]["read"]["iops"][label], scale)
    low, high = chart.band()
    assert low < compared["metrics"]["read"]["iops"]["a"] < high


def test_the_charts_as_files(sweep_dir: Path) -> None:
    record = _records(sweep_dir)[0]
    for file_format, magic in (("svg", b"<svg"), ("png", b"\x89PNG")):
        folder = sweep_dir / f"charts-{file_format}"
        iotui("report", str(record), "--format", file_format, "-o", str(folder))
        files = sorted(path.name for path in folder.iterdir())
        assert files == sorted(f"r0-s0-{key}.{file_format}" for key in ("iops", "bw_bytes", "lat_p99_ns"))
        assert all(magic in (folder / name).read_bytes()[:400] for name in files)


def test_the_sweep_views_report_goes_beside_the_sweep_record(sweep_dir: Path, tmp_path: Path) -> None:
    # What the x key of the sweep view calls (the Pilot tests press x on Results and Compare).
    from iotui.core.sweep.record import load_sweep
    from iotui.ui.services import Services

    (sweep,) = sweep_dir.glob("*.sweep.toml")
    page = Services(runs_dir=tmp_path, cwd=str(tmp_path)).write_report(sweep=load_sweep(sweep))
    assert page == sweep.with_name(sweep.name.removesuffix(".toml") + ".html")
    assert 'data-path="points.1.read_iops"' in page.read_text()
