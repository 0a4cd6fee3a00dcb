"""The app's terminal driver: its input thread sleeps while no key comes, and keys still work.

The app runs as a user starts it, in a pseudo-terminal (as over SSH), not under the Pilot
(which uses Textual's headless driver).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from iotui.ui.driver import IDLE_WAIT_S, SHORT_WAIT_S, input_wait_s
from tests.pty_terminal import Terminal, terminal_env

REPO = Path(__file__).resolve().parents[2]


def _shows(words: str):
    """The screen's text holds ``words`` (blanks collapsed: escape sequences leave gaps)."""
    return lambda text: words in " ".join(text.split())


def _wake_ups(pid: int) -> dict[str, int]:
    """Each thread's voluntary context switches: how often it went to sleep and woke."""
    counts = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                counts[task.name] = int(line.split()[1])
    return counts


def test_the_wait_is_short_only_while_a_key_may_be_incomplete_or_a_stop_is_asked() -> None:
    assert input_wait_s(escape_pending=False, stopping=False) == IDLE_WAIT_S
    assert input_wait_s(escape_pending=True, stopping=False) == SHORT_WAIT_S
    assert input_wait_s(escape_pending=False, stopping=True) == SHORT_WAIT_S


def test_in_a_terminal_the_idle_app_does_not_wake_and_escape_and_quit_still_work(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    env = terminal_env(XDG_CONFIG_HOME=str(tmp_path / "config"))
    terminal = Terminal([sys.executable, "-m", "iotui", "--runs-dir", str(tmp_path / "runs"),
                         "--target", str(target), "--preset", "quick"], env, REPO)
    try:
        # Home with its presets and the planned fio command
        terminal.wait_for(_shows("--status-interval"), 60, "Home's fio command")
        terminal.pump(1.0)
        before = _wake_ups(terminal.process.pid)
        terminal.pump(3.0)
        after = _wake_ups(terminal.process.pid)
        woke = {thread: after[thread] - before.get(thread, 0) for thread in after}
        # Textual's own input thread wakes ten times a second: 30 here.
        assert max(woke.values()) < 10, woke

        mark = len(terminal.received)
        terminal.press(b"e")  # the option line takes the keys; a lone Escape gives them back
        terminal.wait_for(_shows("esc Done"), 10, "the option line's keys", since=mark)
        mark = len(terminal.received)
        terminal.press(b"\x1b")
        assert terminal.wait_for(_shows("e Options"), 5, "Home's keys again", since=mark) < 2.0

        terminal.press(b"\x11")  # ctrl+q
        started = time.monotonic()
        while terminal.process.poll() is None and time.monotonic() - started < 10:
            terminal.pump(0.05)
        assert terminal.process.returncode == 0
        assert time.monotonic() - started < 3.0  # the thread's long wait does not hold the quit
    finally:
        terminal.close()
