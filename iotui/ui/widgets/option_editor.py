"""The editable run options: runtime, size, block size, iodepth, numjobs, direct I/O.

An empty field keeps the preset's value (shown as the placeholder). Every change
posts :class:`OptionEditor.Changed` with the parsed overrides, or a sentence
saying which field is wrong, so the command preview follows as you type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Checkbox, Input, Label

from iotui.ui.service_types import Overrides

if TYPE_CHECKING:
    from iotui.core.presets.model import Preset

_TRUE = ("1", "true", "yes", "on", "")

# (input id, label, preset option key)
FIELDS: tuple[tuple[str, str, str], ...] = (
    ("runtime", "runtime", "runtime"),
    ("size", "size", "size"),
    ("bs", "bs", "bs"),
    ("iodepth", "iodepth", "iodepth"),
    ("numjobs", "jobs", "numjobs"),
)


def preset_option(preset: Preset | None, key: str) -> str | None:
    """A preset's option: global first, then its only job section's."""
    if preset is None:
        return None
    value = preset.options.get(key)
    jobs = preset.jobs
    if value is None and len(jobs) == 1:
        value = jobs[0].options.get(key)
    return None if value is None else str(value)


@dataclass(frozen=True)
class FieldProblem:
    """Which field is wrong and why."""

    field_id: str
    sentence: str


def parse_overrides(values: dict[str, str], direct: bool | None) -> tuple[Overrides, FieldProblem | None]:
    """Field texts -> Overrides, or the first problem (the command line checks its flags with the same function)."""
    from iotui.core.fio.values import runtime_seconds, value_problem  # loaded with the first edit, not before first paint

    texts: dict[str, str] = {}
    for field_id, label, option in FIELDS:
        text = values.get(field_id, "").strip()
        if not text:
            continue
        problem = value_problem(option, text)
        if problem:
            return Overrides(), FieldProblem(field_id, f"{label} {problem}.")
        texts[option] = text
    runtime, iodepth, numjobs = texts.get("runtime"), texts.get("iodepth"), texts.get("numjobs")
    return Overrides(
        runtime_s=runtime_seconds(runtime) if runtime is not None else None,
        size=texts.get("size"),
        bs=texts.get("bs"),
        iodepth=int(iodepth) if iodepth is not None else None,
        numjobs=int(numjobs) if numjobs is not None else None,
        direct=direct,
    ), None


class OptionEditor(Horizontal):
    """One line of compact fields; the preset's values are the placeholders."""

    preset: reactive[Preset | None] = reactive(None, always_update=True)

    def __init__(self, *children: Widget, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(*children, id=id, classes=classes)
        # Per preset name: the fields as typed there and its direct choice (None: the preset's own).
        self._edits: dict[str | None, tuple[dict[str, str], bool | None]] = {}
        self._shown_for: str | None = None
        self._direct_choice: bool | None = None

    @dataclass
    class Changed(Message):
        """The fields changed: the overrides they make, or what is wrong with them."""

        overrides: Overrides
        problem: str | None

    _fields_mounted = False

    def compose(self) -> ComposeResult:
        yield Label("options (e)", classes="option-title")

    async def _mount_fields(self) -> None:
        # The fields (a third of Home's widgets) come right after the first frame:
        # Home draws its lists sooner, and nothing is typed in that moment.
        fields: list[Widget] = []
        for field_id, label, _key in FIELDS:
            fields.append(Label(label, classes="option-label"))
            fields.append(Input(id=f"option-{field_id}", compact=True, classes="option-input"))
        fields.append(Checkbox("direct", id="option-direct", compact=True))
        await self.mount_all(fields)
        if not self.query("#option-direct"):
            return  # the app closed in that moment (q right after the first frame): nothing to fill
        self._fields_mounted = True
        self.watch_preset(self.preset)

    def focus_first(self) -> None:
        """Focus the first field (once the fields are there)."""
        for field in self.query(Input).results():
            field.focus()
            return

    def watch_preset(self, preset: Preset | None) -> None:
        if not self.is_mounted or not self._fields_mounted:
            return
        name = preset.name if preset is not None else None
        switched = name != self._shown_for
        if switched:
            # Edits belong to the preset they were made on: keep them, show the new preset's own.
            if self._shown_for is not None:
                self._edits[self._shown_for] = self._field_values()
            values, direct = self._edits.get(name, ({}, None))
            self._direct_choice = direct
            for field_id, _label, _key in FIELDS:
                field = self.query_one(f"#option-{field_id}", Input)
                with field.prevent(Input.Changed):
                    field.value = values.get(field_id, "")
            self._shown_for = name
        for field_id, _label, key in FIELDS:
            field = self.query_one(f"#option-{field_id}", Input)
            field.placeholder = preset_option(preset, key) or "-"
        checkbox = self.query_one("#option-direct", Checkbox)
        with checkbox.prevent(Checkbox.Changed):
            checkbox.value = self._preset_direct() if not switched or direct is None else direct
        if switched:
            self._announce()

    def _field_values(self) -> tuple[dict[str, str], bool | None]:
        """The fields as typed, and the direct checkbox if the user set it."""
        values = {field_id: self.query_one(f"#option-{field_id}", Input).value for field_id, _l, _k in FIELDS}
        return {k: v for k, v in values.items() if v}, self._direct_choice

    def on_mount(self) -> None:
        self.call_after_refresh(self._mount_fields)

    def _preset_direct(self) -> bool:
        value = preset_option(self.preset, "direct")
        return value is not None and value.strip().lower() in _TRUE

    def current(self) -> tuple[Overrides, FieldProblem | None]:
        """The overrides the fields hold now."""
        values = {field_id: self.query_one(f"#option-{field_id}", Input).value for field_id, _l, _k in FIELDS}
        direct = self.query_one("#option-direct", Checkbox).value
        return parse_overrides(values, None if direct == self._preset_direct() else direct)

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _on_field_changed(self, event: Message) -> None:
        event.stop()
        if isinstance(event, Checkbox.Changed):
            self._direct_choice = event.value
        self._announce()

    def _announce(self) -> None:
        overrides, problem = self.current()
        for field_id, _label, _key in FIELDS:
            field = self.query_one(f"#option-{field_id}", Input)
            field.set_class(problem is not None and problem.field_id == field_id, "-invalid")
        self.post_message(self.Changed(overrides, problem.sentence if problem else None))
