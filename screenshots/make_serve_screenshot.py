#!/usr/bin/env python3
"""Make serve.png: the app in a real headless Chromium through ``iotui serve``.

Starts ``iotui serve --port 0`` (a throw-away runs directory), opens the
printed URL with its token in Debian's chromium, waits for Home and saves a
screenshot next to this script.

    python screenshots/make_serve_screenshot.py [--target DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from tests.e2e.cdp import Browser, find_chromium  # noqa: E402


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default=os.getcwd())
    args = parser.parse_args()
    chromium, why_not = find_chromium()
    if chromium is None:
        print(why_not, file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="iotui-serve-shot-") as runs:
        server = subprocess.Popen(
            [sys.executable, "-m", "iotui", "serve", "--port", "0", "--runs-dir", runs, "--target", args.target,
             "--preset", "quick"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True,
        )
        try:
            url = re.search(r"http://\S+", server.stdout.readline()).group(0)
            browser = Browser(chromium, width=840, height=560)
            await browser.start()
            try:
                await browser.navigate(url)
                await browser.wait_for_text("preset (p)", "fio command")
                await asyncio.sleep(1.5)  # let xterm draw the last frame
                await browser.screenshot(HERE / "serve.png")
            finally:
                await browser.close()
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.communicate(timeout=30)
    print(HERE / "serve.png")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
