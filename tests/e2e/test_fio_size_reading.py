"""Every size spelling iotui accepts, read by fio itself: the io_bytes of a short ``ioengine=null`` run.

The null engine does no I/O and lays out no file, so fio's io_bytes is exactly the size it read
(rounded down to the block size): the free-space check must count the same bytes.
"""

from __future__ import annotations

import json
import subprocess

import pytest

from iotui.core.fio.units import parse_size_bytes
from iotui.core.presets.estimate import disk_estimate
from iotui.core.presets.model import Preset
from tests.conftest import requires_fio

pytestmark = [pytest.mark.fio, requires_fio]
BLOCK_BYTES = 64


def _fio_io_bytes(tmp_path, *options: str) -> int:
    completed = subprocess.run(
        ["fio", "--name=x", "--ioengine=null", "--rw=write", f"--bs={BLOCK_BYTES}", "--output-format=json", *options],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, check=True,
    )
    return int(json.loads(completed.stdout[completed.stdout.index("{"):])["jobs"][0]["write"]["io_bytes"])


# Spellings within a few MiB, so each run takes a fraction of a second.
SPELLINGS = [
    ("1M", 1024), ("1m", 1024), ("1MB", 1024), ("1mb", 1024), ("1mB", 1024), ("1Mi", 1024), ("1MiB", 1024),
    ("1mib", 1024), ("1MIB", 1024), ("3k", 1024), ("3K", 1024), ("1KiB", 1024), ("1Ki", 1024), ("4096", 1024),
    ("4096b", 1024), ("4096B", 1024), ("0x100000", 1024), ("0X10000", 1024), ("0xfffc0", 1024), ("+2M", 1024),
    ("+0x10000", 1024), ("1M", 1000), ("1MiB", 1000), ("1Mi", 1000), ("3k", 1000), ("1KiB", 1000),
    ("0x100000", 1000), ("+2M", 1000),
]


@pytest.mark.parametrize("spelling, kb_base", SPELLINGS)
def test_iotui_reads_each_size_as_fio_does(tmp_path, spelling: str, kb_base: int) -> None:
    ours = parse_size_bytes(spelling, kb_base=kb_base)
    assert ours is not None
    theirs = _fio_io_bytes(tmp_path, f"--kb_base={kb_base}", f"--size={spelling}")  # kb_base first, as iotui passes it
    assert theirs == ours // BLOCK_BYTES * BLOCK_BYTES


@pytest.mark.parametrize(
    "options",
    [
        {"filename": "a:b:c", "filesize": "40k"},
        {"nrfiles": "0x3", "filesize": "40k"},
        {"filesize": "0x10000"},
        {"filesize": "+64k"},
        {"filename": "a:b", "size": "0x20000"},
    ],
)
def test_the_free_space_estimate_is_what_fio_reads(tmp_path, options: dict[str, str]) -> None:
    preset = Preset(name="p", title="p", description="", tells="", options=options, jobs=())
    estimated, why = disk_estimate(preset)
    assert why is None
    assert _fio_io_bytes(tmp_path, *(f"--{key}={value}" for key, value in options.items())) == estimated


@pytest.mark.parametrize("spelling, fio_bytes", [("1.5M", 1), ("4 k", 4), ("0x1k", 1)])
def test_what_fio_reads_otherwise_is_refused(tmp_path, spelling: str, fio_bytes: int) -> None:
    # fio reads these as a few bytes (the size it lays out is not the one written): iotui refuses them.
    assert parse_size_bytes(spelling) is None
    completed = subprocess.run(
        ["fio", "--name=x", "--ioengine=null", "--rw=write", "--bs=512", f"--size={spelling}", "--output-format=json"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path,
    )
    assert f"size too small, must not be less than minimum block size: {fio_bytes} < 512" in completed.stdout + completed.stderr


@pytest.mark.parametrize(
    "options, jobs",
    [
        ({"size": "1M", "kb_base": "1000"}, {}),  # kb_base after the size it changes: iotui passes it first
        ({"size": "1M"}, {"x": {"kb_base": "1000"}}),  # a section's kb_base leaves [global]'s size as read
        ({"kb_base": "1000"}, {"x": {"size": "1MiB"}}),
        ({"filesize": "0x20000", "ioengine": "null "}, {"x": {"filename": "a:b"}}),
    ],
)
def test_the_argv_iotui_builds_makes_fio_read_what_iotui_estimated(tmp_path, options, jobs) -> None:
    from iotui.core.presets.argv import build_fio_argv
    from iotui.core.presets.model import JobSection

    preset = Preset(name="p", title="p", description="", tells="", options={"ioengine": "null", "rw": "write",
                    "bs": str(BLOCK_BYTES), **options}, jobs=tuple(JobSection(n, o) for n, o in jobs.items()))
    estimated, why = disk_estimate(preset)
    assert why is None
    argv = [arg for arg in build_fio_argv(preset, test_file=tmp_path / "testfile")
            if not arg.startswith(("--status-interval", "--output-format"))]
    completed = subprocess.run([*argv, "--output-format=json"], capture_output=True, text=True, timeout=60,
                               cwd=tmp_path, check=True)
    jobs_out = json.loads(completed.stdout[completed.stdout.index("{"):])["jobs"]
    assert sum(int(job["write"]["io_bytes"]) for job in jobs_out) == estimated
