"""Each section's pressure comes from its own seconds, judged and worded as the run's."""

from __future__ import annotations

from iotui.core.host.section_pressure import apply_section_pressure, pressure_from_samples, verdict_contradiction
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


def test_a_chip_still_easing_off_into_a_section_does_not_lend_it_the_old_level() -> None:
    # The issue's desktop run: sluggish from a random write, then a sequential write section
    # whose own write + fdatasync p99 was 2.13 ms while the chip eased off.
    samples = [sample(1, 0, "sluggish", 300.0, "io_probe_write"), sample(2, 0, "sluggish", 280.0, "io_probe_write"),
               sample(3, 1, "sluggish", 2.13, "io_probe_write"), sample(4, 1, "sluggish", 1.9, "io_probe_write"),
               sample(5, 1, "ok", 2.0), sample(6, 1, "ok", 1.8)]
    record = RunRecord(
        run={"id": "r", "preset": "desktop", "status": "completed"}, host={}, target={},
        sections=[{"name": "4k-randwrite", "groupid": 0}, {"name": "seq1m-q1t1-write", "groupid": 1}],
        samples=samples, pressure=dict(RUN_PRESSURE),
    )
    apply_section_pressure(record)
    first, second = (section["pressure"] for section in record.sections)
    assert (first["responsiveness"], first["cause_value"]) == ("sluggish", 300.0)
    assert "responsiveness_note" not in first
    assert second["responsiveness"] == "ok" and "cause" not in second
    assert second["responsiveness_note"] == (
        "The live chip still read sluggish for 2 s of this section while it eased off (io write p99 had "
        "crossed earlier); no figure of this section crossed a sluggish threshold then, so the section is judged ok."
    )
    assert verdict_contradiction(first, RUN_PRESSURE) is None and verdict_contradiction(second, RUN_PRESSURE) is None


def test_a_second_counts_at_the_level_its_own_figure_crossed() -> None:
    # Unresponsive easing off with a write still past the sluggish threshold (108 ms) but under
    # the unresponsive one (1008 ms): the section is sluggish by that write, not unresponsive.
    samples = [sample(1, 0, "unresponsive", 480.0, "io_probe_write"), sample(2, 0, "unresponsive", 30.0, "io_probe_write")]
    table = pressure_from_samples(samples, RUN_PRESSURE)
    assert (table["responsiveness"], table["cause"], table["cause_value"], table["cause_threshold"]) == (
        "sluggish", "io_probe_write", 480.0, 108.0,
    )
    assert "unresponsive for 2 s" in table["responsiveness_note"]


def test_the_chip_level_still_bounds_a_section() -> None:
    # Two seconds past a sluggish threshold, never three in a row: the chip stayed OK, and so does the section.
    samples = [sample(1, 0, "ok", 300.0), sample(2, 0, "ok", 300.0), sample(3, 0, "ok", 5.0)]
    assert pressure_from_samples(samples, RUN_PRESSURE)["responsiveness"] == "ok"


def test_the_invariant_check_catches_the_issues_desktop_section() -> None:
    bad = {"responsiveness": "sluggish", "cause": "io_probe_write", "cause_value": 2.13,
           "cause_unit": "ms", "cause_threshold": 101.1}
    assert verdict_contradiction(bad) == "sluggish with io_probe_write 2.13 under its threshold 101.1"
    lowered = {**bad, "cause_value": 40.0, "cause_threshold": 16.0}
    assert verdict_contradiction(lowered, {"io_probe_write_baseline_p99_ms": 1.1}) is not None
    assert verdict_contradiction({"responsiveness": "sluggish", "cause": "psi_io_full", "cause_value": 62.9,
                                  "cause_threshold": 30.0}) is not None


def test_the_cli_prints_each_sections_verdict_and_its_note() -> None:
    import io

    from iotui.commands.run import print_summary

    samples = [sample(1, 0, "sluggish", 300.0, "io_probe_write"), sample(2, 0, "sluggish", 280.0, "io_probe_write"),
               sample(3, 1, "sluggish", 2.13, "io_probe_write"), sample(4, 1, "ok", 2.0)]
    record = RunRecord(
        run={"id": "r", "preset": "desktop", "status": "completed"}, host={}, target={},
        sections=[{"name": "a", "groupid": 0}, {"name": "b", "groupid": 1}], samples=samples, pressure=dict(RUN_PRESSURE),
    )
    apply_section_pressure(record)
    out = io.StringIO()
    print_summary(record, None, out)
    lines = [line.strip() for line in out.getvalue().splitlines()]
    second = lines[lines.index(next(line for line in lines if line.startswith("section 2/2"))):]
    assert second[1] == "responsiveness: ok"
    assert second[2].startswith("The live chip still read sluggish for 1 s of this section while it eased off")
