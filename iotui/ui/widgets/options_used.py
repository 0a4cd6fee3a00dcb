"""The fio options a run ran with (the record's effective options), as ``key=value`` words that wrap."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from iotui.core.records.record import RunRecord


def options_text(record: RunRecord) -> Text:
    """``rw=randrw  bs=4k  iodepth=16 ...`` in the record's order; a dim line when the record has none."""
    if not record.options:
        return Text("No fio options in this record.", style="dim")
    text = Text()
    for index, (key, value) in enumerate(record.options.items()):
        if index:
            text.append("  ")
        text.append(key, style="bold")
        if value != "":
            text.append(f"={value}")
    return text


class OptionsUsed(Static):
    """Shows one record's effective fio options."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(options_text(record), id=id)
