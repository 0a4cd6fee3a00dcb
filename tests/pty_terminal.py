"""A program in a pseudo-terminal, as a user's shell over SSH runs it: keys in, everything it writes kept.

Used where the real terminal matters (tests/ui/test_driver.py, tests/ui/test_home_first_frame.py)
and by the benchmarks that watch the app as a user would (bench/bench_live.py,
bench/bench_parts.py, bench/bench_paint.py, bench/bench_overhead.py --app).
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
import termios
import time
from pathlib import Path
from typing import Callable

_ESCAPES = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# wait_for's default: the recent output, the screen as it is now rather than as it was.
RECENT_BYTES = 20000


def screen_text(raw: bytes) -> str:
    """What the terminal received with the escape sequences taken out (cursor moves become gaps)."""
    return _ESCAPES.sub(b" ", raw).decode("utf-8", "replace")


def terminal_env(**settings: str) -> dict[str, str]:
    """This process's environment as a terminal gives a program, plus ``settings``: a real TERM,
    and nothing that would fix the size, turn colours off or pick Textual's driver in place of
    what the pseudo-terminal says."""
    env = {**os.environ, "TERM": "xterm-256color", **settings}
    for name in ("NO_COLOR", "COLUMNS", "LINES", "TEXTUAL_DRIVER"):
        env.pop(name, None)
    return env


def _take_as_controlling_terminal() -> None:
    # In the child, after setsid: its stdin (the pseudo-terminal) becomes its session's terminal.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A child process on a pseudo-terminal of ``columns`` x ``rows``; everything it writes is kept.

    ``controlling``: the pseudo-terminal is the child's controlling terminal, as a login shell's
    is (then hanging it up sends SIGHUP, as a dropped SSH connection or a killed tmux pane does).
    """

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, columns: int = 80, rows: int = 24,
                 controlling: bool = False) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.process = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd,
                                        start_new_session=True,
                                        preexec_fn=_take_as_controlling_terminal if controlling else None)
        os.close(slave)
        self.received = bytearray()

    def pump(self, seconds: float) -> None:
        """Read what the program writes for ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            if select.select([self.master], [], [], min(left, 0.1))[0]:
                try:
                    self.received += os.read(self.master, 1 << 16)
                except OSError:
                    return

    def wait_for(self, predicate: Callable[[str], bool], timeout_s: float, what: str, since: int | None = None) -> float:
        """Seconds until ``predicate`` holds for the screen's text: the recent output, or all of it
        from byte ``since``. TimeoutError (saying what the terminal shows) if it never does."""
        started = time.monotonic()
        while time.monotonic() - started < timeout_s:
            shown = self.received[since:] if since is not None else self.received[-RECENT_BYTES:]
            if predicate(screen_text(bytes(shown))):
                return time.monotonic() - started
            if self.process.poll() is not None:
                break
            self.pump(0.1)
        tail = screen_text(bytes(self.received[-3000:]))
        raise TimeoutError(f"no {what} within {timeout_s:.0f} s; the terminal shows: {tail!r}")

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def hang_up(self) -> None:
        """The terminal itself goes away (its master side closed, as sshd or tmux does when the
        connection drops or the pane is killed): reads and writes of the program fail, and a
        program whose controlling terminal it is gets SIGHUP."""
        if self.master >= 0:
            os.close(self.master)
            self.master = -1

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.hang_up()
