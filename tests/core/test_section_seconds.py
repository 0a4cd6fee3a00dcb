"""A second that spans two sections becomes one sample per section, each with only its own I/O."""

from __future__ import annotations

from iotui.core.fio.intervals import IntervalDeriver
from iotui.core.fio.section_seconds import SectionSecondsDeriver
from tests.conftest import fio_documents


def _runtime_ms(doc: dict, groupid: int, direction: str) -> int:
    return max(job[direction]["runtime"] for job in doc["jobs"] if job["groupid"] == groupid)


def _ios(doc: dict, groupid: int, direction: str) -> int:
    return sum(job[direction]["total_ios"] for job in doc["jobs"] if job["groupid"] == groupid)


def test_the_second_two_sections_share_is_split_by_group() -> None:
    docs = fio_documents("two-sections-json+.txt")  # group 0 reads, then group 1 writes
    deriver = SectionSecondsDeriver()
    per_doc = [deriver.feed(doc) for doc in docs]
    # The third document's interval holds the read section's end and the write section's start.
    shared = per_doc[2]
    assert [(s.groupid, set(s.directions)) for s in shared] == [(0, {"read"}), (1, {"write"})]
    before, after = docs[1], docs[2]
    interval_s = (after["timestamp_ms"] - before["timestamp_ms"]) / 1000
    read, write = shared
    assert read.t_s == write.t_s
    # Each group's part of the interval: its own runtime's growth, bounded to the interval.
    assert read.dt_s == min((_runtime_ms(after, 0, "read") - _runtime_ms(before, 0, "read")) / 1000, interval_s)
    assert write.dt_s == min(_runtime_ms(after, 1, "write") / 1000, interval_s)
    assert read.directions["read"].ios == _ios(after, 0, "read") - _ios(before, 0, "read")
    assert write.directions["write"].ios == _ios(after, 1, "write")
    assert read.dt_s + write.dt_s <= interval_s + 0.01
    # Every sample holds one group's directions only, and each group's samples add up to its totals.
    samples = [s for group in per_doc for s in group]
    assert all(set(s.directions) == ({"read"} if s.groupid == 0 else {"write"}) for s in samples)
    for groupid, direction in ((0, "read"), (1, "write")):
        mine = [s.directions[direction] for s in samples if s.groupid == groupid]
        assert sum(d.ios for d in mine) == _ios(docs[-1], groupid, direction)
        assert round(sum(d.iops * s.dt_s for d, s in zip(mine, [s for s in samples if s.groupid == groupid]))) == (
            _ios(docs[-1], groupid, direction)
        )


def test_a_second_of_one_section_is_the_whole_interval_as_before() -> None:
    docs = fio_documents("two-sections-json+.txt")
    deriver, whole = SectionSecondsDeriver(), IntervalDeriver()
    single = 0
    for doc in docs:
        samples = deriver.feed(doc)
        expected = whole.feed(doc)
        if len(samples) == 1:
            assert expected is not None
            assert (samples[0].t_s, samples[0].dt_s, samples[0].directions) == (
                expected.t_s, expected.dt_s, expected.directions
            )
            single += 1
    assert single >= 3


def test_the_runs_first_io_inside_a_status_interval_is_a_part_of_a_second() -> None:
    """fio laid out its files for most of the interval, then read for 300 ms: that second is a part
    (dt_s 0.3, its rate over the 0.3 s), not a whole second of low IOPS."""
    import copy

    first = fio_documents("two-sections-json+.txt")[0]
    laying_out = copy.deepcopy(first)
    for job in laying_out["jobs"]:
        for direction in ("read", "write", "trim"):
            job[direction].update(total_ios=0, io_bytes=0, runtime=0)
            job[direction]["clat_ns"] = {"N": 0, "min": 0, "max": 0, "mean": 0.0}
    reading = copy.deepcopy(first)
    reading["timestamp_ms"] = laying_out["timestamp_ms"] + 1000
    [job] = [job for job in reading["jobs"] if job["groupid"] == 0]
    assert _ios(reading, 0, "read") > 0
    job["read"]["runtime"] = 300
    deriver = SectionSecondsDeriver()
    assert all(not sample.directions for sample in deriver.feed(laying_out))  # no I/O yet
    [sample] = deriver.feed(reading)
    assert sample.groupid == 0 and sample.dt_s == 0.3
    assert sample.directions["read"].ios == _ios(reading, 0, "read")
    assert sample.directions["read"].iops == _ios(reading, 0, "read") / 0.3
