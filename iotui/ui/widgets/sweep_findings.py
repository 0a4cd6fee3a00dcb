"""What a finished sweep found: the sweet spot and balanced point with their sentences, the ranking
for several keys, the analysis notes, and where the sweep record is (with the command that resumes it)."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from iotui.core.sweep.analysis import SweepAnalysis
from iotui.ui.widgets.sweep_points import BALANCED_MARK, SWEET_SPOT_MARK


def describe_params(params: dict[str, str]) -> str:
    """``numjobs=2, bs=4k``."""
    return ", ".join(f"{key}={value}" for key, value in params.items()) or "(no varied key)"


def analysis_lines(analysis: SweepAnalysis) -> list[Text]:
    if analysis.sections:  # a preset of several sections: each one's own findings under its name
        lines = []
        for number, section in enumerate(analysis.sections, start=1):
            lines.append(Text(f"Section {number} of {len(analysis.sections)}: {section.name}", style="bold underline"))
            lines.extend(analysis_lines(section.analysis))
        lines.extend(Text(note, style="italic") for note in analysis.notes)
        return lines
    lines = []
    if analysis.slo is not None:
        lines.append(Text.assemble((f"✓ Best under {analysis.slo.slo.text}: ", "bold"), analysis.slo.why))
    for mark, word, choice in ((SWEET_SPOT_MARK, "Sweet spot", analysis.sweet_spot),
                               (BALANCED_MARK, "Balanced", analysis.balanced)):
        if choice is not None:
            lines.append(Text.assemble((f"{mark} {word}: {describe_params(choice.params)}. ", "bold"), choice.why))
    if analysis.comparison:
        lines.append(Text(analysis.comparison))
    ranking = analysis.ranking
    if ranking is not None:
        for key, placings in ranking.keys.items():
            ranked = ", ".join(f"{placing.value} ({placing.average_placing:.1f})" for placing in placings)
            lines.append(Text(f"Average placing by {key} (1 = fastest): {ranked}"))
        measured = "measured" if ranking.best_combination_measured else "not measured"
        lines.append(Text(f"Best combination: {describe_params(ranking.best_combination)} ({measured} in this sweep)."))
    lines.extend(Text(note, style="italic") for note in analysis.notes)
    return lines


class SweepFindings(Static):
    """Hidden until the sweep ends (``analysis`` set)."""

    analysis: reactive[SweepAnalysis | None] = reactive(None)
    record_path: reactive[str | None] = reactive(None)
    resume_command: reactive[str | None] = reactive(None)

    def on_mount(self) -> None:
        self._redraw()

    def watch_analysis(self) -> None:
        self._redraw()

    def watch_record_path(self) -> None:
        self._redraw()

    def watch_resume_command(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        self.display = self.analysis is not None
        if self.analysis is None:
            return
        lines = analysis_lines(self.analysis)
        if self.record_path:
            lines.append(Text(f"Sweep record: {self.record_path}", style="dim"))
        if self.resume_command:
            lines.append(Text(f"To go on from here: {self.resume_command}", style="dim"))
        self.update(Text("\n").join(lines))
