"""The command palette's iotui entries (ctrl+p): run a preset, pick a target or a theme,
open History, sweep, compare the last two runs, try the remedies of a run whose level rose;
each with a help line."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Callable, cast

from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from iotui.ui.app_calls import IotuiAppCalls


class IotuiCommands(Provider):
    """What iotui can do, by name."""

    def _entries(self) -> list[tuple[str, Callable[[], object], str]]:
        from iotui.ui.screens.home import HomeScreen
        from iotui.ui.screens.results import ResultsScreen

        app = cast("IotuiAppCalls", self.app)
        home = next((screen for screen in app.screen_stack if isinstance(screen, HomeScreen)), None)
        entries: list[tuple[str, Callable[[], object], str]] = [
            ("Open History", app.action_open_history,
             "saved runs newest first: filter, open, mark and compare, note, tag, delete, prune"),
            ("Compare the last two runs", app.compare_last_two,
             "the newest saved run against the one before it, side by side with verdicts"),
        ]
        results = self.screen if isinstance(self.screen, ResultsScreen) else None
        if results is not None and results.remedy_applies:
            entries.append(("Try remedies for this run", results.action_remedy,
                            "its workload as it is and under each I/O scheduler, the idle class and a cgroup weight"))
        if home is not None:
            entries.append(("Sweep the chosen preset", partial(app.sweep_from_anywhere),
                            "run the preset over its [sweep] values (editable) and find the sweet spot"))
            for preset in home.presets_listed():
                entries.append((f"Run preset {preset.name}", partial(app.run_preset_from_anywhere, preset.name),
                                preset.description or preset.title))
            for target in home.targets_listed():
                entries.append((f"Target {target.path}", partial(app.choose_target_from_anywhere, str(target.path)),
                                f"test {target.path}: {target.filesystem} {target.device or ''}".strip()))
        for name in sorted(app.available_themes):
            entries.append((f"Theme {name}", partial(setattr, self.app, "theme", name), f"switch the colours to the {name} theme"))
        return entries

    async def discover(self) -> Hits:
        for title, callback, help_text in self._entries():
            if title.startswith(("Theme ", "Target ")):
                continue  # listed when typed for, not before
            yield DiscoveryHit(title, callback, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, callback, help_text in self._entries():
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), callback, help=help_text)
