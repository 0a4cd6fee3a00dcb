"""The desktop table presets, the latency-target preset and the steady-state preset."""

from __future__ import annotations

from iotui.core.presets.estimate import estimate
from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.presets.model import section_option, section_options, uses_direct_io

SHIPPED = [shipped_presets_dir()]


def _rows(name: str) -> list[tuple[str, str, str, str, str]]:
    preset = find_preset(name, SHIPPED)
    return [
        (section.name, options["rw"], options["bs"], options["iodepth"], options["numjobs"])
        for section, options in zip(preset.jobs, section_options(preset))
    ]


def test_desktop_is_the_classic_table_read_then_write() -> None:
    assert _rows("desktop") == [
        ("seq1m-q8t1-read", "read", "1m", "8", "1"),
        ("seq1m-q8t1-write", "write", "1m", "8", "1"),
        ("seq1m-q1t1-read", "read", "1m", "1", "1"),
        ("seq1m-q1t1-write", "write", "1m", "1", "1"),
        ("rnd4k-q32t1-read", "randread", "4k", "32", "1"),
        ("rnd4k-q32t1-write", "randwrite", "4k", "32", "1"),
        ("rnd4k-q1t1-read", "randread", "4k", "1", "1"),
        ("rnd4k-q1t1-write", "randwrite", "4k", "1", "1"),
    ]


def test_desktop_nvme_uses_the_nvme_tests() -> None:
    assert _rows("desktop-nvme") == [
        ("seq1m-q8t1-read", "read", "1m", "8", "1"),
        ("seq1m-q8t1-write", "write", "1m", "8", "1"),
        ("seq128k-q32t1-read", "read", "128k", "32", "1"),
        ("seq128k-q32t1-write", "write", "128k", "32", "1"),
        ("rnd4k-q32t16-read", "randread", "4k", "32", "16"),
        ("rnd4k-q32t16-write", "randwrite", "4k", "32", "16"),
        ("rnd4k-q1t1-read", "randread", "4k", "1", "1"),
        ("rnd4k-q1t1-write", "randwrite", "4k", "1", "1"),
    ]


def test_desktop_presets_use_direct_io_one_1gib_file_and_a_few_seconds_per_test() -> None:
    for name in ("desktop", "desktop-nvme"):
        preset = find_preset(name, SHIPPED)
        assert uses_direct_io(preset)
        assert preset.serial  # sections run one after another
        duration_s, disk_bytes = estimate(preset)
        assert disk_bytes == 1 << 30  # one shared 1 GiB file
        assert duration_s == 8 * 5
        # 16 clones must report as one section
        assert "group_reporting" in preset.options


def test_latency_target_preset_asks_fio_for_its_search() -> None:
    preset = find_preset("latency-target", SHIPPED)
    assert preset.options["latency_target"] == "1ms"
    assert preset.options["latency_window"] == "1s"
    assert preset.options["latency_percentile"] == "99"
    assert int(preset.options["iodepth"]) > 1  # the depth fio may go up to


def test_steady_preset_fills_the_file_first_and_asks_fio_for_steady_state() -> None:
    preset = find_preset("steady-randwrite", SHIPPED)
    fill, steady = section_options(preset)
    assert fill["rw"] == "write" and "runtime" not in fill and "time_based" not in fill
    assert steady["rw"] == "randwrite"
    assert steady["steadystate"] == "iops:10%"
    assert section_option(preset, preset.jobs[1], "ss_dur") == "10s"
