"""Another program's I/O: the attribution on recorded counters, the stretches, the record's marks and words."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from iotui.core.interference import (
    MIB, OUTSIDE_MIN_BYTES, ByteCounts, OutsideAttribution, OutsideSecond, affected, disturbed, settled_count, spans,
)
from iotui.core.host.processes import ProcessIo, ProcessIoScanner
from iotui.core.records.record import RunRecord
from iotui.core.records.steady import section_steady_state
from iotui.core.runs.outside_io import OutsideIoWatch, _Second, interference_sentence
from tests.waiting import wait_until


def run_seconds(
    device_per_s: list[tuple[float, float]], fio_per_s: list[tuple[float, float]], dirty_at_start: float = 0.0
) -> list[OutsideSecond]:
    """Feed per-second device and fio bytes (MiB read, MiB written) as the cumulative counters they add up to."""
    attribution = OutsideAttribution()
    device = fio = (0.0, 0.0)
    attribution.rebase(ByteCounts(*device), ByteCounts(*fio), dirty_at_start * MIB)
    seconds = []
    for (device_r, device_w), (fio_r, fio_w) in zip(device_per_s, fio_per_s):
        device = (device[0] + device_r * MIB, device[1] + device_w * MIB)
        fio = (fio[0] + fio_r * MIB, fio[1] + fio_w * MIB)
        second = attribution.feed(ByteCounts(*device), ByteCounts(*fio))
        assert second is not None
        seconds.append(second)
    return seconds


def suspects(seconds: list[OutsideSecond]) -> list[bool]:
    return [second.suspect for second in seconds]


def test_direct_io_with_a_little_journal_is_quiet() -> None:
    # fio's direct reads and writes; the device also writes 2 MiB of journal every few seconds.
    fio = [(100.0, 40.0)] * 10
    device = [(100.0, 40.0 + (2.0 if second % 5 == 0 else 0.0)) for second in range(10)]
    assert not any(suspects(run_seconds(device, fio)))


def test_another_programs_writes_beside_direct_reads_are_outside() -> None:
    # fio reads 130 MiB/s; from the 4th second dd writes 140 MiB/s for 5 seconds.
    fio = [(130.0, 0.0)] * 12
    device = [(130.0, 140.0 if 3 <= second < 8 else 0.0) for second in range(12)]
    seconds = run_seconds(device, fio)
    assert suspects(seconds) == [False] * 3 + [True] * 5 + [False] * 4
    assert [s.outside_write_bytes for s in seconds[3:8]] == [140.0 * MIB] * 5
    assert all(s.outside_read_bytes == 0 for s in seconds)


def test_writeback_of_fios_own_buffered_writes_is_never_outside() -> None:
    # Buffered writes: 200 MiB/s into the page cache for 6 s, the device writes nothing, then
    # writeback puts all 1200 MiB on the device over the next 4 s while fio has stopped writing.
    fio = [(0.0, 200.0)] * 6 + [(0.0, 0.0)] * 4
    device = [(0.0, 0.0)] * 6 + [(0.0, 300.0)] * 4
    assert not any(suspects(run_seconds(device, fio)))


def test_writes_beyond_fios_own_and_its_writeback_are_outside() -> None:
    # As above, but the device writes 600 MiB more than fio ever wrote: another program's.
    fio = [(0.0, 200.0)] * 6 + [(0.0, 0.0)] * 4
    device = [(0.0, 0.0)] * 6 + [(0.0, 450.0)] * 4
    seconds = run_seconds(device, fio)
    assert sum(s.outside_write_bytes for s in seconds) == pytest.approx(600.0 * MIB)
    assert affected(suspects(seconds))[-2:] == [True, True]


def test_the_layout_still_in_memory_when_fio_starts_is_not_outside() -> None:
    # 256 MiB of fio's laid-out file is dirty at the start; it reaches the device in the first 2 s.
    fio = [(20.0, 8.0)] * 5
    device = [(20.0, 136.0), (20.0, 136.0)] + [(20.0, 8.0)] * 3
    assert not any(suspects(run_seconds(device, fio, dirty_at_start=256.0)))
    # Without that allowance the same counters would read as another program's writes:
    assert any(suspects(run_seconds(device, fio)))


def test_reads_served_from_the_page_cache_do_not_hide_another_programs_reads_for_long() -> None:
    # Buffered reads from the cache: fio reads 500 MiB/s, the device almost nothing; then another
    # program reads 100 MiB/s. fio's cache hits give at most 2 s of credit, not the run's.
    fio = [(500.0, 0.0)] * 10
    device = [(1.0, 0.0)] * 5 + [(100.0, 0.0)] * 5
    assert not any(suspects(run_seconds(device, fio)))  # hidden: fio's reads of those seconds explain it
    fio_quiet_later = [(500.0, 0.0)] * 5 + [(0.0, 0.0)] * 5
    seconds = run_seconds(device, fio_quiet_later)
    assert suspects(seconds)[-3:] == [True, True, True]


def test_a_small_share_is_not_outside() -> None:
    # 40 MiB/s beside a device busy with 400 MiB/s of fio's: 9%, under the 25% share.
    fio = [(400.0, 0.0)] * 5
    device = [(400.0, 40.0)] * 5
    assert not any(suspects(run_seconds(device, fio)))
    # Under the floor: 10 MiB/s on an otherwise idle device.
    assert OUTSIDE_MIN_BYTES > 10 * MIB
    assert not any(suspects(run_seconds([(0.0, 10.0)] * 5, [(0.0, 0.0)] * 5)))


def test_a_lone_suspect_second_is_a_misaligned_edge_not_a_stretch() -> None:
    assert affected([False, True, False, True, True, False, True]) == [False, False, False, True, True, False, False]
    assert affected([True, True, True]) == [True, True, True]
    assert affected([]) == []


def test_a_mark_is_settled_once_no_later_second_can_change_it() -> None:
    # A trailing suspect second may begin a stretch: it waits for the next one; a stretch long
    # enough, or a quiet second, is final.
    assert settled_count([]) == 0
    assert settled_count([False, True]) == 1
    assert settled_count([False, True, True]) == 3
    assert settled_count([True, True, True, False]) == 4
    assert settled_count([True, False, True]) == 2


@pytest.mark.parametrize("pattern", ["..xx..x.", "x", "xx", ".x.x.x", "..xxx", "x..xx.x", "xxxxxxxx.x"])
def test_rows_settled_as_the_run_goes_are_the_records_rows(pattern: str) -> None:
    """Each row handed out when settled (as the stream writes it) equals that row in the finished record."""
    suspect = [mark == "x" for mark in pattern]
    rows: list[dict[str, object]] = []
    watch = watch_with([])
    handed_out: list[dict[str, object]] = []
    for index, is_suspect in enumerate(suspect):
        watch.seconds.append(_Second(range(index, index + 1), outside(140.0) if is_suspect else outside(0.0, 130.0)))
        rows.append(sample(index + 1, 100.0))
        settled = watch.settle(rows)
        handed_out += [dict(row) for row in rows[len(handed_out):settled]]
    record = record_with(rows, ["quick"])
    watch.apply(record)
    handed_out += [dict(row) for row in rows[len(handed_out):]]
    assert handed_out == rows
    assert [bool(row.get("interference")) for row in handed_out] == affected(suspect)


def test_spans_join_touching_seconds() -> None:
    assert spans([(11.0, 12.0), (12.0, 13.0), (13.0, 14.0), (20.0, 21.0), (21.0, 22.0)]) == [(11, 14), (20, 22)]


def sample(t_s: float, iops: float, section: int = 0) -> dict[str, object]:
    return {"t_s": t_s, "dt_s": 1.0, "read_iops": iops, "section": section}


def record_with(rows: list[dict[str, object]], names: list[str]) -> RunRecord:
    return RunRecord(
        run={"id": "x", "preset": "quick", "status": "completed"}, host={}, target={}, samples=rows,
        sections=[{"name": name, "groupid": index} for index, name in enumerate(names)],
    )


def watch_with(seconds: list[_Second]) -> OutsideIoWatch:
    watch = OutsideIoWatch([], Path("/nonexistent"), set(), None)
    watch.seconds = seconds
    return watch


def outside(write_mib: float, device_mib: float = 200.0) -> OutsideSecond:
    return OutsideSecond(0.0, write_mib * MIB, device_mib * MIB)


DD = ProcessIo(4123, "dd", 0, 140 * MIB)


def test_the_record_marks_the_seconds_names_the_process_and_keeps_the_table() -> None:
    rows = [sample(t, 34_800.0) for t in range(1, 13)]
    seconds = [_Second(range(i, i + 1), outside(140.0) if 4 <= i < 9 else outside(0.0, 130.0),
                       [DD] if 4 <= i < 9 else []) for i in range(12)]
    record = record_with(rows, ["quick"])
    watch_with(seconds).apply(record)
    assert [bool(row.get("interference")) for row in rows] == [False] * 4 + [True] * 5 + [False] * 3
    assert rows[4]["outside_write_bytes"] == 140 * MIB
    table = record.sections[0]["interference"]
    assert table["seconds"] == 5 and table["spans_s"] == [[4, 9]]
    assert table["outside_write_bytes"] == 5 * 140 * MIB and table["outside_read_bytes"] == 0
    assert table["processes"] == [{"name": "dd", "pid": 4123, "read_bytes": 0, "write_bytes": 5 * 140 * MIB}]
    [warning] = [w for w in record.warnings if w["code"] == "interference"]
    assert warning["message"].startswith("dd (pid 4123) wrote 700 MiB during seconds 4-9 of quick")
    # Written and read back: the schema knows the table and the row key.
    assert record.to_toml_dict()["sections"][0]["interference"]["processes"][0]["name"] == "dd"


def test_a_second_spanning_two_sections_gives_each_its_share() -> None:
    rows = [sample(1, 100.0, 0), sample(2, 100.0, 0), {**sample(3, 100.0, 0), "dt_s": 0.25},
            {**sample(3, 100.0, 1), "dt_s": 0.75}, sample(4, 100.0, 1)]
    seconds = [_Second(range(0, 1), outside(0.0, 100.0)), _Second(range(1, 2), outside(100.0), [DD]),
               _Second(range(2, 4), outside(100.0), [DD]), _Second(range(4, 5), outside(100.0), [DD])]
    record = record_with(rows, ["first", "second"])
    watch_with(seconds).apply(record)
    first, second = (section["interference"] for section in record.sections)
    assert rows[2]["outside_write_bytes"] == 25 * MIB and rows[3]["outside_write_bytes"] == 75 * MIB
    assert first["outside_write_bytes"] == 125 * MIB and second["outside_write_bytes"] == 175 * MIB
    # dd's 140 MiB a second, the shared second split 1/4 : 3/4.
    assert [w["message"].split(";")[0] for w in record.warnings] == [
        "dd (pid 4123) wrote 175 MiB during seconds 1-3 of first", "dd (pid 4123) wrote 245 MiB during seconds 2-4 of second"]


def test_a_lone_spike_and_a_quiet_run_leave_no_warning_and_no_marks() -> None:
    rows = [sample(t, 100.0) for t in range(1, 6)]
    for row in rows:
        row["interference"] = True  # the live view's marks: the record's are made again at the end
    seconds = [_Second(range(i, i + 1), outside(140.0) if i == 2 else outside(0.0)) for i in range(5)]
    record = record_with(rows, ["quick"])
    watch_with(seconds).apply(record)
    assert not any(disturbed(row) for row in rows)
    assert "interference" not in record.sections[0] and record.warnings == []


def test_without_a_named_process_the_sentence_says_why() -> None:
    text = interference_sentence("quick", {"spans_s": [[3, 5]], "outside_write_bytes": 300 * MIB, "processes": []})
    assert text.startswith("Another program wrote 300 MiB on the device during seconds 3-5 of quick")


def test_steady_state_leaves_disturbed_seconds_out() -> None:
    # 1000 IOPS, except 15 s in which dd's writes pulled fio between 150 and 1000 IOPS.
    # Every 10 s window of the 25 holds one of them; marked, 10 quiet seconds are left to judge.
    rows = [sample(t, 1000.0) for t in range(1, 26)]
    for index in range(2, 17):
        rows[index]["read_iops"] = 150.0 if index % 2 else 1000.0
    assert section_steady_state(rows).reached is False
    for row in rows[2:17]:
        row["interference"] = True
    assert section_steady_state(rows).reached is True


def test_real_proc_names_a_real_writer(tmp_path: Path) -> None:
    """A real dd started after the scanner: its bytes count from zero, under its name and pid."""
    scanner = ProcessIoScanner({-1}, None)
    writer = subprocess.Popen(["dd", "if=/dev/zero", f"of={tmp_path / 'other'}", "bs=1M", "count=4096",
                               "oflag=direct"], stderr=subprocess.DEVNULL)
    try:
        found = wait_until(lambda: [p for p in scanner.scan() if p.pid == writer.pid and p.write_bytes >= 8 * MIB],
                           what="the writer's 8 MiB in /proc/PID/io")
        assert found[0].name == "dd"
    finally:
        writer.kill()
        writer.wait()


def test_fio_and_iotuis_own_processes_are_left_out(tmp_path: Path) -> None:
    """A recorded /proc: fio (pid 20) and its job (21), iotui (10) and its probe (11) are never named."""
    proc = tmp_path / "proc"
    table = {10: (1, "python3"), 11: (10, "python3"), 20: (10, "fio"), 21: (20, "fio"), 30: (1, "dd")}
    for pid, (ppid, name) in table.items():
        (proc / str(pid)).mkdir(parents=True)
        fields = ["S", str(ppid)] + ["0"] * 17 + ["100"]  # state, ppid, ..., starttime (field 22)
        (proc / str(pid) / "stat").write_text(f"{pid} ({name}) {' '.join(fields)}\n")
        (proc / str(pid) / "io").write_text("rchar: 0\nread_bytes: 0\nwrite_bytes: 0\n")
    (proc / "uptime").write_text("0.5 1.0\n")  # every process started after the scanner's start
    scanner = ProcessIoScanner({10, 11}, 20, proc)
    for pid in table:
        (proc / str(pid) / "io").write_text(f"rchar: 0\nread_bytes: {MIB}\nwrite_bytes: {pid * MIB}\n")
    assert [(p.name, p.pid, p.write_bytes) for p in scanner.scan()] == [("dd", 30, 30 * MIB)]
    # The next look counts from this one.
    (proc / "30" / "io").write_text(f"read_bytes: {MIB}\nwrite_bytes: {40 * MIB}\n")
    assert [(p.pid, p.read_bytes, p.write_bytes) for p in scanner.scan()] == [(30, 0, 10 * MIB)]


def test_a_process_busy_on_another_disk_does_not_outrank_the_writer() -> None:
    # /proc/PID/io does not say which device: a reader of 1.5 GiB elsewhere beside dd writing here.
    reader = ProcessIo(1457, "python", 1536 * MIB, 0)
    rows = [sample(t, 100.0) for t in range(1, 5)]
    seconds = [_Second(range(i, i + 1), outside(140.0), [DD, reader]) for i in range(4)]
    record = record_with(rows, ["quick"])
    watch_with(seconds).apply(record)
    assert [p["name"] for p in record.sections[0]["interference"]["processes"]] == ["dd"]
    assert record.warnings[0]["message"].startswith("dd (pid 4123) wrote 560 MiB during seconds 0-4 of quick")


def test_a_childs_bytes_added_to_its_parent_when_it_ends_stay_the_childs(tmp_path: Path) -> None:
    """The kernel adds an ended child's counts to its parent's /proc/PID/io: the parent did not do
    that I/O. What the child moved after the last look reaches the parent only then, and is the child's."""
    proc = tmp_path / "proc"
    (proc / "uptime").parent.mkdir(parents=True)
    (proc / "uptime").write_text("0.5 1.0\n")

    def process(pid: int, ppid: int, name: str, write_mib: int) -> None:
        (proc / str(pid)).mkdir(exist_ok=True)
        (proc / str(pid) / "stat").write_text(f"{pid} ({name}) S {ppid} " + "0 " * 17 + "100\n")
        (proc / str(pid) / "io").write_text(f"read_bytes: 0\nwrite_bytes: {write_mib * MIB}\n")

    def end(pid: int) -> None:
        for name in ("stat", "io"):
            (proc / str(pid) / name).unlink()
        (proc / str(pid)).rmdir()

    scanner = ProcessIoScanner(set(), None, proc)
    process(40, 1, "bash", 0)
    process(41, 40, "dd", 100)
    process(42, 40, "sync", 1)
    assert [(p.name, p.write_bytes) for p in scanner.scan()] == [("dd", 100 * MIB), ("sync", MIB)]
    end(41)
    end(42)
    process(40, 1, "bash", 300 + 1)  # dd ended at 300 MiB (200 of them after the last look), sync at 1
    assert [(p.pid, p.name, p.write_bytes) for p in scanner.scan()] == [(41, "dd", 200 * MIB)]
    process(40, 1, "bash", 301 + 3)  # the shell's own, later: its own again
    assert [(p.pid, p.name, p.write_bytes) for p in scanner.scan()] == [(40, "bash", 3 * MIB)]


def test_compare_leaves_disturbed_seconds_out() -> None:
    from iotui.core.compare.samples import steady_samples

    rows = [sample(t, 1000.0) for t in range(1, 41)]
    for row in rows[20:25]:
        row["interference"] = True
    kept = [s["t_s"] for s in steady_samples(record_with(rows, ["quick"]))]
    assert kept and not set(kept) & {21, 22, 23, 24, 25}
    assert 26 in kept and 20 in kept


def test_compare_says_which_run_shared_the_device() -> None:
    from iotui.core.compare.compare import compare_records
    from tests.core.test_compare import make_record

    quiet = make_record("a", [10_000.0] * 30)
    shared = make_record("b", [10_000.0] * 20 + [1_600.0] * 6 + [10_000.0] * 4)
    for sample in shared.samples[20:26]:
        sample["interference"] = True
    notes = compare_records([quiet, shared]).notes
    assert [n for n in notes if "another program" in n] == [
        f"Run {label} shared the device with another program's I/O for 6 s (its interference warning names it): "
        "those seconds are left out of its figures here." for label in compare_records([quiet, shared]).labels[1:]
    ]
