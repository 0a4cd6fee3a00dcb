"""`iotui serve` against bad requests: each gets a status and one log line, never a traceback.

The real ``iotui serve --port 0`` in a subprocess; the requests are raw bytes on a socket (what
anyone who reaches the port can send) and aiohttp's websocket client (what a page elsewhere can
open). After all of them the server still answers the good URL.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from iotui.web.requests import BadMessage, origin_problem, parse_envelope
from iotui.web.server import TokenServer


class Served:
    """A running ``iotui serve``; :meth:`stop` ends it and returns what it logged."""

    def __init__(self, tmp_path: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "iotui", "serve", "--port", "0", "--runs-dir", str(tmp_path / "runs"),
             "--target", str(tmp_path)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=(\S+)", line)
        assert match, (line, self.process.stderr.read() if self.process.poll() is not None else "")
        self.port, self.token = int(match.group(1)), match.group(2)

    def stop(self) -> str:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        _, err = self.process.communicate(timeout=30)
        return err


@pytest.fixture
def served(tmp_path: Path):
    server = Served(tmp_path)
    try:
        yield server
    finally:
        server.stop()


async def _raw(port: int, data: bytes) -> str:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(200), 10)
    writer.close()
    return answer.split(b"\r\n", 1)[0].decode()


async def _websocket(port: int, token: str, origin: str | None, send: str) -> tuple[int | None, int | None]:
    """(the handshake's refusal status, or None; the close code after ``send``, or None)."""
    headers = {"Origin": origin} if origin is not None else {}
    async with aiohttp.ClientSession() as session:
        try:
            async with session.ws_connect(f"http://127.0.0.1:{port}/t/{token}/ws", headers=headers) as websocket:
                await websocket.send_str(send)
                while True:
                    message = await asyncio.wait_for(websocket.receive(), 30)
                    if message.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING):
                        return None, websocket.close_code
                    if message.type == aiohttp.WSMsgType.TEXT and message.data.startswith('["pong"'):
                        return None, None
        except aiohttp.WSServerHandshakeError as refused:
            return refused.status, None


async def test_bad_requests_get_a_status_and_one_line_each(served: Served) -> None:
    port, token = served.port, served.token
    duplicate_host = b"GET /?token=" + token.encode() + b" HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"
    assert (await _raw(port, duplicate_host)).endswith("400 Bad Request")
    assert (await _raw(port, b"GET /" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: a\r\n\r\n")).endswith("400 Bad Request")
    nul = f"GET /t/{token}/static/js%00x HTTP/1.1\r\nHost: a\r\n\r\n".encode()
    assert (await _raw(port, nul)).endswith("400 Bad Request")
    host = f"127.0.0.1:{port}"
    assert await _websocket(port, token, "http://evil.example", '["ping", 1]') == (403, None)
    assert await _websocket(port, token, f"http://evil.example:{port}", '["ping", 1]') == (403, None)
    assert await _websocket(port, token, "null", '["ping", 1]') == (403, None)
    assert await _websocket(port, "wrong", None, '["ping", 1]') == (403, None)
    malformed = ("not json", "[1]", '{"a": 1}', '["resize", {"width": 1e9, "height": 2}]', '["stdin", 5]')
    for bad in malformed:
        assert await _websocket(port, token, f"http://{host}", bad) == (None, 1003), bad
    # What the page itself sends still works, with its Origin and without one (not a browser).
    assert await _websocket(port, token, f"http://{host}", '["ping", "x"]') == (None, None)
    assert await _websocket(port, token, None, '["ping", "x"]') == (None, None)
    async with aiohttp.ClientSession() as session:
        async with session.get(f"http://{host}/?token={token}") as page:
            assert page.status == 200
    logged = served.stop()
    assert "Traceback" not in logged and "Error handling request" in logged
    lines = [line for line in logged.splitlines() if line.startswith("iotui serve:")]
    assert sum("Duplicate 'Host'" in line for line in lines) == 1
    assert sum("Got more than" in line or "8190" in line for line in lines) == 1
    assert sum("NUL byte" in line for line in lines) == 1
    assert sum("refused a websocket" in line for line in lines) == 3  # the wrong token is a plain 403
    assert sum("closed a websocket that sent" in line for line in lines) == len(malformed)
    assert all(len(line) < 400 for line in lines)


async def test_text_reaches_the_page_html_escaped() -> None:
    server = TokenServer("true", host="127.0.0.1", port=0, title="<script>alert(1)</script>", token="T")
    runner, listening = await server.listen()
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(listening.url + "&fontsize=<b>") as page:
                body = await page.text()
    finally:
        await runner.cleanup()
    assert page.status == 200
    assert "<script>alert(1)</script>" not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "<b>" not in body


async def test_a_font_size_that_is_no_number_gives_the_page_at_its_own_size() -> None:
    # fontsize=² (a digit to isdigit(), not to int()) answered 500 with a traceback in the log.
    server = TokenServer("true", host="127.0.0.1", port=0, title="iotui", token="T")
    runner, listening = await server.listen()
    try:
        async with aiohttp.ClientSession() as session:
            async with session.get(listening.url + "&fontsize=%C2%B2") as page:
                status = page.status
            async with session.get(listening.url + "&fontsize=" + "9" * 400) as page:
                huge_status, huge = page.status, await page.text()
    finally:
        await runner.cleanup()
    assert status == 200 and huge_status == 200
    assert "9" * 50 not in huge


def test_origin_must_name_the_host_it_reached() -> None:
    assert origin_problem(None, "127.0.0.1:8000") is None
    assert origin_problem("http://127.0.0.1:8000", "127.0.0.1:8000") is None
    assert origin_problem("http://LOCALHOST:8000", "localhost:8000") is None
    assert origin_problem("http://example.com", "example.com:80") is None
    assert origin_problem("http://[::1]:8000", "[::1]:8000") is None
    assert "another site" in (origin_problem("http://127.0.0.1:8001", "127.0.0.1:8000") or "")
    assert "another site" in (origin_problem("http://evil.example:8000", "127.0.0.1:8000") or "")
    assert "another site" in (origin_problem("https://127.0.0.1:8000", "127.0.0.1") or "")
    assert "not a web page" in (origin_problem("null", "127.0.0.1:8000") or "")
    assert "not a web page" in (origin_problem("file://x", "127.0.0.1:8000") or "")


@pytest.mark.parametrize("text", ["", "[", "[]", "[1]", "{}", '["stdin"]', '["resize", {"width": 0, "height": 5}]',
                                  '["resize", {"width": true, "height": 5}]', '["ping", [1]]', "[" * 100_000])
def test_malformed_messages_are_named(text: str) -> None:
    with pytest.raises(BadMessage):
        parse_envelope(text)


def test_the_pages_own_messages_pass() -> None:
    assert parse_envelope('["stdin", "q"]').data == "q"
    assert parse_envelope('["resize", {"width": 120, "height": 40}]').data == {"width": 120, "height": 40}
    assert parse_envelope('["focus"]').kind == "focus"
