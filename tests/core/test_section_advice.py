"""The responsiveness warning's advice fits the evidence: the section where the level rose, its own
knobs and values; another program's writes or short memory are named as such."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from iotui.core.records.record import RunRecord
from iotui.core.runs.plan import RunPlan
from iotui.core.runs.recorder import RunRecorder

# The run's options as the record keeps them: each section's own as "<section>.<key>".
OPTIONS = {
    "direct": "1",
    "seq1m-q8t1-read.rw": "read", "seq1m-q8t1-read.iodepth": "8", "seq1m-q8t1-read.bs": "1m",
    "rnd4k-q32t1-read.rw": "randread", "rnd4k-q32t1-read.iodepth": "32", "rnd4k-q32t1-read.bs": "4k",
}
RUN_PRESSURE = {
    "responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 697.0, "cause_unit": "ms",
    "cause_threshold": 102.0, "probe_baseline_p99_ms": 0.5, "io_probe_baseline_p99_ms": 0.4,
    "io_probe_write_baseline_p99_ms": 2.0,
}


def _second(section: int, t_s: float, *, sluggish: bool, device_write_iops: float = 6.0) -> dict:
    return {
        "t_s": t_s, "dt_s": 1.0, "section": section, "read_iops": 900.0, "write_iops": 0.0,
        "device_read_iops": 1800.0, "device_write_iops": device_write_iops,
        "io_probe_write_iops": 1.0, "io_probe_read_iops": 1.0, "probe_p99_ms": 0.5, "io_probe_p99_ms": 3.0,
        "io_probe_write_p99_ms": 697.0 if sluggish else 3.0,
        "responsiveness": "sluggish" if sluggish else "ok",
        **({"responsiveness_cause": "io_probe_write"} if sluggish else {}),
    }


def _record(sluggish_section: int, device_write_iops: float = 6.0) -> RunRecord:
    sections = []
    for index, (name, iodepth, bs) in enumerate((("seq1m-q8t1-read", "8", "1m"), ("rnd4k-q32t1-read", "32", "4k"))):
        sections.append({
            "name": name, "jobs": [name], "groupid": index,
            "options": {"rw": "read", "bs": bs, "iodepth": iodepth, "numjobs": "1", "direct": "1"},
            "read": {"iops": 900.0, "bw_bytes": 900.0 * (1 << 20), "io_bytes": 1, "total_ios": 1},
        })
    samples = [
        _second(index, 5.0 * index + t, sluggish=index == sluggish_section, device_write_iops=device_write_iops)
        for index in range(2) for t in range(1, 6)
    ]
    return RunRecord(
        run={"id": "a" * 16, "preset": "desktop", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.timezone.utc), "duration_s": 10.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "h", "cpu_count": 4}, target={"path": "/data"},
        options=dict(OPTIONS), pressure=dict(RUN_PRESSURE), sections=sections, samples=samples,
    )


def _warning(record: RunRecord, tmp_path: Path) -> str:
    """The record's responsiveness warning, made as a run's recorder makes it."""
    plan = RunPlan(preset_name="desktop", argv=["fio"], options=dict(OPTIONS), target_path=tmp_path, test_file=None,
                   target={})
    recorder = RunRecorder(plan, runs_dir=None, on_event=None, sampler=None, probe=None, monitor=None, host_interval_s=1.0)
    recorder._add_responsiveness(record, plan.options, None)
    (warning,) = [item["message"] for item in record.warnings if item["code"] == "responsiveness"]
    return warning


def test_the_advice_names_the_sluggish_sections_own_iodepth_not_the_runs_largest(tmp_path: Path) -> None:
    warning = _warning(_record(sluggish_section=0), tmp_path)
    assert "seq1m-q8t1-read" in warning and "iodepth (now 8)" in warning, warning
    assert "32" not in warning and "rnd4k-q32t1-read" not in warning, warning  # the calm section's knob: no


def test_the_other_section_sluggish_names_iodepth_32(tmp_path: Path) -> None:
    warning = _warning(_record(sluggish_section=1), tmp_path)
    assert "rnd4k-q32t1-read" in warning and "iodepth (now 32)" in warning, warning
    assert "now 8" not in warning, warning


def test_another_programs_writes_are_named_instead_of_fios_queue(tmp_path: Path) -> None:
    # fio only read; the disk took 900 writes/s anyway (less 4 per probe write): a buffered writer outside fio.
    warning = _warning(_record(sluggish_section=1, device_write_iops=900.0), tmp_path)
    assert "another program was writing" in warning and "896 writes/s" in warning, warning
    assert "the disk busy" not in warning and "iodepth" not in warning, warning  # not fio's queue


def test_in_the_first_section_the_writes_may_be_fios_own_layout(tmp_path: Path) -> None:
    # fio lays out its test file (buffered writes) just before the first section: its writeback
    # is not another program's for sure.
    warning = _warning(_record(sluggish_section=0, device_write_iops=900.0), tmp_path)
    assert "laid out" in warning and "or another program" in warning, warning
    assert "the disk busy" not in warning and "iodepth" not in warning, warning


def test_short_memory_is_named_with_the_sections_own_values(tmp_path: Path) -> None:
    record = _record(sluggish_section=0)
    record.pressure.update(cause="psi_memory_full", cause_value=9.0, cause_unit="%", cause_threshold=7.0)
    for sample in record.samples:
        if sample["responsiveness"] == "sluggish":
            sample.update(io_probe_write_p99_ms=3.0, psi_memory_full_pct=9.0, responsiveness_cause="psi_memory_full")
    warning = _warning(record, tmp_path)
    assert "memory was short" in warning and "iodepth (now 8)" in warning and "block size (now 1m)" in warning, warning
    assert "32" not in warning, warning
