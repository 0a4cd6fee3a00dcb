"""A list of the published reference rows; enter puts the highlighted one beside the runs."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from iotui.core.records.record import RunRecord


def reference_label(record: RunRecord) -> Text:
    """``numjobs=8  OpenBSD 7.7, randread 4 KiB, iodepth 32, numjobs 1-32``: the row first, then its table."""
    title = str(record.run.get("title") or record.preset).replace(" (published table)", "")
    table, separator, row = title.rpartition(" — ")
    if not separator:
        return Text(title)
    return Text.assemble((row, "bold"), "  ", (table, "dim"))


class ReferencePicker(OptionList):
    """Hidden until the compare screen asks for it."""

    @dataclass
    class Picked(Message):
        """The user chose a reference row."""

        record: RunRecord

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.records: list[RunRecord] = []

    def set_records(self, records: list[RunRecord]) -> None:
        self.records = list(records)
        self.clear_options()
        self.add_options([Option(reference_label(record), id=str(index)) for index, record in enumerate(records)])
        if records:
            self.highlighted = 0

    def _on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index is not None and 0 <= event.option_index < len(self.records):
            self.post_message(self.Picked(self.records[event.option_index]))
