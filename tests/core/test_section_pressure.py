"""Each section's pressure comes from its own seconds, judged and worded as the run's."""

from __future__ import annotations

from iotui.core.host.section_pressure import apply_section_pressure, pressure_from_samples
from iotui.core.host.verdict import verdict_text
from iotui.core.records.record import RunRecord

RUN_PRESSURE = {
    "responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 480.0, "cause_unit": "ms",
    "cause_threshold": 108.0, "io_probe_write_baseline_p99_ms": 8.0, "probe_baseline_p99_ms": 1.0,
}


def sample(t: float, section: int, level: str, write_ms: float, cause: str | None = None, wake_ms: float = 2.0) -> dict:
    row = {"t_s": t, "dt_s": 1.0, "section": section, "responsiveness": level,
           "io_probe_p99_ms": 0.5, "io_probe_write_p99_ms": write_ms, "probe_p99_ms": wake_ms}
    if cause:
        row["responsiveness_cause"] = cause
    return row


def two_section_record() -> RunRecord:
    samples = [sample(1, 0, "ok", 9.0), sample(2, 0, "ok", 12.0), sample(3, 0, "ok", 10.0),
               sample(4, 1, "ok", 300.0), sample(5, 1, "ok", 420.0),
               sample(6, 1, "sluggish", 480.0, "io_probe_write"), sample(7, 1, "sluggish", 350.0, "io_probe_write"),
               sample(8, 1, "sluggish", 30.0, "wakeup", wake_ms=40.0)]
    return RunRecord(
        run={"id": "r", "preset": "two", "status": "completed"}, host={}, target={},
        sections=[{"name": "4k-read", "jobs": ["4k-read"], "groupid": 0},
                  {"name": "1m-write", "jobs": ["1m-write"], "groupid": 1}],
        samples=samples, pressure=dict(RUN_PRESSURE),
    )


def test_each_section_gets_its_own_level_and_cause() -> None:
    record = two_section_record()
    apply_section_pressure(record)
    first, second = (section["pressure"] for section in record.sections)
    assert first == {"responsiveness": "ok", "io_probe_p99_ms_max": 0.5, "io_probe_write_p99_ms_max": 12.0,
                     "probe_p99_ms_max": 2.0}
    assert second["responsiveness"] == "sluggish"
    # The cause that held the level for most of the section's seconds, its peak, and its threshold.
    assert (second["cause"], second["cause_value"], second["cause_unit"], second["cause_threshold"]) == (
        "io_probe_write", 480.0, "ms", 108.0,
    )
    assert verdict_text(second) == verdict_text(record.pressure) == "sluggish · io write p99 480 ms > 108 ms"


def test_no_samples_no_pressure() -> None:
    assert pressure_from_samples([], RUN_PRESSURE) == {}
