"""The app's terminal driver: its input thread sleeps while no key comes, and keys still work.

The app runs as a user starts it, in a pseudo-terminal (as over SSH), not under the Pilot
(which uses Textual's headless driver).
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from iotui.ui.driver import IDLE_WAIT_S, SHORT_WAIT_S, input_wait_s

_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
REPO = Path(__file__).resolve().parents[2]


class Terminal:
    def __init__(self, argv: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO,
                                        start_new_session=True)
        os.close(slave)
        self.received = bytearray()

    def pump(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if select.select([self.master], [], [], min(left, 0.1))[0]:
                try:
                    self.received += os.read(self.master, 1 << 16)
                except OSError:
                    return

    def text_since(self, mark: int) -> str:
        """What the terminal received since ``mark``, escape sequences out and blanks collapsed."""
        return " ".join(_ESCAPES.sub(b" ", bytes(self.received[mark:])).decode("utf-8", "replace").split())

    def wait_for(self, words: str, since: int = 0, timeout_s: float = 60) -> float:
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            if words in self.text_since(since):
                return time.monotonic() - started
            assert self.process.poll() is None, f"the app ended: {self.text_since(0)[-500:]!r}"
            self.pump(0.05)
        raise AssertionError(f"{words!r} not on the screen after {timeout_s} s: {self.text_since(since)[-500:]!r}")

    def wake_ups(self) -> dict[str, int]:
        """Each thread's voluntary context switches: how often it went to sleep and woke."""
        counts = {}
        for task in Path(f"/proc/{self.process.pid}/task").iterdir():
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    counts[task.name] = int(line.split()[1])
        return counts

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        os.close(self.master)


def test_the_wait_is_short_only_while_a_key_may_be_incomplete_or_a_stop_is_asked() -> None:
    assert input_wait_s(escape_pending=False, stopping=False) == IDLE_WAIT_S
    assert input_wait_s(escape_pending=True, stopping=False) == SHORT_WAIT_S
    assert input_wait_s(escape_pending=False, stopping=True) == SHORT_WAIT_S


def test_in_a_terminal_the_idle_app_does_not_wake_and_escape_and_quit_still_work(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    env = {**os.environ, "TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for name in ("NO_COLOR", "COLUMNS", "LINES", "TEXTUAL_DRIVER"):
        env.pop(name, None)
    terminal = Terminal([sys.executable, "-m", "iotui", "--runs-dir", str(tmp_path / "runs"),
                         "--target", str(target), "--preset", "quick"], env)
    try:
        terminal.wait_for("--status-interval")  # Home with its presets and the planned fio command
        terminal.pump(1.0)
        before = terminal.wake_ups()
        terminal.pump(3.0)
        after = terminal.wake_ups()
        woke = {thread: after[thread] - before.get(thread, 0) for thread in after}
        # Textual's own input thread wakes ten times a second: 30 here.
        assert max(woke.values()) < 10, woke

        mark = len(terminal.received)
        os.write(terminal.master, b"e")  # the option line takes the keys; a lone Escape gives them back
        terminal.wait_for("esc Done", since=mark, timeout_s=10)
        mark = len(terminal.received)
        os.write(terminal.master, b"\x1b")
        assert terminal.wait_for("e Options", since=mark, timeout_s=5) < 2.0

        os.write(terminal.master, b"\x11")  # ctrl+q
        started = time.monotonic()
        while terminal.process.poll() is None and time.monotonic() - started < 10:
            terminal.pump(0.05)
        assert terminal.process.returncode == 0
        assert time.monotonic() - started < 3.0  # the thread's long wait does not hold the quit
    finally:
        terminal.close()
