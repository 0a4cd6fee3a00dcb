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

from iotui.core.runs.record_files import load_record
from tests.conftest import requires_fio
from tests.e2e.cdp import Browser, find_chromium

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


@pytest.fixture
def served(tmp_path: Path):
    """``iotui serve --port 0`` with a private preset directory; yields (url, runs dir, target)."""
    config = tmp_path / "config"
    (config / "iotui" / "presets").mkdir(parents=True)
    (config / "iotui" / "presets" / "browser-check.toml").write_text(BROWSER_PRESET)
    runs = tmp_path / "runs"
    target = tmp_path / "target"
    target.mkdir()
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "serve", "--port", "0", "--runs-dir", str(runs), "--target", str(target),
         "--preset", "browser-check"],
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
