"""Home's first frame, as a user's terminal receives it: each preset on one line, the default in view.

The app runs in a pseudo-terminal (as over SSH), not under the Pilot: what matters is what
the terminal is sent before anything settles. The presets' prompts are built before the
list has a width; when they were cut to the width in Python, the first frame wrapped each
long description over three lines and the cut lines came frames later. And the list used
to open at its top, scrolling to the highlighted default (quick, further down) a frame later.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.pty_terminal import Terminal, screen_text, terminal_env

REPO = Path(__file__).resolve().parents[2]
# Past what one line of the list holds at 80 columns: on one line the description is cut
# before these words; wrapped, its second line shows them.
NUMJOBS_DESCRIPTION_LATER_WORDS = "30 s each after a 10 s ramp"


def test_the_first_frame_shows_each_preset_on_one_line_with_the_default_in_view(tmp_path: Path) -> None:
    assert NUMJOBS_DESCRIPTION_LATER_WORDS in (REPO / "presets" / "numjobs-scaling.toml").read_text()
    target = tmp_path / "target"
    target.mkdir()
    env = terminal_env(XDG_CONFIG_HOME=str(tmp_path / "config"))
    terminal = Terminal([sys.executable, "-m", "iotui", "--runs-dir", str(tmp_path / "runs"),
                         "--target", str(target)], env, REPO, columns=80, rows=24)
    try:
        terminal.wait_for(lambda text: "preset (p)" in text and " quick " in text, 60, "Home's presets", since=0)
        terminal.pump(1.0)  # the frames that follow the first
        received = " ".join(screen_text(bytes(terminal.received)).split())
        assert " quick 20-second 4 KiB random read/write mix" in received
        assert " numjobs-scaling 4 KiB random read then random write" in received
        assert "…" in received  # the long descriptions end in an ellipsis
        assert NUMJOBS_DESCRIPTION_LATER_WORDS not in received
        # The list opens at the default: its top (the desktop table) was never sent.
        assert "The desktop benchmark table" not in received
    finally:
        terminal.close()
