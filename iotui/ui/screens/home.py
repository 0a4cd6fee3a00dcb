"""Home: choose a target and a preset, adjust the options, read the exact command, press r."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.reactive import var
from textual.screen import Screen

from iotui.ui.service_types import Overrides, PlanPreview, RunRequest, SkippedPreset
from iotui.ui.services import ServiceError, Services
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.preset_list import ListedPreset, PresetList
from iotui.ui.widgets.target_list import TargetList
from iotui.ui.widgets.title_bar import TitleBar

# The hosts field, the option editor and the command preview are mounted right after the
# first frame (see HomeScreen._mount_the_rest): their modules load then, not before.
if TYPE_CHECKING:
    from textual.widgets import Checkbox, Input

    from iotui.core.host.targets import TargetInfo
    from iotui.core.presets.model import Preset
    from iotui.ui.widgets.hosts_field import HostsField
    from iotui.ui.widgets.option_editor import OptionEditor


# Highlighted when no --preset is given: the short first look.
DEFAULT_PRESET = "quick"


def _same_path(left: str, right: str) -> bool:
    try:
        return Path(left).expanduser().resolve() == Path(right).expanduser().resolve()
    except OSError:
        return left == right


def _checked(listed: ListedPreset) -> Preset | None:
    """The checked preset a listed one is, None for a title (the list holds titles only before
    the checked presets replace them)."""
    from iotui.core.presets.titles import PresetTitle  # loaded with the titles at the first frame

    return None if isinstance(listed, PresetTitle) else listed


class HomeScreen(Screen):
    """Owns the choice (target, preset, overrides) and the preview derived from it.

    State is held in ``var``s: they feed the widgets through ``data_bind`` without
    repainting the whole screen.
    """

    BINDINGS = [
        Binding("r", "run", "Run"),
        Binding("t", "focus_targets", "Targets"),
        Binding("p", "focus_presets", "Presets"),
        Binding("o", "focus_hosts", "Hosts"),
        Binding("e", "edit_options", "Options"),
        Binding("h", "app.open_history", "History"),
        Binding("q", "app.quit", "Quit"),
        Binding("escape", "leave_options", "Done"),
    ]
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]
    AUTO_FOCUS = "#presets"

    target: var[TargetInfo | None] = var(None)
    base_preset: var[Preset | None] = var(None)
    overrides: var[Overrides] = var(Overrides)
    option_problem: var[str | None] = var(None)
    preset: var[Preset | None] = var(None, always_update=True)
    preview: var[PlanPreview | None] = var(None, always_update=True)
    # False until the first preview is worked out (just after the first frame).
    loaded: var[bool] = var(False)

    @dataclass
    class RunRequested(Message):
        """The user pressed r with a valid choice; the app starts the run."""

        request: RunRequest

    def __init__(
        self, services: Services, *, initial_target: str | None = None, initial_preset: str | None = None
    ) -> None:
        super().__init__()
        self.services = services
        self.initial_target = initial_target
        self.initial_preset = initial_preset
        self._editor_problem: str | None = None
        self._run_when_options_follow = False  # a palette "Run preset" waits for the editor to switch
        # Home lists the presets' titles first and the checked presets right after the first frame.
        self._presets_checked = False
        self._moved = False
        self.sub_title = "choose a target and a preset, then press r"
        self._start_with_breakpoint_classes()

    def _start_with_breakpoint_classes(self) -> None:
        """The -narrow/-wide/-short/-tall classes for the terminal's size from the start, so the
        first resize changes nothing instead of styling the whole screen again before the first frame."""
        try:
            width, height = self.app.size
        except RuntimeError:  # NoActiveAppError, no app yet: the first resize sets them, as usual
            return
        classes = self._get_breakpoint_classes(width, self.HORIZONTAL_BREAKPOINTS)
        classes |= self._get_breakpoint_classes(height, self.VERTICAL_BREAKPOINTS)
        self.add_class(*classes, update=False)

    def compose(self) -> ComposeResult:
        # The first frame: the title, the lists with the presets' names, the keys.
        yield TitleBar()
        with Vertical(id="home-lists"):
            target_list = TargetList([], id="targets")
            target_list.border_title = "target (t)"
            yield target_list
            preset_list = PresetList([], id="presets")
            preset_list.border_title = "preset (p)"
            yield preset_list
        yield KeyBar()

    def on_mount(self) -> None:
        self._list_preset_titles()
        # The rest comes right after the first frame: the targets (mount points and
        # disks), the hosts field, the option editor and the command preview, then the
        # checked presets (the policy's modules and every option resolved against fio's
        # table) and the preview (the planning code). Home shows its presets at once.
        self.call_after_refresh(self._mount_the_rest)

    async def _mount_the_rest(self) -> None:
        from textual.widgets import Checkbox

        from iotui.ui.widgets.command_preview import CommandPreview
        from iotui.ui.widgets.hosts_field import HostsField
        from iotui.ui.widgets.option_editor import OptionEditor

        if not self.is_attached:
            return  # the app closed in that moment (q right after the first frame)
        hosts_field = HostsField(self._config_hosts(), id="hosts")
        hosts_field.border_title = "hosts (o)"
        # Beside the hosts (tab from the field, space toggles): the wake-up and I/O probes on each host.
        host_probes = Checkbox("host probes on", True, id="host-probes", compact=True)
        host_probes.tooltip = "Run the wake-up and I/O probes on each host (--no-host-probes turns them off)"
        preview_box = VerticalScroll(
            CommandPreview(id="preview").data_bind(
                preset=HomeScreen.preset,
                preview=HomeScreen.preview,
                problem=HomeScreen.option_problem,
                ready=HomeScreen.loaded,
            ),
            id="preview-box",
        )
        preview_box.border_title = "fio command"
        editor = OptionEditor(id="options").data_bind(preset=HomeScreen.base_preset)
        hosts_row = Horizontal(hosts_field, host_probes, id="hosts-row")
        await self.mount_all([hosts_row, editor, preview_box], before=self.query_one(KeyBar))
        self._load_targets()
        self._load_presets()
        self._first_preview()

    def _first_preview(self) -> None:
        self.loaded = True
        self._refresh_preview()

    def _list_preset_titles(self) -> None:
        """The presets' names and descriptions, unchecked, with the default highlighted."""
        try:
            titles = self.services.list_preset_titles()
        except Exception:  # noqa: BLE001 - the checked load right after says what is wrong
            return
        preset_list = self.query_one("#presets", PresetList)
        preset_list.set_presets(titles)
        index = preset_list.index_of(self.initial_preset) if self.initial_preset else None
        if index is None:
            index = preset_list.index_of(DEFAULT_PRESET) or 0
        if titles:
            with preset_list.prevent(PresetList.PresetChosen):
                preset_list.highlighted = index

    # -- loading ------------------------------------------------------------
    def _load_presets(self) -> None:
        try:
            presets, skipped = self.services.list_presets()
        except Exception as error:  # noqa: BLE001 - UI boundary: any failure of the preset files is a sentence, not a crash
            presets, skipped = [], [SkippedPreset("", f"Presets could not be loaded: {error}")]
        preset_list = self.query_one("#presets", PresetList)
        # The preset the user may already have moved to among the titles stays chosen.
        highlighted = preset_list.highlighted
        moved = self._moved and highlighted is not None and 0 <= highlighted < len(preset_list.presets)
        chosen = preset_list.presets[highlighted].name if moved and highlighted is not None else None
        # The preset asked for by name, if its file was skipped, is said once, below, with why.
        asked = self.initial_preset if chosen is None else None
        asked_for = next((skip for skip in skipped if asked and skip.name == asked), None)
        for skip in skipped:
            if skip is not asked_for:
                self.notify(skip.sentence, title="A preset was skipped", severity="warning", timeout=10)
        preset_list.set_presets(presets)
        index = preset_list.index_of(chosen) if chosen else None
        if index is None:
            index = preset_list.index_of(DEFAULT_PRESET) or 0
        if self.initial_preset and chosen is None:
            found = preset_list.index_of(self.initial_preset)
            if found is None and asked_for is not None:
                self.notify(f"The preset {self.initial_preset!r} was skipped: {asked_for.sentence} Choose another "
                            "from the list.", title="Preset", severity="error", timeout=10)
            elif found is None:
                self.notify(f"There is no preset called {self.initial_preset!r}; choose one from the list.", severity="error")
            else:
                index = found
        self._presets_checked = True
        if presets:
            with preset_list.prevent(PresetList.PresetChosen):
                preset_list.highlighted = index
            self.base_preset = presets[index]

    def _load_targets(self) -> None:
        target_list = self.query_one("#targets", TargetList)
        try:
            targets = self.services.list_targets()
        except Exception as error:  # noqa: BLE001 - UI boundary: targets that cannot be listed are a sentence
            targets = []
            self.notify(f"Targets could not be listed: {error}", severity="error")
        chosen = targets[0] if targets else None
        if self.initial_target:
            listed = next((t for t in targets if _same_path(str(t.path), self.initial_target)), None)
            if listed is None:
                try:
                    listed = self.services.inspect_target(self.initial_target)
                    targets.insert(0, listed)
                except ServiceError as error:
                    self.notify(str(error), title="Target", severity="error")
            chosen = listed or chosen
        target_list.set_targets(targets, select_path=str(chosen.path) if chosen else None)
        self.target = chosen

    # -- state --------------------------------------------------------------
    def watch_target(self) -> None:
        self._refresh_preview()

    def watch_base_preset(self) -> None:
        self._refresh_preview()

    def watch_overrides(self) -> None:
        self._refresh_preview()

    def _refresh_preview(self) -> None:
        if not self.loaded:
            return
        if self.base_preset is None:
            self.preset, self.preview = None, None
            return
        problem = None
        try:
            preset = self.services.apply_overrides(self.base_preset, self.overrides)
        except ServiceError as error:
            preset, problem = self.base_preset, str(error)
        self.option_problem = self._editor_problem or problem
        self.preset = preset
        if self.target is None:
            self.preview = None
            return
        try:
            self.preview = self.services.preview(preset, self.target)
        except Exception as error:  # noqa: BLE001 - UI boundary: never let a preview failure take the screen down
            self.preview = PlanPreview("", [], f"The command could not be built: {error}")

    # -- for the command palette --------------------------------------------------
    def presets_listed(self) -> list[ListedPreset]:
        return list(self.query_one("#presets", PresetList).presets)

    def targets_listed(self) -> list[TargetInfo]:
        return list(self.query_one("#targets", TargetList).targets)

    def choose_target(self, path: str) -> None:
        target_list = self.query_one("#targets", TargetList)
        index = next((i for i, t in enumerate(target_list.targets) if str(t.path) == path), None)
        if index is not None:
            target_list.highlighted = index
            self.target = target_list.targets[index]

    def run_preset(self, name: str) -> None:
        """Choose the preset called ``name`` and press r for it (its own option edits apply)."""
        preset_list = self.query_one("#presets", PresetList)
        index = preset_list.index_of(name)
        if index is None:
            self.notify(f"There is no preset called {name!r}.", severity="error")
            return
        if self.base_preset is not None and self.base_preset.name == name:
            self.action_run()
            return
        # The option editor shows this preset's own edits first (OptionEditor.Changed), then it runs.
        self._run_when_options_follow = True
        preset_list.highlighted = index
        self.base_preset = _checked(preset_list.presets[index])

    @on(TargetList.TargetChosen)
    def _target_chosen(self, event: TargetList.TargetChosen) -> None:
        self.target = event.target

    @on(PresetList.PresetChosen)
    def _preset_chosen(self, event: PresetList.PresetChosen) -> None:
        if not self._presets_checked:
            self._moved = True  # among the titles: the checked preset of that name follows
            return
        self.base_preset = _checked(event.preset)

    def on_option_editor_changed(self, event: OptionEditor.Changed) -> None:
        self._editor_problem = event.problem
        if event.problem is None:
            self.overrides = event.overrides
        self._refresh_preview()
        if self._run_when_options_follow:
            self._run_when_options_follow = False
            self.action_run()

    @on(TargetList.OtherDirectoryRequested)
    def _ask_for_directory(self) -> None:
        from iotui.ui.screens.path_prompt import PathPromptScreen  # a dialog: loaded when asked for

        self.app.push_screen(PathPromptScreen(), self._directory_typed)

    def _directory_typed(self, path: str | None) -> None:
        if not path:
            return
        try:
            target = self.services.inspect_target(path)
        except ServiceError as error:
            self.notify(str(error), title="Target", severity="error")
            return
        self.query_one("#targets", TargetList).add_target(target)
        self.target = target

    # -- actions ------------------------------------------------------------
    def action_run(self) -> None:
        if self.target is None:
            self.notify("Choose a target first (t).", severity="warning")
            return
        if self.preset is None:
            self.notify("Choose a preset first (p).", severity="warning")
            return
        if self.option_problem:
            self.notify(self.option_problem, title="Options", severity="error")
            return
        hosts_field = self._hosts_field()
        if hosts_field is None:
            return  # the first frame's moment: the choice is not complete yet
        hosts_typed = bool(hosts_field.value.strip())
        # With hosts, the target is checked on each host before anything starts.
        if self.preview is not None and self.preview.error and not hosts_typed:
            self.notify(self.preview.error, title="This run cannot start", severity="error", timeout=10)
            return
        from iotui.core.remote.transport import RemoteError, parse_hosts  # the remote machinery, at r

        try:
            hosts = tuple(parse_hosts(hosts_field.value))
        except RemoteError as error:
            self.notify(str(error), title="Hosts", severity="error", markup=False)
            return
        estimated_s = self.preview.duration_s if self.preview is not None else None
        request = RunRequest(self.preset, self.target, estimated_s, hosts, self._host_probes_on())
        from iotui.core.fio.system_paths import is_system_directory

        if not is_system_directory(self.target.path):
            self.post_message(self.RunRequested(request))
            return
        from iotui.ui.screens.confirm import ConfirmScreen

        def answered(yes: bool | None) -> None:
            if yes:
                self.post_message(self.RunRequested(request))

        self.app.push_screen(
            ConfirmScreen(
                f"{self.target.path} is a system directory.",
                "The test file goes there (created new, removed after the run), and filling this",
                "filesystem can disturb the system. Run there anyway?",
            ),
            answered,
        )

    def action_focus_targets(self) -> None:
        self.query_one("#targets").focus()

    def hosts_typed(self) -> bool:
        """Something is typed in the hosts field (the run then goes to those hosts)."""
        field = self._hosts_field()
        return field is not None and bool(field.value.strip())

    def _hosts_field(self) -> HostsField | None:
        """The hosts field, or None in the moment before it is mounted."""
        from iotui.ui.widgets.hosts_field import HostsField  # loaded with the field itself

        for field in self.query("#hosts").results(HostsField):
            return field
        return None

    def on_checkbox_changed(self, event: Checkbox.Changed) -> None:
        # The switch's state in words too: its mark looks the same either way without colour.
        if event.checkbox.id == "host-probes":
            event.checkbox.label = f"host probes {'on' if event.value else 'off'}"

    def _host_probes_on(self) -> bool:
        """The host probes switch beside the hosts field (on until it is mounted)."""
        from textual.widgets import Checkbox

        return all(box.value for box in self.query("#host-probes").results(Checkbox))

    def action_focus_hosts(self) -> None:
        for field in self.query("#hosts"):
            field.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        # Enter in the hosts field goes on to the presets (by the handler's name, so that
        # Home need not import Input before its first frame).
        if event.input.id == "hosts":
            self.query_one("#presets").focus()

    def _config_hosts(self) -> list[str]:
        try:
            return self.services.ssh_hosts()
        except Exception:  # noqa: BLE001 - an unreadable ssh config only loses the suggestions
            return []

    def action_focus_presets(self) -> None:
        self.query_one("#presets").focus()

    def action_edit_options(self) -> None:
        for editor in self.query("#options"):
            editor.focus_first()  # type: ignore[attr-defined]

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "leave_options":
            # Only offered (and shown in the footer) while an option field has focus.
            focused = self.focused
            return focused is not None and (
                (focused.parent is not None and focused.parent.id == "options") or focused.id in ("hosts", "host-probes")
            )
        return True

    def action_leave_options(self) -> None:
        self.query_one("#presets").focus()
