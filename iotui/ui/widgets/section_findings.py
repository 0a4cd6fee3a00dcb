"""Per section: whether and when it settled, where a sustained write fell off its cache, and the queue
depth fio's latency-target search settled on."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from iotui.core.records.findings import section_finding_lines
from iotui.core.records.record import RunRecord


def findings_text(record: RunRecord) -> Text:
    """One line per section and finding: ``name: steady after 8 s``, ``name: cache cliff after ...``."""
    text = Text()
    for section in record.sections:
        name = str(section.get("name", "?"))
        for line in section_finding_lines(section):
            if text:
                text.append("\n")
            text.append(f"{name}: ", style="bold")
            text.append(line)
    return text


class SectionFindings(Static):
    """Shows the findings; hidden when no section has any."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        text = findings_text(record)
        super().__init__(text, id=id)
        self.display = bool(text)
