"""Where the app's stylesheets are.

iotui.tcss (the app's CSS_PATH) holds Home's and the dialogs' rules: all the first
frame needs. screens.tcss holds the other screens' rules; each of those screens
names it as its CSS_PATH, so Textual reads it when the first of them opens.
"""

from __future__ import annotations

from pathlib import Path

HOME_CSS = Path(__file__).parent / "iotui.tcss"
SCREENS_CSS = Path(__file__).parent / "screens.tcss"
