"""Every shipped preset, sweep point and argv rule, run by the real fio binary (tiny files, 1 s)."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from iotui.core.presets import argv as command
from iotui.core.fio import policy as safety
from iotui.core.fio.status import FioDocument, StatusSplitter
from iotui.core.presets.job_file import load_job_file
from iotui.core.presets.overrides import with_overrides
from iotui.core.presets.files import find_preset, list_presets, shipped_presets_dir
from iotui.core.presets.model import JobSection, Preset
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]

SHIPPED = [shipped_presets_dir()]
TINY = {"runtime_s": 1, "size": "4M", "sets": {"ramp_time": "0"}}
_SWEEP_SPECIAL = {"job", "target", "targets", "tool"}


PRIVATE_NAME = ".iotui-e2e0123456789ab"


def run_fio(preset: Preset, directory: Path) -> tuple[dict, str, list[Path]]:
    """Run fio with iotui's argv in a private test directory made as iotui makes it.

    (final document, stderr, every file fio left in the private directory).
    """
    private = directory / PRIVATE_NAME
    if private.exists():
        shutil.rmtree(private)
    private.mkdir(mode=0o700)
    test_file = private / "testfile"
    for path in command.created_file_paths(preset, test_file):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    for path in command.placement_dirs(preset, private):
        path.mkdir(parents=True, exist_ok=True)
    argv = command.build_fio_argv(preset, test_file=test_file)
    result = subprocess.run(argv, capture_output=True, text=True, timeout=180, cwd=private)
    assert result.returncode == 0, (command.format_command(argv), result.stderr)
    splitter = StatusSplitter()
    items = splitter.feed(result.stdout.encode()) + splitter.close()
    documents = [item.doc for item in items if isinstance(item, FioDocument)]
    assert documents, result.stdout[-2000:]
    return documents[-1], result.stderr, sorted(path for path in private.rglob("*") if path.is_file())


def assert_clean_run(preset: Preset, document: dict, stderr: str) -> None:
    problems = [line for line in stderr.splitlines() if re.search(r"error|fail|invalid|unknown|bad ", line, re.I)]
    assert problems == [], stderr
    jobs = document["jobs"]
    assert {job["jobname"] for job in jobs} == {section.name for section in preset.jobs}
    assert all(job["error"] == 0 for job in jobs)
    done = sum(job[direction]["total_ios"] for job in jobs for direction in ("read", "write", "trim"))
    assert done > 0


@pytest.mark.parametrize("name", sorted(p.name for p in list_presets(SHIPPED)[0]))
def test_every_shipped_preset_runs_on_real_fio(tmp_path: Path, name: str) -> None:
    preset = with_overrides(find_preset(name, SHIPPED), **TINY)
    document, stderr, files = run_fio(preset, tmp_path)
    assert_clean_run(preset, document, stderr)
    # All jobs share the one test file: what lands on disk is what iotui estimated.
    assert sorted(tmp_path.iterdir()) == [tmp_path / PRIVATE_NAME] and len(files) == 1
    assert sum(path.stat().st_size for path in files) == command.required_bytes(preset) == 4 << 20


def sweep_points() -> list[tuple[str, dict[str, str]]]:
    """Each shipped preset's default sweep points over fio options (job= points are the sections above)."""
    points = []
    for preset in list_presets(SHIPPED)[0]:
        vary = {k: v for k, v in (preset.sweep or {}).get("vary", {}).items() if k not in _SWEEP_SPECIAL}
        if not vary:
            continue
        for values in itertools.product(*vary.values()):
            points.append((preset.name, dict(zip(vary, values))))
    return points


@pytest.mark.parametrize(
    "name, point", sweep_points(),
    ids=lambda value: value if isinstance(value, str) else ",".join(f"{k}={v}" for k, v in value.items()),
)
def test_every_sweep_point_runs_on_real_fio(tmp_path: Path, name: str, point: dict[str, str]) -> None:
    preset = find_preset(name, SHIPPED)
    preset = with_overrides(preset, runtime_s=1, size="4M", sets={"ramp_time": "0", **point})
    document, stderr, files = run_fio(preset, tmp_path)
    assert_clean_run(preset, document, stderr)


def test_sweep_points_exist() -> None:
    assert ("numjobs-scaling", {"numjobs": "32"}) in sweep_points()


def test_the_sync_of_mount_options_is_one_write_and_an_fsync(tmp_path: Path) -> None:
    preset = with_overrides(find_preset("mount-options", SHIPPED), size="4M")
    document, stderr, _ = run_fio(preset, tmp_path)
    assert_clean_run(preset, document, stderr)
    sync = next(job for job in document["jobs"] if job["jobname"] == "sync")
    assert sync["write"]["total_ios"] == 1
    write = next(job for job in document["jobs"] if job["jobname"] == "write")
    assert write["write"]["io_bytes"] == 4 << 20


@pytest.mark.parametrize(
    "options, expected_bytes",
    [
        ({"size": "4M", "numjobs": "4"}, 4 << 20),
        ({"size": "1M", "numjobs": "3", "offset_increment": "2M"}, 5 << 20),
        ({"size": "1M", "offset": "3M"}, 4 << 20),
        ({"size": "1M", "filesize": "2M"}, 2 << 20),
        ({"size": "1MiB"}, 10**6),  # fio's compatibility mode: MiB is 1000 x 1000
    ],
)
def test_the_disk_estimate_is_what_fio_lays_out(tmp_path: Path, options: dict[str, str], expected_bytes: int) -> None:
    preset = Preset("layout", "t", "d", "", {"rw": "write", "bs": "64k", **options}, (JobSection("w", {}),))
    assert command.required_bytes(preset) == expected_bytes
    _, _, files = run_fio(preset, tmp_path)
    assert sum(path.stat().st_size for path in files) == expected_bytes


def test_a_colon_in_the_target_path_reaches_fio_escaped(tmp_path: Path) -> None:
    target = tmp_path / "a:b"
    target.mkdir()
    preset = Preset("colon", "t", "d", "", {"rw": "write", "bs": "64k", "size": "1M"}, (JobSection("w", {}),))
    _, _, files = run_fio(preset, target)
    assert files == [target / PRIVATE_NAME / "testfile"] and files[0].stat().st_size == 1 << 20
    assert sorted(tmp_path.iterdir()) == [target]


def test_several_files_are_fio_s_own_in_the_private_directory(tmp_path: Path) -> None:
    preset = Preset("files", "t", "d", "", {"rw": "write", "bs": "64k", "size": "3M", "nrfiles": "3"}, (JobSection("w", {}),))
    _, _, files = run_fio(preset, tmp_path)
    assert len(files) == 3 and all(path.stat().st_size == 1 << 20 for path in files)
    assert sum(path.stat().st_size for path in files) == command.required_bytes(preset)
    assert sorted(tmp_path.iterdir()) == [tmp_path / PRIVATE_NAME]


def test_three_thousand_files_fit_on_the_command_line(tmp_path: Path) -> None:
    preset = Preset("many", "t", "d", "", {"rw": "write", "bs": "4k", "size": "12M", "nrfiles": "3000"}, (JobSection("w", {}),))
    _, _, files = run_fio(preset, tmp_path)
    on_disk = sum(path.stat().st_size for path in files)
    assert len(files) == 3000 and 0.99 * command.required_bytes(preset) <= on_disk <= command.required_bytes(preset)


def test_job_file_sections_run_together_and_preset_sections_in_turn(tmp_path: Path) -> None:
    job = tmp_path / "two.fio"
    job.write_text("[global]\nsize=1M\nbs=64k\n[reader]\nrw=read\n[writer]\nrw=write\n")
    work = tmp_path / "work"
    work.mkdir()
    together, _, _ = run_fio(load_job_file(job), work)
    assert len({j["groupid"] for j in together["jobs"]}) == 1  # one group: they ran at the same time
    sections = (JobSection("reader", {"rw": "read"}), JobSection("writer", {"rw": "write"}))
    in_turn, _, _ = run_fio(Preset("p", "t", "d", "", {"size": "1M", "bs": "64k"}, sections), work)
    assert len({j["groupid"] for j in in_turn["jobs"]}) == 2  # stonewall: one after another


def test_fio_runs_abbreviated_options_so_the_policy_refuses_them(tmp_path: Path) -> None:
    """The reason abbreviations are refused: fio's getopt resolves --exec_pre to exec_prerun."""
    marker = tmp_path / "ran"
    subprocess.run(
        ["fio", "--name=t", f"--filename={tmp_path / 'f'}", "--size=64k", "--rw=read",
         f"--exec_pre=touch {marker}", "--output-format=json"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert marker.exists()
    with pytest.raises(safety.PolicyError, match="fio reads 'exec_pre' as 'exec_prerun'.*runs a command"):
        safety.check_options({"exec_pre": f"touch {marker}"}, "--set")


def fio_option_names() -> set[str]:
    text = subprocess.run(["fio", "--cmdhelp=all"], capture_output=True, text=True, timeout=30).stdout
    names = {match.group(1) for match in re.finditer(r"^\s*([A-Za-z0-9_-]+)\s*:", text, re.M)}
    for engine in fio_engines():
        help_text = subprocess.run(["fio", f"--enghelp={engine}"], capture_output=True, text=True, timeout=30).stdout
        names |= {match.group(1) for match in re.finditer(r"^\s*([A-Za-z0-9_-]+)\s*:", help_text, re.M)}
    return names


def fio_engines() -> list[str]:
    text = subprocess.run(["fio", "--enghelp"], capture_output=True, text=True, timeout=30).stdout
    return [line.strip() for line in text.splitlines()[1:] if line.strip()]


def test_the_option_table_holds_every_option_and_engine_of_the_installed_fio() -> None:
    from iotui.core.fio.options import table_for

    table = table_for(shutil.which("fio"))
    engines = fio_engines()
    assert "psync" in engines and set(engines) == set(table.engine_options)
    known = set(table.options) | {name for names in table.engine_options.values() for name in names}
    assert fio_option_names() == known
    # Every engine iotui lets through is one this fio has.
    assert safety.SAFE_ENGINES - {"solarisaio", "windowsaio"} <= set(engines)
