"""Every warning a run carries (cache suspicion, filesystem, fio's messages), one per line."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from iotui.core.records.record import RunRecord


def warnings_text(record: RunRecord) -> Text:
    """``⚠ [code] message`` lines, or a calm line when there are none."""
    if not record.warnings:
        return Text("No warnings.", style="dim")
    text = Text()
    for index, warning in enumerate(record.warnings):
        if index:
            text.append("\n")
        text.append("⚠ ")
        text.append(f"[{warning.get('code', '?')}] ", style="bold")
        text.append(warning.get("message", ""))
    return text


class WarningsList(Static):
    """Shows one record's warnings."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(warnings_text(record), id=id)
