"""Each section's steady state, cliff and latency-target result, added when a record is built."""

from __future__ import annotations

from iotui.core.records.findings import annotate_sections, cliff_sentence, latency_target_sentence, steady_sentence

MIB = 1 << 20


def _samples(section: int, values: list[float], key: str, first_t: float = 1.0) -> list[dict]:
    return [{"t_s": first_t + i, "dt_s": 1.0, "section": section, key: v} for i, v in enumerate(values)]


def test_sections_get_steady_and_sustained_writes_get_a_cliff() -> None:
    sections = [
        {"name": "read", "jobs": ["read"], "options": {"rw": "read"}, "duration_s": 12.0},
        {"name": "fill", "jobs": ["fill"], "options": {"rw": "write"}, "duration_s": 40.0},
        {"name": "short-write", "jobs": ["short-write"], "options": {"rw": "write"}, "duration_s": 3.0},
    ]
    samples = {
        0: _samples(0, [1000.0] * 12, "read_iops"),
        1: [
            {**s, "write_iops": s["write_bw_bytes"] / MIB}
            for s in _samples(1, [1000.0 * MIB] * 25 + [300.0 * MIB] * 15, "write_bw_bytes", first_t=13.0)
        ],
        2: _samples(2, [10.0, 10.0, 10.0], "write_iops", first_t=53.0),
    }
    annotate_sections(sections, lambda index: samples[index], None)
    assert sections[0]["steady"] == {"reached": True, "after_s": 10.0, "method": "window"}
    assert "cliff" not in sections[0]  # reads have no cache cliff
    assert sections[1]["cliff"] == {
        "found": True, "at_s": 25.0, "at_bytes": 25 * 1000 * MIB, "bw_before_bytes": 1000 * MIB, "bw_after_bytes": 300 * MIB,
    }
    assert sections[1]["steady"]["reached"] is True  # the first 25 s were flat
    # 3 s: too short to judge, said as such (never "not steady").
    assert sections[2]["steady"] == {"reached": False, "method": "window", "judged_s": 3, "window_s": 10}
    assert steady_sentence(sections[2]["steady"]) == "too short to judge: 3 s of the 10 s window needed"
    assert "cliff" not in sections[2]  # not sustained
    assert cliff_sentence(sections[1]["cliff"]) == "after 24.4 GiB (25 s): 1,000 MiB/s → 300 MiB/s"


def test_fio_ss_and_latency_target_come_from_the_sections_jobs_in_the_report() -> None:
    sections = [
        {"name": "fill", "jobs": ["fill"], "options": {"rw": "write"}},
        {"name": "steady", "jobs": ["steady"], "options": {"rw": "randwrite"}},
        {"name": "lt", "jobs": ["lt"], "options": {"rw": "randread"}, "read": {"iops": 2651.7}},
    ]
    report = {"jobs": [
        {"jobname": "fill"},
        {"jobname": "steady", "job_runtime": 17250,
         "steadystate": {"ss": "iops:10.000000%", "duration": 10, "attained": 1, "criterion": "3.1%"}},
        {"jobname": "lt", "latency_depth": 4, "latency_target": 1000000, "latency_percentile": 99.0,
         "latency_window": 1000000},
    ]}
    annotate_sections(sections, lambda index: [], report)
    assert "steady" not in sections[0]  # no samples, no fio verdict: nothing judged
    assert sections[1]["steady"] == {"reached": True, "after_s": 17.25, "method": "fio-ss"}
    assert sections[2]["latency_target"] == {"target_ns": 1000000, "depth": 4, "percentile": 99.0, "window_s": 1.0}
    assert latency_target_sentence(sections[2]) == (
        "fio settled on queue depth 4 and held 2.7k read IOPS with p99 within 1.00ms over 1 s windows"
    )


def test_steady_sentences() -> None:
    assert steady_sentence({"reached": True, "after_s": 8.0, "method": "window"}) == "steady after 8 s"
    assert steady_sentence({"reached": False, "method": "window"}) == "not steady"
    both = {"reached": True, "after_s": 6.0, "method": "window", "fio_ss": {"reached": False, "criterion": "iops:5%"}}
    assert steady_sentence(both) == "steady after 6 s; fio iops:5%: not steady"
    assert steady_sentence(None) is None


def test_a_one_section_runs_global_rw_makes_it_a_sustained_write() -> None:
    import datetime as dt

    from iotui.core.records.findings import annotate_record
    from iotui.core.records.record import RunRecord

    bw = [1000.0 * MIB] * 25 + [300.0 * MIB] * 15
    record = RunRecord(
        run={"id": "c" * 16, "preset": "sustained-write", "status": "completed",
             "started": dt.datetime(2026, 11, 21, 12, tzinfo=dt.timezone.utc), "duration_s": 40.0,
             "tool": "fio", "tool_version": "fio-3.33", "argv": ["fio"], "report": ""},
        host={"hostname": "h", "system": "Linux", "kernel": "6", "cpu_model": "c", "cpu_count": 4, "mem_total_bytes": 1},
        target={"path": "/data", "filesystem": "ext4", "device": "sda", "mount_options": ""},
        options={"rw": "write", "bs": "1m"},
        summary={"write": {"iops": 700.0, "bw_bytes": 700.0 * MIB, "io_bytes": 1, "total_ios": 1}},
        samples=[{"t_s": i + 1.0, "dt_s": 1.0, "write_iops": v / MIB, "write_bw_bytes": v} for i, v in enumerate(bw)],
    )
    annotate_record(record, None)
    assert record.sections[0]["cliff"]["at_s"] == 25.0
    assert "options" not in record.sections[0] or "rw" not in record.sections[0].get("options", {})
