"""A plan resolves its target once and merges its preset's sections once, from the command line
and from the app's Home alike.

The target is a symlink to a directory, so resolving it is real work; every resolution of it is
counted where all of them happen (``os.path.realpath``, which ``Path.resolve`` calls). The
merges are counted at ``merge_options``: one build of the merged sections is one merge per
section of the preset.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iotui.cli_common import load_preset_from_args, start_request
from iotui.cli_options import RunOptions
from iotui.core.presets import model
from iotui.core.presets.files import find_preset
from iotui.core.start import StartError, plan_run
from iotui.ui.service_types import Overrides, RunRequest
from iotui.ui.services import Services

PRESET = "desktop"  # eight sections: a build is eight merges


@pytest.fixture
def link(tmp_path: Path) -> Path:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    return tmp_path / "link"


def _count_resolutions(monkeypatch: pytest.MonkeyPatch, link: Path) -> list[str]:
    """Every resolution of the target (by its link or its real path), as given."""
    spellings = {str(link), str(link.resolve())}
    resolved: list[str] = []
    real = os.path.realpath

    def counting(path, *args, **kwargs):
        if os.path.abspath(os.fspath(path)) in spellings:
            resolved.append(os.fspath(path))
        return real(path, *args, **kwargs)

    monkeypatch.setattr(os.path, "realpath", counting)
    return resolved


def _count_merges(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    merges: list[int] = []
    real = model.merge_options

    def counting(base, override):
        merges.append(1)
        return real(base, override)

    monkeypatch.setattr(model, "merge_options", counting)
    return merges


def _cli_plan(link: Path):
    options = RunOptions(preset=PRESET, target=str(link), runtime="1", size="16M")
    preset = load_preset_from_args(options)
    return preset, plan_run(start_request(options, preset, runs_dir=None), "fio")


def _app_plan(link: Path, tmp_path: Path, *, counted=lambda: None):
    """Home's road: the target typed and inspected, a preview per edit, then the run's plan."""
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    preset = services.apply_overrides(
        next(p for p in services.list_presets()[0] if p.name == PRESET), Overrides(runtime_s=1, size="16M")
    )
    counted()
    chosen = services.inspect_target(str(link))
    services.preview(preset, chosen)
    services.preview(services.apply_overrides(preset, Overrides(size="32M")), chosen)
    services.preview(preset, chosen)
    return preset, plan_run(services.start_request(RunRequest(preset, chosen)), "fio")


def test_the_command_lines_plan_resolves_its_target_once(link, monkeypatch):
    resolved = _count_resolutions(monkeypatch, link)
    _, plan = _cli_plan(link)
    assert resolved == [str(link)]
    assert plan.target_path == link.resolve() and plan.target["path"] == str(link.resolve())
    assert plan.test_file is not None and plan.test_file.parent.parent == link.resolve()


def test_homes_target_is_resolved_once_from_typed_to_planned(link, tmp_path, monkeypatch):
    resolved = _count_resolutions(monkeypatch, link)
    _, plan = _app_plan(link, tmp_path)
    assert resolved == [str(link)]  # when typed on Home; no preview, nor the run's plan, again
    assert plan.target_path == link.resolve() and plan.target["path"] == str(link.resolve())


def test_a_chosen_target_gone_before_the_plan_is_refused_as_missing(link, tmp_path):
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    chosen = services.inspect_target(str(link))
    real = link.resolve()
    real.rmdir()
    with pytest.raises(StartError) as refused:
        plan_run(services.start_request(RunRequest(find_preset("quick"), chosen)), "fio")
    assert refused.value.key == "target-missing" and str(real) in str(refused.value)


def test_the_command_lines_plan_merges_the_sections_once(link, monkeypatch):
    merges = _count_merges(monkeypatch)
    preset, plan = _cli_plan(link)
    # load_preset_from_args merged nothing; the plan's one build is one merge per section.
    assert len(preset.jobs) == 8 and len(plan.sections) == 8
    assert len(merges) == len(preset.jobs)


def test_homes_previews_and_the_plan_merge_the_sections_once(link, tmp_path, monkeypatch):
    merges = _count_merges(monkeypatch)
    preset, plan = _app_plan(link, tmp_path, counted=merges.clear)
    # Three previews (one of another preset: the 32M edit) and the run's plan: two presets, one
    # build each. The run's plan built nothing again.
    assert len(plan.sections) == len(preset.jobs) == 8
    assert len(merges) == 2 * len(preset.jobs)


def test_the_merged_sections_are_the_callers_own(link):
    preset, _ = _cli_plan(link)
    first = model.section_options(preset)
    first[0]["bs"] = "777k"
    assert model.section_options(preset)[0].get("bs") != "777k"
