"""Values read back from History's index, which is a file on disk: each checked, texts made terminal-safe."""

from __future__ import annotations

import datetime as dt
import json
import math

from iotui.core.terminal_text import terminal_safe


def safe_text(value: object) -> str:
    return terminal_safe(value) if isinstance(value, str) else ""


def started_from(value: object) -> dt.datetime | None:
    """The start as written in the row, or None where it is not a date and time."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return dt.datetime.fromisoformat(value)
    except ValueError:
        return None


def figure(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        figure = float(value)
    except OverflowError:
        return None
    return figure if math.isfinite(figure) else None


def number_list(value: object) -> tuple[float | None, ...]:
    return tuple(figure(item) for item in json_list(value))


def json_list(value: object) -> list:
    if not isinstance(value, str):
        return []
    try:
        items = json.loads(value)
    except ValueError:
        return []
    return items if isinstance(items, list) else []
