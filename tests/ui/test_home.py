"""Home: targets with inline warnings, presets, the command preview following the options."""

from __future__ import annotations

import pytest

from iotui.ui.app import IotuiApp
from iotui.ui.screens.home import HomeScreen
from iotui.ui.screens.path_prompt import PathPromptScreen
from iotui.ui.services import TARGET_ADVICE, Services
from tests.ui.helpers import MessageLog, screen_text, settle
from tests.ui.replay import ReplayServices


async def test_home_lists_targets_presets_and_the_exact_command(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)
        text = screen_text(app)
        assert "/home/ada/bench" in text and "412GiB free" in text and "SSD" in text
        assert "HDD" in text  # the backup disk is rotational
        assert "quick" in text and "rnd4k-q1t1" in text
        assert "$ fio --name=quick --filename=/home/ada/bench/.iotui-XXXXXXXXXXXX.fio-test" in text
        assert "about 20s" in text and "256MiB on disk" in text


async def test_a_risky_target_carries_its_warning_inline(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert "⚠ NFS measures a stack" in screen_text(app)


async def test_the_preview_follows_edited_options(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("e", "5")
        await pilot.press("tab", "6", "4", "k")
        await pilot.pause()
        preview = app.screen.preview
        assert "--runtime=5" in preview.command and "--size=64k" in preview.command
        assert "about 5s" in screen_text(app)
        await pilot.press("tab", "tab", "tab", "tab", "space")  # direct I/O off
        await pilot.pause()
        assert "--direct=0" in app.screen.preview.command


async def test_a_bad_option_is_a_sentence_and_r_refuses_to_start(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("e", "tab", "tab", "tab", "0")  # iodepth 0
        await pilot.press("escape", "r")
        await pilot.pause()
        assert "iodepth should be a whole number from 1 to 4294967295" in screen_text(app)
        assert any("iodepth should be" in text for text in log.notifications())
        assert not log.of(HomeScreen.RunRequested)


async def test_target_and_preset_from_the_command_line_are_chosen(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path), target="/mnt/backup", preset="rnd4k-q1t1")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        home = app.screen
        assert home.target.path == "/mnt/backup"
        assert home.preset.name == "rnd4k-q1t1"
        assert "--filename=/mnt/backup/" in home.preview.command


async def test_an_unknown_preset_is_a_notification_not_a_crash(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path), preset="no-such-preset")
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        assert any("no preset called 'no-such-preset'" in text for text in log.notifications())
        assert app.screen.preset.name == "quick"


async def test_another_directory_can_be_typed(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("t", "end", "enter")  # "another directory..." is last
        await pilot.pause()
        assert isinstance(app.screen, PathPromptScreen)
        await pilot.press(*"/srv/fast", "enter")
        await pilot.pause()
        home = app.screen
        assert isinstance(home, HomeScreen)
        assert home.target.path == "/srv/fast"
        assert "--filename=/srv/fast/" in home.preview.command


async def test_a_bad_typed_directory_is_a_sentence(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("t", "end", "enter", *"relative/dir", "enter")
        await pilot.pause()
        assert any("does not exist" in text for text in log.notifications())
        assert app.screen.target.path == "/home/ada/bench"


class RealTargetServices(ReplayServices):
    """The replayed presets and runs, with the real services' inspection of a typed directory."""

    inspect_target = Services.inspect_target


async def test_a_missing_typed_directory_is_refused_in_the_apps_words(tmp_path) -> None:
    log = MessageLog()
    app = IotuiApp(RealTargetServices(tmp_path))
    missing = tmp_path / "absent"
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        await pilot.press("t", "end", "enter")  # "another directory..." is last
        await pilot.pause()
        assert isinstance(app.screen, PathPromptScreen)
        await pilot.press(*str(missing), "enter")
        await pilot.pause()
        sentences = [text for text in log.notifications() if str(missing) in text]
        assert sentences == [f"The target {missing} does not exist. {TARGET_ADVICE['target-missing']}"]
        assert "pick a target from the list (t)" in sentences[0]
        assert "--" not in sentences[0]
        assert app.screen.target.path == "/home/ada/bench"  # the chosen target is kept


async def test_r_on_a_system_directory_asks_first(tmp_path) -> None:
    from iotui.ui.screens.confirm import ConfirmScreen

    services = ReplayServices(tmp_path)
    app = IotuiApp(services, target="/usr")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.screen.target.path == "/usr"
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "/usr is a system directory" in screen_text(app)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen) and services.requests == []
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)
        assert [request.target.path for request in services.requests] == ["/usr"]  # as chosen


def test_system_directories_are_the_systems_own_not_those_below() -> None:
    from iotui.core.fio.system_paths import is_system_directory

    assert is_system_directory("/") and is_system_directory("/boot") and is_system_directory("/usr/")
    assert not is_system_directory("/mnt/data") and not is_system_directory("/var/tmp/bench")


async def test_option_edits_belong_to_the_preset_they_were_made_on(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        first = app.screen.preset.name
        await pilot.press("e", "5")
        await pilot.pause()
        assert "--runtime=5" in app.screen.preview.command
        await pilot.press("escape", "p", "down")
        await pilot.pause()
        assert app.screen.preset.name != first
        assert "--runtime=5" not in app.screen.preview.command  # not carried over
        assert app.screen.query_one("#option-runtime").value == ""
        await pilot.press("p", "up")
        await pilot.pause()
        assert app.screen.preset.name == first
        assert app.screen.query_one("#option-runtime").value == "5"
        assert "--runtime=5" in app.screen.preview.command  # kept for the preset it was made on


async def test_at_80x24_the_command_is_reached_and_scrolled_by_keyboard(tmp_path) -> None:
    app = IotuiApp(ReplayServices(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#preview-box")
        for _ in range(12):
            if app.focused is box:
                break
            await pilot.press("tab")
        assert app.focused is box  # the fio command is reachable with tab
        if box.max_scroll_y > 0:
            await pilot.press("end")
            await pilot.pause()
            assert box.scroll_y == box.max_scroll_y  # and its end can be read by keyboard


def test_the_editor_refuses_a_size_as_the_command_line_does() -> None:
    from iotui.ui.widgets.option_editor import parse_overrides

    _, problem = parse_overrides({"size": "64Q"}, None)
    assert problem is not None and "size should be a size such as 4k, 1M or 1G, not '64Q'" in problem.sentence


async def test_the_chosen_target_travels_from_home_to_the_plan_without_a_second_inspection(tmp_path, monkeypatch) -> None:
    import shutil
    from pathlib import Path

    from iotui.core.host import targets as target_checks
    from iotui.core.start import StartError, start_run
    from iotui.ui.messages import RunFailed
    from iotui.ui.services import Services

    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/bootstrap.sh installs it)")
    inspected: list[Path] = []
    real_inspect = target_checks.inspect_target

    def counting_inspect(path, *args, **kwargs):
        inspected.append(Path(path))
        return real_inspect(path, *args, **kwargs)

    monkeypatch.setattr(target_checks, "inspect_target", counting_inspect)
    planned = []

    class PlanOnly(Services):
        """The real services and the core's real entry; the session is kept, not run."""

        def list_targets(self):
            return []  # only the target named on the command line, inspected once

        async def start(self, request, on_event):
            planned.append((request, await start_run(request, on_event)))
            raise StartError("planned, not run", code="refused")

    log = MessageLog()
    app = IotuiApp(PlanOnly(runs_dir=tmp_path / "runs", baseline_s=0), target=str(tmp_path), preset="quick")
    async with app.run_test(size=(80, 24), message_hook=log) as pilot:
        await pilot.pause()
        chosen = app.screen.target
        assert inspected == [tmp_path]
        await pilot.press("e", "5", "tab", "1", "6", "M")  # runtime 5, size 16M: a preview per keystroke
        await pilot.press("escape", "r")
        await settle(pilot)
        assert [failed.sentence for failed in log.of(RunFailed)] == ["planned, not run"]
    request, session = planned[0]
    assert request.target is chosen
    assert session.plan.target["path"] == str(tmp_path.resolve())
    assert "--runtime=5" in " ".join(session.plan.argv) and "--size=16M" in " ".join(session.plan.argv)
    assert inspected == [tmp_path]  # chosen once; no edit and no start inspected it again
