"""Results: one finished (or opened) run, its warnings, where it was saved, and compare."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.records.export import export_records
from iotui.core.records.record import RunRecord
from iotui.core.remedy.table import level_rose
from iotui.ui.comparison import find_previous, record_export_name
from iotui.ui.screens.compare import CompareScreen
from iotui.ui.report_key import write_report_in_background
from iotui.ui.services import ServiceError, Services
from iotui.core.records.desktop_table import is_desktop_table
from iotui.ui.widgets.cpu_summary import CpuSummary
from iotui.ui.widgets.desktop_table import DesktopTable
from iotui.ui.widgets.direction_summary import DirectionSummary
from iotui.ui.widgets.options_used import OptionsUsed
from iotui.ui.widgets.run_chart import RunChart
from iotui.ui.widgets.hosts_table import HostsTable
from iotui.ui.widgets.section_table import SectionTable
from iotui.ui.widgets.section_findings import SectionFindings
from iotui.ui.widgets.warnings_list import WarningsList
from iotui.ui.widgets.key_bar import KeyBar
from iotui.ui.widgets.title_bar import TitleBar
from iotui.ui.styles import SCREENS_CSS

if TYPE_CHECKING:
    from iotui.ui.app_calls import IotuiAppCalls


def started_text(record: RunRecord) -> str:
    started = record.started
    return started.strftime("%Y-%m-%d %H:%M UTC") if started else "unknown start"


def headline(record: RunRecord) -> Text:
    """``rnd4k-q1t1 completed in 20s · /home (ext4, nvme0n1) · fio-3.33 · started ...``."""
    target = record.target
    text = Text()
    # The effective options' title ("quick · runtime 10s"), so two runs of one preset read apart.
    text.append(str(record.run.get("title") or record.preset), style="bold")
    text.append(f" {record.status}", style="bold")
    text.append(f" in {fmt.duration_s(record.run.get('duration_s'))}")
    if record.paused_s:
        text.append(f" · {fmt.paused(record.paused_s)}", style="bold")
    text.append(f" · {target.get('path', '?')} ({target.get('filesystem', '?')}, {target.get('device', '?')})")
    text.append(f" · {record.run.get('tool_version', '?')} · {started_text(record)}")
    host = record.host
    if record.hosts:
        # fio ran on the hosts, not here: this machine's CPU would name the wrong one.
        names = [str(entry.get("name", "?")) for entry in record.hosts]
        text.append(f"\non {fmt.hosts(names)}", style="dim")
        return text
    cpus = f", {host['cpu_count']} CPUs" if isinstance(host.get("cpu_count"), int) else ""
    text.append(f"\n{host.get('hostname', '?')}: {host.get('cpu_model', '?')}{cpus}", style="dim")
    return text


def saved_text(record: RunRecord, saved_path: Path | None) -> Text:
    if saved_path is not None:
        return Text(f"Saved: {saved_path}")
    return Text("Not saved (see the notification for why).", style="bold")


class ResultsScreen(Screen):
    """Shows a record; c compares it with the previous run of the same preset and target."""

    CSS_PATH = SCREENS_CSS

    BINDINGS = [
        Binding("c", "compare", "Compare"),
        Binding("e", "export", "Export"),
        Binding("x", "report", "HTML"),
        # Offered only where the run's responsiveness level rose (check_action).
        Binding("r", "remedy", "Remedy"),
        Binding("h", "app.open_history", "History"),
        Binding("n", "app.home", "New run"),
        Binding("escape", "back", "Back"),
        Binding("q", "app.quit", "Quit"),
    ]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (40, "-tall")]
    # Below 100 columns the CPU panel goes under the per-direction figures: beside them it had
    # a dozen columns and cut every figure ("CPU usr 37…").
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]

    def __init__(self, record: RunRecord, saved_path: Path | None, services: Services) -> None:
        super().__init__()
        self.record = record
        self.saved_path = saved_path
        self.services = services
        self.sub_title = f"results: {record.preset}"

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with VerticalScroll(id="results"):
            yield Static(headline(self.record), id="headline")
            yield Static(saved_text(self.record, self.saved_path), id="saved")
            if is_desktop_table(self.record):
                desktop = DesktopTable(self.record, id="desktop-table")
                desktop.border_title = "desktop table"
                yield desktop
            sections = SectionTable(self.record, id="sections")
            sections.border_title = "sections (fio's reporting groups)"
            yield sections
            if self.record.hosts and self.record.status != "imported":
                hosts = HostsTable(self.record, id="hosts-table")
                hosts.border_title = self._hosts_title(0)
                yield hosts
            with Horizontal(id="summaries"):
                directions = DirectionSummary(self.record, id="directions")
                directions.border_title = self._detail_title(0)
                yield directions
                cpu = CpuSummary(self.record, id="cpu")
                cpu.border_title = "CPU and responsiveness"
                yield cpu
            options = OptionsUsed(self.record, id="options-used")
            options.border_title = "options used (fio's, as run)"
            yield options
            chart = RunChart(self.record, id="run-chart")
            if not chart.series:  # imports and references have no samples to draw (tall terminals show it)
                chart.display = False
            yield chart
            findings = SectionFindings(self.record, id="section-findings")
            findings.border_title = "steady state, cache cliff, latency target"
            yield findings
            warnings = WarningsList(self.record, id="warnings")
            warnings.border_title = "warnings"
            yield warnings
        yield KeyBar()

    def _detail_title(self, index: int) -> str:
        if not self.record.is_multi_section:
            return "per direction"
        return f"section {index + 1}: {self.record.sections[index].get('name', '?')}"

    def _hosts_title(self, index: int) -> str:
        """"2 hosts", and which section's figures they are where the run has several."""
        hosts = f"{len(self.record.hosts)} hosts"
        return f"{hosts} in {self._detail_title(index)}" if self.record.is_multi_section else hosts

    @on(SectionTable.SectionSelected)
    def show_section(self, event: SectionTable.SectionSelected) -> None:
        """A picked row: its section's figures, CPU and responsiveness below the table."""
        if not 0 <= event.index < len(self.record.sections):
            return
        section = self.record.sections[event.index]
        directions = self.query_one("#directions", DirectionSummary)
        directions.show_section(section)
        directions.border_title = self._detail_title(event.index)
        self.query_one("#cpu", CpuSummary).show_section(section)
        for hosts in self.query("#hosts-table").results(HostsTable):
            hosts.show_section(event.index)
            hosts.border_title = self._hosts_title(event.index)

    def action_compare(self) -> None:
        try:
            entries = self.services.list_records()
        except ServiceError as error:
            self.notify(str(error), severity="error")
            return
        previous = find_previous(self.record, entries)
        if previous is None:
            self.notify(
                f"No earlier run of {self.record.preset} on {self.record.target.get('path')} to compare with.",
                severity="warning",
            )
            return
        self.app.push_screen(CompareScreen([previous, self.record], self.services))

    def action_export(self) -> None:
        """Copy this run's markdown table (as in the studies) and write it next to the runs."""
        text = export_records([self.record], "markdown")
        self.app.copy_to_clipboard(text)
        try:
            path = self.services.write_export(record_export_name(self.record, self.saved_path), text)
        except ServiceError as error:
            self.notify(f"Copied the table to the clipboard, but {error}", severity="error", markup=False)
            return
        self.notify(f"Wrote the markdown table to {path} and copied it to the clipboard.", title="Exported",
                    markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remedy":
            return self.remedy_applies
        return True

    @property
    def remedy_applies(self) -> bool:
        """Whether the run's level rose, so its remedies are worth trying (a run of this machine only)."""
        return level_rose(self.record) and not self.record.hosts and self.record.status != "imported"

    def action_remedy(self) -> None:
        """The run's workload as it is and under each remedy, on its target (``iotui remedy``)."""
        from iotui.ui.screens.remedy import RemedyScreen

        if not self.remedy_applies:
            return
        if self.iotui_app.run_in_progress():
            self.notify("A run is in progress; its remedies can wait until it ends.", severity="warning")
            return
        self.app.push_screen(RemedyScreen(self.services, self.record))

    def action_report(self) -> None:
        """Write ``iotui report``'s page of this run beside its record."""
        write_report_in_background(self, lambda: self.services.write_report([self.record]))

    async def action_back(self) -> None:
        await self.iotui_app.action_back()

    @property
    def iotui_app(self) -> IotuiAppCalls:
        """The app, typed (this screen only ever runs inside it)."""
        return cast("IotuiAppCalls", self.app)
