"""Bad input never crashes: a corpus of broken records and presets against the CLI and the app."""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui import cli
from iotui.core.presets.files import list_presets, shipped_presets_dir
from iotui.core.records.files import load_record, save_record
from iotui.ui.app import IotuiApp
from iotui.ui.screens.history import HistoryScreen
from iotui.ui.widgets.history_table import HistoryTable
from tests.ui.helpers import screen_text
from tests.ui.replay import ReplayServices
from tests.ui.test_comparison import make_record


def _good(runs: Path) -> Path:
    return save_record(make_record("aaaaaaaa01", 1, preset="quick", iops=100.0), runs)


def _corpus(runs: Path) -> dict[str, Path]:
    """Each broken record beside a good one; the broken ones are edits of a real record."""
    good = _good(runs)
    text = good.read_text()
    assert "duration_s = " in text and "iops = 100.0" in text and 'preset = "quick"' in text
    broken = {
        "nested 5,000 deep": "x = " + "[" * 5000 + "]" * 5000 + "\n",
        "nested tables 5,000 deep": "x = " + "{a = " * 5000 + "1" + "}" * 5000 + "\n",
        "duration_s = inf": _replace_line(text, "duration_s = ", "duration_s = inf"),
        "iops = nan": text.replace("iops = 100.0", "iops = nan", 1),
        "duration_s = -inf": _replace_line(text, "duration_s = ", "duration_s = -inf"),
        "NUL in the preset name": text.replace('preset = "quick"', 'preset = "qu\\u0000ick"', 1),
        "escape in the title": text.replace('preset = "quick"', 'preset = "quick"\ntitle = "\\u001b[2J"', 1),
        "not UTF-8": None,
    }
    paths = {}
    for index, (name, content) in enumerate(broken.items()):
        path = runs / f"20261121-12{index:02d}00-broken-{index:08d}.toml"
        if content is None:
            path.write_bytes(b"schema = 2\n\xff\xfe\n")
        else:
            path.write_text(content)
        paths[name] = path
    return paths


def _replace_line(text: str, start: str, new: str) -> str:
    return "\n".join(new if line.startswith(start) else line for line in text.splitlines()) + "\n"


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    runs = tmp_path / "runs"
    runs.mkdir()
    return runs, _corpus(runs)


def test_every_broken_record_is_refused_by_name(corpus) -> None:
    from iotui.core.records.schema import RecordError

    _, paths = corpus
    for name, path in paths.items():
        with pytest.raises(RecordError) as caught:
            load_record(path)
        assert str(path) in str(caught.value), name


@pytest.mark.parametrize("command", ["show", "compare", "export"])
def test_show_compare_and_export_print_a_sentence_naming_the_file(corpus, capsys, command: str) -> None:
    runs, paths = corpus
    good = next(path for path in runs.glob("*.toml") if "broken" not in path.name)
    for name, path in paths.items():
        argv = [command, str(path)] if command == "show" else [command, str(good), str(path)]
        code = cli.main([*argv, "--runs-dir", str(runs)] if command != "show" else argv)
        out, err = capsys.readouterr()
        assert code != 0, (name, out)
        assert path.name in err and "Traceback" not in err + out, (name, err)


async def test_history_lists_each_broken_record_with_its_error_and_the_app_goes_on(corpus) -> None:
    runs, paths = corpus
    app = IotuiApp(ReplayServices(runs))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("h")
        await pilot.pause()
        assert isinstance(app.screen, HistoryScreen)
        table = app.screen.query_one(HistoryTable)
        assert sum(1 for entry in table.shown if entry.record is None) == len(paths)
        assert sum(1 for entry in table.shown if entry.record is not None) == 1
        assert "bad file" in screen_text(app)
        assert app.is_running


PRESET = 'name = "{name}"\ndescription = "d"\n[options]\nrw = "read"\n'


@pytest.mark.parametrize(
    "body, words",
    [
        ("x = " + "[" * 3000 + "]" * 3000 + "\n", "nests too deeply"),
        ("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n", "nests too deeply"),
        ('name = "evil"\ndescription = "d"\n[options]\nruntime = -5\n', "negative"),
        ('name = "evil"\ndescription = "d"\n[options]\nruntime = inf\n', "a number with a fraction"),
        ('name = "evil"\ndescription = "d"\n[options]\nbs = "4k\\u0000"\n', "control character"),
        ('name = "ev\\u0000il"\ndescription = "d"\n', "key 'name'"),
        ('name = "evil"\ndescription = "d"\n[options]\nbs = { a = 1 }\n', "expected a string"),
    ],
)
def test_a_bad_user_preset_is_refused_by_name_and_the_others_still_work(tmp_path, body: str, words: str) -> None:
    user = tmp_path / "presets"
    user.mkdir()
    (user / "evil.toml").write_text(body)
    (user / "mine.toml").write_text(PRESET.format(name="mine"))
    found, errors = list_presets([shipped_presets_dir(), user])
    assert [str(error) for error in errors] and all("evil.toml" in str(error) for error in errors)
    assert words in str(errors[0])
    names = {preset.name for preset in found}
    assert "mine" in names and "quick" in names and "evil" not in names


def test_the_cli_names_a_deep_preset_and_runs_the_others(tmp_path, capsys, monkeypatch) -> None:
    config = tmp_path / "config"
    (config / "iotui" / "presets").mkdir(parents=True)
    (config / "iotui" / "presets" / "deep.toml").write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    assert cli.main(["presets"]) == 0
    out, err = capsys.readouterr()
    assert "quick" in out and "deep.toml" in out + err and "Traceback" not in out + err
