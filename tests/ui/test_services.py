"""The real services the app uses: presets, targets and the command preview from the core."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from iotui.core.presets.files import find_preset
from iotui.ui.service_types import Overrides, RunRequest
from iotui.ui.services import ServiceError, Services


def test_presets_are_the_shipped_ones(tmp_path) -> None:
    presets, errors = Services(runs_dir=tmp_path).list_presets()
    assert "quick" in [preset.name for preset in presets]
    assert errors == []


def test_the_desktop_table_is_the_first_preset_on_home(tmp_path) -> None:
    names = [preset.name for preset in Services(runs_dir=tmp_path).list_presets()[0]]
    assert names[:2] == ["desktop", "desktop-nvme"]
    rest = names[2:]
    assert rest == sorted(rest) and "quick" in rest


def test_targets_start_with_the_current_directory(tmp_path) -> None:
    targets = Services(runs_dir=tmp_path, cwd=str(tmp_path)).list_targets()
    assert str(targets[0].path) == str(tmp_path.resolve())


def test_the_preview_is_the_exact_command_with_a_placeholder_file(tmp_path) -> None:
    services = Services(runs_dir=tmp_path, fio="/usr/bin/fio")
    preset = services.apply_overrides(find_preset("quick"), Overrides(runtime_s=3, size="16M", direct=False))
    preview = services.preview(preset, services.inspect_target(str(tmp_path)))
    assert preview.error is None
    assert f"--filename={tmp_path.resolve()}/.iotui-XXXXXXXXXXXXXXXX/testfile" in preview.command
    assert "--runtime=3" in preview.command and "--size=16M" in preview.command and "--direct=0" in preview.command
    assert preview.duration_s == 3
    assert preview.disk_bytes == 16 * 2**20
    assert any(code == "cache-small-file" for code, _ in preview.warnings)  # buffered and small


def test_a_missing_fio_is_a_warning_in_the_preview(tmp_path) -> None:
    services = Services(runs_dir=tmp_path, fio="/nowhere/fio")
    preview = services.preview(find_preset("quick"), services.inspect_target(str(tmp_path)))
    assert any(code == "fio-missing" and "install" in sentence for code, sentence in preview.warnings)


@pytest.mark.skipif(os.geteuid() == 0, reason="root can write anywhere")
def test_an_unwritable_target_is_refused_in_the_preview(tmp_path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    services = Services(runs_dir=tmp_path)
    preview = services.preview(find_preset("quick"), services.inspect_target(str(locked)))
    assert preview.error and "Cannot write" in preview.error


def test_a_memory_target_is_refused_in_the_preview(tmp_path) -> None:
    shm = Path("/dev/shm")
    if not shm.is_dir():
        pytest.skip("no /dev/shm here")
    services = Services(runs_dir=tmp_path)
    info = services.inspect_target(str(shm))
    if info.filesystem not in ("tmpfs", "ramfs"):
        pytest.skip("/dev/shm is not a memory filesystem here")
    assert any(code == "fs-memory" for code, _ in info.warnings)
    preview = services.preview(find_preset("quick"), info)
    assert preview.error and "memory" in preview.error
    assert preview.error.endswith(" Pick a target directory on a disk.") and "--" not in preview.error


def test_a_run_without_a_known_size_asks_for_one_in_the_options(tmp_path) -> None:
    from iotui.core.presets.job_file import load_job_file

    job = tmp_path / "half.fio"
    job.write_text("[x]\nrw=write\nsize=50%\n")  # a percentage of a file not made yet
    services = Services(runs_dir=tmp_path)
    preview = services.preview(load_job_file(job), services.inspect_target(str(tmp_path)))
    assert preview.error and "cannot check the free space" in preview.error
    assert preview.error.endswith(" Type a size in the options.") and "--" not in preview.error


def test_a_missing_directory_is_a_sentence(tmp_path) -> None:
    with pytest.raises(ServiceError, match="does not exist"):
        Services(runs_dir=tmp_path).inspect_target(str(tmp_path / "nope"))


def test_a_bad_override_is_a_sentence(tmp_path) -> None:
    with pytest.raises(ServiceError, match="number of seconds above 0"):
        Services(runs_dir=tmp_path).apply_overrides(find_preset("quick"), Overrides(runtime_s=-1))


async def test_a_missing_fio_stops_the_session_with_the_install_sentence(tmp_path) -> None:
    services = Services(runs_dir=tmp_path, fio="/nowhere/fio", baseline_s=0)
    with pytest.raises(ServiceError, match="install"):
        await services.make_session(RunRequest(find_preset("quick"), services.inspect_target(str(tmp_path))), lambda event: None)


def test_an_unreadable_runs_directory_lists_nothing(tmp_path) -> None:
    assert Services(runs_dir=tmp_path / "absent").list_records() == []


def _count_inspections(monkeypatch) -> list[Path]:
    """Every inspection of a target from now on (the mount table and sysfs reads each one makes)."""
    from iotui.core.host import targets as target_checks

    inspected: list[Path] = []
    real_inspect = target_checks.inspect_target

    def counting_inspect(path, *args, **kwargs):
        inspected.append(Path(path))
        return real_inspect(path, *args, **kwargs)

    monkeypatch.setattr(target_checks, "inspect_target", counting_inspect)
    return inspected


async def test_the_chosen_target_reaches_the_plan_inspected_once(tmp_path, monkeypatch) -> None:
    import shutil

    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/bootstrap.sh installs it)")
    from iotui.core.runs import plan as run_plan

    inspected = _count_inspections(monkeypatch)
    disk_reads: list[str] = []  # the sysfs walks a run needs (its sampler's devices, the record's disk facts)
    real_devices, real_facts = run_plan.backing_devices, run_plan.target_device_facts
    monkeypatch.setattr(run_plan, "backing_devices", lambda path: disk_reads.append("devices") or real_devices(path))
    monkeypatch.setattr(run_plan, "target_device_facts", lambda path: disk_reads.append("facts") or real_facts(path))
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    chosen = services.inspect_target(str(tmp_path))  # the one inspection: when the target is chosen
    for runtime_s in (3, 4, 5, 6):  # four option edits on the chosen target
        preset = services.apply_overrides(find_preset("quick"), Overrides(runtime_s=runtime_s, size="16M"))
        preview = services.preview(preset, chosen)
        assert preview.error is None and f"--runtime={runtime_s}" in preview.command
    assert disk_reads == []
    session = await services.make_session(RunRequest(preset, chosen), lambda event: None)
    assert disk_reads == ["devices", "facts"]
    assert inspected == [tmp_path]
    assert session.plan.options["runtime"] == "6"
    assert f"--filename={tmp_path.resolve()}/" in " ".join(session.plan.argv)


def test_a_carried_target_has_its_free_space_read_again(tmp_path, monkeypatch) -> None:
    from dataclasses import replace

    services = Services(runs_dir=tmp_path / "runs", fio="/usr/bin/fio")
    chosen = services.inspect_target(str(tmp_path))
    if chosen.free_bytes is None or chosen.free_bytes < 64 * 2**20:
        pytest.skip("the temporary directory has too little room to plan a 16 MiB run")
    inspected = _count_inspections(monkeypatch)
    preset = services.apply_overrides(find_preset("quick"), Overrides(runtime_s=3, size="16M"))
    # Inspected when the disk was full (as far as the carried facts say): the plan reads the space
    # again, so the room there is now lets the run start.
    stale_full = replace(chosen, free_bytes=0)
    assert services.preview(preset, stale_full).error is None
    # And the other way round: a carried inspection that says there is room does not hide a full disk.
    monkeypatch.setattr("iotui.core.host.targets._free_bytes", lambda path: 1024)
    preview = services.preview(preset, chosen)
    assert preview.error and "free" in preview.error
    assert inspected == []


async def test_a_sweeps_points_on_the_chosen_target_plan_without_inspecting_it_again(tmp_path, monkeypatch) -> None:
    import shutil

    from iotui.core.sweep.record import SweepPointState

    if shutil.which("fio") is None:
        pytest.skip("fio is not installed (scripts/bootstrap.sh installs it)")
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    chosen = services.inspect_target(str(tmp_path))
    inspected = _count_inspections(monkeypatch)
    setup = services.plan_sweep(
        find_preset("quick"), str(tmp_path), "bs=4k,8k", Overrides(runtime_s=1, size="1M"), target_info=chosen
    )
    runner = services.make_sweep_runner(setup, lambda event: None)
    for index, block_size in enumerate(("4k", "8k")):
        session = await runner.start_point(SweepPointState(index=index, params={"bs": block_size}), lambda event: None)
        assert f"--bs={block_size}" in " ".join(session.plan.argv)
    assert inspected == []
