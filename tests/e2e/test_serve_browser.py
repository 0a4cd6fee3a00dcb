"""`iotui serve` in a real headless Chromium: the token guards the page, Home shows, a short run is saved."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio
from tests.e2e.cdp import Browser, find_chromium
from tests.processes import command_lines

CHROMIUM, WHY_NOT = find_chromium()
pytestmark = [pytest.mark.fio, requires_fio]
requires_chromium = pytest.mark.skipif(CHROMIUM is None, reason=WHY_NOT)

# A user preset of one rate-limited second: the run is short and light.
BROWSER_PRESET = """
name = "browser-check"
title = "Browser check (1 s)"
description = "1-second rate-limited 4 KiB random read"
tells = "That a run started from the browser is saved."

[options]
ioengine = "psync"
rw = "randread"
bs = "4k"
size = "4M"
runtime = 1
time_based = ""
rate_iops = 100
"""
# Held for a minute: only the closed tab ends it.
LONG_PRESET = BROWSER_PRESET.replace('"browser-check"', '"browser-long"').replace("runtime = 1", "runtime = 60")


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest):
    """``iotui serve --port 0`` with a private preset directory; yields (url, token, runs dir, target).
    The preset chosen at start: browser-check, or the test's parameter."""
    preset = getattr(request, "param", "browser-check")
    config = tmp_path / "config"
    (config / "iotui" / "presets").mkdir(parents=True)
    (config / "iotui" / "presets" / "browser-check.toml").write_text(BROWSER_PRESET)
    (config / "iotui" / "presets" / "browser-long.toml").write_text(LONG_PRESET)
    runs = tmp_path / "runs"
    target = tmp_path / "target"
    target.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "serve", "--port", "0", "--runs-dir", str(runs), "--target", str(target),
         "--preset", preset],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "XDG_CONFIG_HOME": str(config)}, start_new_session=True,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    match = re.search(r"(http://127\.0\.0\.1:\d+/)\?token=(\S+)", line)
    assert match, (line, process.stderr.read() if process.poll() is not None else "")
    try:
        yield match.group(1), match.group(2), runs, target
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.communicate(timeout=30)
    assert [p.name for p in target.iterdir()] == []  # no test file left behind


@requires_chromium
async def test_the_page_needs_the_token_shows_home_and_saves_a_run(served) -> None:
    base, token, runs, target = served
    browser = Browser(CHROMIUM)
    await browser.start()
    try:
        await browser.navigate(base)
        assert await browser.status(base) == 403
        assert await browser.status(f"{base}?token=wrong") == 403
        assert await browser.status(f"{base}t/wrong/static/js/textual.js") == 403
        assert await browser.status(f"{base}?token={token}") == 200
        await browser.navigate(f"{base}?token={token}")
        text = await browser.wait_for_text("Browser check", str(target))
        assert "preset (p)" in text and "target (t)" in text
        await browser.press("r")
        deadline = time.monotonic() + 90
        while not list(runs.glob("*.toml")) and time.monotonic() < deadline:
            await browser.wait_for_text("", timeout_s=1)
            time.sleep(0.2)
        records = list(runs.glob("*.toml"))
        assert len(records) == 1, await browser.screen_text()
        record = load_record(records[0])
        assert record.status == "completed" and record.preset == "browser-check"
        await browser.wait_for_text("completed")
    finally:
        await browser.close()


def _tab_apps(runs: Path) -> list[int]:
    """The app processes textual-serve started for tabs (their command names the runs directory).

    One tab's app counts once: a process whose parent is itself a match (a shell that runs the
    app's command, or the app's child between fork and exec, which still bears its command line)
    is part of the same tab's app.
    """
    matched = {
        pid for pid, argv in command_lines()
        if str(runs).encode() in argv and b"serve" not in argv and b"iotui" in b" ".join(argv)
    }
    return sorted(pid for pid in matched if _parent(pid) not in matched)


def _parent(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return None


@requires_chromium
@pytest.mark.parametrize("served", ["browser-long"], indirect=True)
async def test_a_closed_tab_stops_its_run_keeps_the_record_and_its_app_ends(served) -> None:
    base, token, runs, target = served
    browser = Browser(CHROMIUM)
    await browser.start()
    try:
        await browser.navigate(f"{base}?token={token}")
        await browser.wait_for_text("Browser check", str(target))
        await browser.press("r")
        deadline = time.monotonic() + 60
        while not list(target.glob(".iotui-*/*")) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert list(target.glob(".iotui-*/*")), await browser.screen_text()
        apps = _tab_apps(runs)
        assert len(apps) == 1
        await browser.navigate("about:blank")  # the tab leaves the page: its websocket closes
        closed = time.monotonic()
        while _tab_apps(runs) and time.monotonic() - closed < 10:
            time.sleep(0.1)
        assert _tab_apps(runs) == [], "the tab's app outlived the tab"
        assert time.monotonic() - closed < 5.0
    finally:
        await browser.close()
    records = [load_record(path) for path in runs.glob("*.toml")]
    assert len(records) == 1
    assert records[0].status == "stopped" and records[0].run["ended_by"] == "terminal-lost"
    assert list(target.iterdir()) == []
