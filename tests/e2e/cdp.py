"""A small Chrome DevTools protocol client: a real headless Chromium, driven over its websocket.

Used by the ``iotui serve`` test: load the page, read what the terminal
shows, press keys. Debian's ``chromium`` package (``scripts/bootstrap.sh
--test`` installs it); as root Chromium needs ``--no-sandbox``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

CHROMIUM_NAMES = ("chromium", "chromium-browser")
# xterm draws on a canvas, so the page's text is read from what its websocket received:
# every frame the app sent, decoded, kept in window.__terminalOutput.
RECORD_TERMINAL_OUTPUT = """
window.__terminalOutput = "";
const NativeWebSocket = window.WebSocket;
window.WebSocket = function (url, protocols) {
  const socket = new NativeWebSocket(url, protocols);
  const decoder = new TextDecoder();
  socket.addEventListener("message", (event) => {
    window.__terminalOutput += typeof event.data === "string" ? event.data : decoder.decode(event.data, {stream: true});
  });
  return socket;
};
window.WebSocket.prototype = NativeWebSocket.prototype;
"""
ANSI = re.compile(r"\x1b\[[0-9;?<>=$]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78]")


def find_chromium() -> tuple[str | None, str]:
    """(the browser binary, or None with the reason it cannot be used)."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path is None:
            continue
        real = os.path.realpath(path)
        head = Path(real).read_bytes()[:4096]
        if real.startswith("/snap/") or (head.startswith(b"#!") and b"snap" in head):
            return None, (
                f"{path} is Ubuntu's Chromium snap, whose confinement keeps it from using the test's "
                "fresh profile directory and loopback DevTools port; Debian's chromium package runs this test"
            )
        return path, ""
    return None, "Chromium is not installed (scripts/bootstrap.sh --test installs Debian's chromium package)"


class Browser:
    """One headless Chromium with a fresh profile, and one page."""

    def __init__(self, binary: str, width: int = 1000, height: int = 720) -> None:
        self.binary = binary
        self.width = width
        self.height = height
        self.profile = tempfile.mkdtemp(prefix="iotui-chromium-")
        self.process: subprocess.Popen | None = None
        self.session: aiohttp.ClientSession | None = None
        self.socket: Any = None
        self.ids = itertools.count(1)
        # Every event the page sent while a call waited (console messages, log entries, requests).
        self.events: list[dict] = []

    async def start(self, timeout_s: float = 30.0) -> None:
        flags = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
            "--disable-dev-shm-usage", f"--user-data-dir={self.profile}", f"--window-size={self.width},{self.height}",
            "--remote-debugging-port=0", "--remote-allow-origins=*", "about:blank",
        ]
        self.process = subprocess.Popen(
            [self.binary, *flags], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout_s
        while not (port_file.exists() and port_file.read_text().strip()):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError("Chromium did not open its DevTools port")
            await asyncio.sleep(0.05)
        port = int(port_file.read_text().split()[0])
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as response:
            targets = await response.json(content_type=None)
        page = next(target for target in targets if target.get("type") == "page")
        self.socket = await self.session.ws_connect(page["webSocketDebuggerUrl"], max_msg_size=0)
        await self.call("Page.enable")
        await self.call("Runtime.enable")
        await self.call("Page.addScriptToEvaluateOnNewDocument", source=RECORD_TERMINAL_OUTPUT)

    async def call(self, method: str, **params: Any) -> dict:
        message_id = next(self.ids)
        await self.socket.send_str(json.dumps({"id": message_id, "method": method, "params": params}))
        while True:
            message = await self.socket.receive(timeout=60)
            if message.type != aiohttp.WSMsgType.TEXT:
                raise RuntimeError(f"DevTools socket closed during {method}")
            data = json.loads(message.data)
            if "method" in data:
                self.events.append(data)
            if data.get("id") == message_id:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data.get("result", {})

    async def evaluate(self, expression: str) -> Any:
        result = await self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result.get("result", {}).get("value")

    async def navigate(self, url: str) -> None:
        await self.call("Page.navigate", url=url)

    async def status(self, url: str) -> int:
        """The HTTP status the page at ``url`` answered with (a fetch from the page)."""
        result = await self.call(
            "Runtime.evaluate", expression=f"fetch({json.dumps(url)}).then(r => r.status)", awaitPromise=True,
            returnByValue=True,
        )
        return int(result["result"]["value"])

    async def screen_text(self, last_chars: int = 30000) -> str:
        """The text the app sent to the terminal lately (escape sequences removed)."""
        output = await self.evaluate(f"(window.__terminalOutput || '').slice(-{last_chars})") or ""
        return ANSI.sub("", output)

    async def wait_for_text(self, *needles: str, timeout_s: float = 60.0) -> str:
        deadline = time.monotonic() + timeout_s
        text = ""
        while time.monotonic() < deadline:
            text = await self.screen_text()
            if all(needle in text for needle in needles):
                return text
            await asyncio.sleep(0.2)
        raise AssertionError(f"the page never showed {needles!r}; it showed:\n{text}")

    async def press(self, key: str) -> None:
        """A printable key, as typed into the terminal."""
        await self.evaluate("document.querySelector('.xterm-helper-textarea').focus()")
        for kind in ("keyDown", "keyUp"):
            params = {"type": kind, "key": key}
            if kind == "keyDown":
                params["text"] = key
            await self.call("Input.dispatchKeyEvent", **params)

    async def screenshot(self, path: Path) -> None:
        import base64

        data = await self.call("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(data["data"]))

    async def close(self) -> None:
        if self.socket is not None:
            await self.socket.close()
        if self.session is not None:
            await self.session.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.profile, ignore_errors=True)
