"""Names the app's workers share (kept apart so a screen needs no import of the app)."""

RUN_GROUP = "run"
"""The worker group of the one run or sweep that may be under way."""
