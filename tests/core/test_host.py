"""Host sampling from recorded /proc snapshots, and backing-device discovery."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from dataclasses import fields
from pathlib import Path

import psutil
import pytest

from tests.waiting import wait_until
from iotui.core.host.block_devices import backing_devices, block_devices_for
from iotui.core.host.counters import HostSample, HostSampler
from iotui.core.host.processes import read_process_tree_cpu_s

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "proc"


class FakeProc:
    """A /proc directory whose contents a test swaps between recorded snapshots."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def load(self, snapshot: str) -> None:
        if self.root.exists():
            shutil.rmtree(self.root)
        shutil.copytree(FIXTURES / snapshot, self.root)


@pytest.fixture
def fake_proc(tmp_path: Path) -> FakeProc:
    return FakeProc(tmp_path / "proc")


def two_samples(fake_proc: FakeProc, devices: list[str], tmp_path: Path) -> tuple[HostSample, HostSample]:
    sampler = HostSampler(devices, proc_root=fake_proc.root, sys_root=tmp_path / "no-sys")
    fake_proc.load("t0")
    first = sampler.sample(now_s=100.0)
    fake_proc.load("t1")
    second = sampler.sample(now_s=102.0)
    return first, second


def test_first_sample_primes_rates_but_reports_gauges(fake_proc: FakeProc, tmp_path: Path) -> None:
    first, _ = two_samples(fake_proc, ["nvme0n1"], tmp_path)
    assert first.procs_blocked == 1.0
    rate_fields = [f.name for f in fields(HostSample) if f.name != "procs_blocked"]
    assert all(getattr(first, name) is None for name in rate_fields)


def test_cpu_percentages_are_of_all_cpus_from_jiffy_deltas(fake_proc: FakeProc, tmp_path: Path) -> None:
    _, second = two_samples(fake_proc, ["nvme0n1"], tmp_path)
    # 400 jiffies in the interval; user includes nice (120 + 30), guest is not added again.
    assert second.cpu_user_pct == pytest.approx(37.5)
    assert second.cpu_system_pct == pytest.approx(15.0)
    assert second.cpu_iowait_pct == pytest.approx(10.0)
    assert second.cpu_irq_pct == pytest.approx(2.5)
    assert second.cpu_softirq_pct == pytest.approx(7.5)
    assert second.cpu_steal_pct == pytest.approx(2.5)
    # Idle + iowait are 140 of 400 jiffies: 65% busy of 2 CPUs.
    assert second.busy_cores == pytest.approx(1.3)


def test_switches_interrupts_and_blocked(fake_proc: FakeProc, tmp_path: Path) -> None:
    _, second = two_samples(fake_proc, ["nvme0n1"], tmp_path)
    assert second.ctx_switches_per_s == pytest.approx(15000.0)
    assert second.interrupts_per_s == pytest.approx(5000.0)
    assert second.procs_blocked == 3.0


def test_device_rates_use_512_byte_sectors(fake_proc: FakeProc, tmp_path: Path) -> None:
    _, second = two_samples(fake_proc, ["nvme0n1"], tmp_path)
    assert second.device_read_iops == pytest.approx(1000.0)
    assert second.device_write_iops == pytest.approx(300.0)
    assert second.device_read_bytes_per_s == pytest.approx(2000 * 8 * 512 / 2)
    assert second.device_write_bytes_per_s == pytest.approx(600 * 256 * 512 / 2)


def test_several_devices_are_summed(fake_proc: FakeProc, tmp_path: Path) -> None:
    _, second = two_samples(fake_proc, ["nvme0n1", "sda"], tmp_path)
    assert second.device_read_iops == pytest.approx(1050.0)
    assert second.device_write_iops == pytest.approx(300.0)
    assert second.device_read_bytes_per_s == pytest.approx(2100 * 8 * 512 / 2)


def test_unknown_or_no_devices_give_no_device_figures(fake_proc: FakeProc, tmp_path: Path) -> None:
    for devices in ([], ["sdz"]):
        _, second = two_samples(fake_proc, devices, tmp_path)
        assert second.device_read_iops is None
        assert second.device_write_bytes_per_s is None
        assert second.cpu_user_pct is not None


def test_pressure_totals_become_percent_of_interval(fake_proc: FakeProc, tmp_path: Path) -> None:
    _, second = two_samples(fake_proc, ["nvme0n1"], tmp_path)
    assert second.psi_cpu_some_pct == pytest.approx(15.0)
    assert second.psi_cpu_full_pct == pytest.approx(0.0)
    assert second.psi_io_some_pct == pytest.approx(25.0)
    assert second.psi_io_full_pct == pytest.approx(10.0)
    assert second.psi_memory_some_pct == pytest.approx(7.0)
    assert second.psi_memory_full_pct == pytest.approx(1.0)


def test_missing_cpu_full_line_is_absent_not_zero(fake_proc: FakeProc, tmp_path: Path) -> None:
    sampler = HostSampler([], proc_root=fake_proc.root, sys_root=tmp_path / "no-sys")
    for now_s, snapshot in ((0.0, "t0"), (2.0, "t1")):
        fake_proc.load(snapshot)
        # Kernels before 5.13 have no "full" line for cpu.
        cpu_file = fake_proc.root / "pressure" / "cpu"
        cpu_file.write_text(cpu_file.read_text().splitlines()[0] + "\n")
        sample = sampler.sample(now_s=now_s)
    assert sample.psi_cpu_full_pct is None
    assert sample.psi_cpu_some_pct == pytest.approx(15.0)


def test_no_pressure_directory_means_every_psi_figure_absent(fake_proc: FakeProc, tmp_path: Path) -> None:
    sampler = HostSampler([], proc_root=fake_proc.root, sys_root=tmp_path / "no-sys")
    for now_s, snapshot in ((0.0, "t0"), (2.0, "t1")):
        fake_proc.load(snapshot)
        shutil.rmtree(fake_proc.root / "pressure")
        sample = sampler.sample(now_s=now_s)
    psi = {f.name: getattr(sample, f.name) for f in fields(HostSample) if f.name.startswith("psi_")}
    assert len(psi) == 6 and all(value is None for value in psi.values())
    assert sample.cpu_system_pct == pytest.approx(15.0)


def test_without_proc_every_figure_is_absent(tmp_path: Path) -> None:
    sampler = HostSampler(["sda"], proc_root=tmp_path / "nothing-here", sys_root=tmp_path / "no-sys")
    sampler.sample(now_s=0.0)
    sample = sampler.sample(now_s=1.0)
    assert sample == HostSample()
    assert sample.as_dict() == {}


def test_counters_going_backwards_give_none_then_recover(fake_proc: FakeProc, tmp_path: Path) -> None:
    sampler = HostSampler(["nvme0n1"], proc_root=fake_proc.root, sys_root=tmp_path / "no-sys")
    fake_proc.load("t1")
    sampler.sample(now_s=0.0)
    fake_proc.load("t0")  # every counter lower than before
    backwards = sampler.sample(now_s=1.0)
    assert backwards.ctx_switches_per_s is None
    assert backwards.device_read_iops is None
    assert backwards.psi_io_some_pct is None
    fake_proc.load("t1")
    recovered = sampler.sample(now_s=3.0)
    assert recovered.ctx_switches_per_s == pytest.approx(15000.0)
    assert recovered.device_read_iops == pytest.approx(1000.0)


def test_as_dict_leaves_absent_figures_out(fake_proc: FakeProc, tmp_path: Path) -> None:
    _, second = two_samples(fake_proc, [], tmp_path)
    figures = second.as_dict()
    assert figures["ctx_switches_per_s"] == pytest.approx(15000.0)
    assert "device_read_iops" not in figures
    assert "fio_cpu_cores" not in figures


def test_stacked_device_is_not_counted_twice(fake_proc: FakeProc, tmp_path: Path) -> None:
    # nvme0n1p1 sits "under" nvme0n1 in this fake sysfs, as sda2 would under dm-0.
    slaves = tmp_path / "sys" / "class" / "block" / "nvme0n1" / "slaves"
    slaves.mkdir(parents=True)
    (slaves / "nvme0n1p1").mkdir()
    sampler = HostSampler(["nvme0n1", "nvme0n1p1"], proc_root=fake_proc.root, sys_root=tmp_path / "sys")
    assert sampler.counted_devices == ["nvme0n1p1"]
    fake_proc.load("t0")
    sampler.sample(now_s=0.0)
    fake_proc.load("t1")
    sample = sampler.sample(now_s=2.0)
    assert sample.device_read_iops == pytest.approx(1000.0)
    assert sample.device_write_iops == pytest.approx(300.0)


# --- fio's process tree ---------------------------------------------------------


def test_fio_cpu_cores_counts_a_busy_process_tree(tmp_path: Path) -> None:
    # A parent that sleeps with one child spinning: the tree uses about one core.
    spin = "import time\nend = time.monotonic() + 30\nwhile time.monotonic() < end: pass\n"
    parent_code = (
        "import subprocess, sys\n"
        f"child = subprocess.Popen([sys.executable, '-c', {spin!r}])\n"
        "sys.stdin.read()\nchild.kill()\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", parent_code], stdin=subprocess.PIPE)
    try:
        wait_until(lambda: psutil.Process(parent.pid).children(), what="the spinning child to start")
        tree = [psutil.Process(parent.pid), *psutil.Process(parent.pid).children(recursive=True)]

        def tree_cpu_s() -> float:
            return sum(times.user + times.system for times in (process.cpu_times() for process in tree))

        # The real /proc where there is one (the fast path); a missing one means psutil.
        for proc_root in (Path("/proc"), tmp_path / "no-proc"):
            sampler = HostSampler([], fio_pid=parent.pid, proc_root=proc_root)
            start_s, start_cpu_s = time.monotonic(), tree_cpu_s()
            assert sampler.sample(now_s=start_s).fio_cpu_cores is None
            # However busy the machine, the spinning child gets some CPU: wait for 0.3 s of it.
            wait_until(lambda since=start_cpu_s: tree_cpu_s() - since >= 0.3, what="the child to spin for 0.3 CPU seconds")
            end_s = time.monotonic()
            cores = sampler.sample(now_s=end_s).fio_cpu_cores
            # The same tree's CPU time measured by psutil over the same interval (the sleeping parent adds ~0).
            expected = (tree_cpu_s() - start_cpu_s) / (end_s - start_s)
            assert cores is not None
            assert cores > 0.1, proc_root  # the child's CPU counts, not only the parent's
            assert cores == pytest.approx(expected, abs=0.15), proc_root
    finally:
        parent.communicate(b"", timeout=10)


def write_proc_process(proc_root: Path, pid: int, name: str, ticks: tuple[int, int, int, int],
                       children_by_task: dict[int, str]) -> None:
    """/proc/PID/stat (utime stime cutime cstime) and task/TID/children for a fake process."""
    utime, stime, cutime, cstime = ticks
    process_dir = proc_root / str(pid)
    process_dir.mkdir(parents=True)
    (process_dir / "stat").write_text(
        f"{pid} ({name}) S 1 {pid} {pid} 0 -1 4194560 10 0 0 0 {utime} {stime} {cutime} {cstime} 20 0 1 0\n"
    )
    for tid, children in children_by_task.items():
        (process_dir / "task" / str(tid)).mkdir(parents=True)
        (process_dir / "task" / str(tid) / "children").write_text(children)


def test_process_tree_cpu_walks_children_of_every_thread(tmp_path: Path) -> None:
    proc_root = tmp_path / "proc"
    (proc_root / "self").mkdir(parents=True)
    # fio (a name with ") (" to trip naive parsing) with a second thread that forked too.
    write_proc_process(proc_root, 100, "fi) (o", (50, 30, 7, 3), {100: "101 102 ", 105: "103"})
    write_proc_process(proc_root, 101, "fio", (200, 100, 0, 0), {101: "104"})
    write_proc_process(proc_root, 103, "fio", (5, 5, 0, 0), {103: ""})
    write_proc_process(proc_root, 104, "fio", (10, 10, 0, 0), {104: ""})
    # 102 is listed but already gone: skipped, not an error.
    ticks_per_s = os.sysconf("SC_CLK_TCK")
    assert read_process_tree_cpu_s(100, proc_root) == pytest.approx((80 + 10 + 300 + 10 + 20) / ticks_per_s)
    assert read_process_tree_cpu_s(101, proc_root) == pytest.approx(320 / ticks_per_s)
    assert read_process_tree_cpu_s(999, proc_root) is None


def test_fio_cpu_of_a_vanished_process_is_absent(tmp_path: Path) -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: the pid no longer names a process
    assert read_process_tree_cpu_s(gone.pid) is None
    sampler = HostSampler([], fio_pid=gone.pid, proc_root=tmp_path / "no-proc")
    sampler.sample(now_s=0.0)
    assert sampler.sample(now_s=1.0).fio_cpu_cores is None


def test_set_fio_pid_starts_a_fresh_baseline(tmp_path: Path) -> None:
    sampler = HostSampler([], fio_pid=os.getpid(), proc_root=tmp_path / "no-proc")
    sampler.sample(now_s=0.0)
    sampler.set_fio_pid(os.getpid())
    # Fresh baseline: the first reading after the switch has nothing to compare with.
    assert sampler.sample(now_s=1.0).fio_cpu_cores is None
    assert sampler.sample(now_s=2.0).fio_cpu_cores is not None


# --- backing devices --------------------------------------------------------------


def fake_block_tree(tmp_path: Path, diskstats_names: list[str]) -> tuple[Path, Path]:
    """A sysfs with dm-0 (253:0) on md0 on sda1 + sdb1, and a diskstats listing the names."""
    sys_root, proc_root = tmp_path / "sys", tmp_path / "proc"
    devices = sys_root / "devices" / "virtual" / "block"
    for name in ("dm-0", "md0", "sda1", "sdb1", "sdc2"):
        (devices / name).mkdir(parents=True)
        (sys_root / "class" / "block" / name).mkdir(parents=True)
    for holder, lower in (("dm-0", "md0"), ("md0", "sda1"), ("md0", "sdb1")):
        slaves = sys_root / "class" / "block" / holder / "slaves"
        slaves.mkdir(exist_ok=True)
        (slaves / lower).symlink_to(devices / lower)
    (sys_root / "dev" / "block").mkdir(parents=True)
    (sys_root / "dev" / "block" / "253:0").symlink_to(devices / "dm-0")
    (sys_root / "dev" / "block" / "8:34").symlink_to(devices / "sdc2")
    proc_root.mkdir()
    (proc_root / "diskstats").write_text(
        "".join(f"   8 0 {name} 0 0 0 0 0 0 0 0 0 0 0\n" for name in diskstats_names)
    )
    return proc_root, sys_root


def test_a_partition_is_its_own_backing_device(tmp_path: Path) -> None:
    proc_root, sys_root = fake_block_tree(tmp_path, ["sdc", "sdc2", "dm-0"])
    assert block_devices_for(8, 34, proc_root=proc_root, sys_root=sys_root) == ["sdc2"]


def test_dm_on_md_is_followed_down_to_the_disks(tmp_path: Path) -> None:
    names = ["dm-0", "md0", "sda1", "sdb1"]
    proc_root, sys_root = fake_block_tree(tmp_path, names)
    assert block_devices_for(253, 0, proc_root=proc_root, sys_root=sys_root) == names
    # And the sampler counts only the bottom of that stack.
    sampler = HostSampler(names, proc_root=proc_root, sys_root=sys_root)
    assert sampler.counted_devices == ["sda1", "sdb1"]


def test_only_names_listed_in_diskstats_are_returned(tmp_path: Path) -> None:
    proc_root, sys_root = fake_block_tree(tmp_path, ["sda1"])
    assert block_devices_for(253, 0, proc_root=proc_root, sys_root=sys_root) == ["sda1"]
    assert block_devices_for(9, 9, proc_root=proc_root, sys_root=sys_root) == []


def test_backing_devices_never_raises(tmp_path: Path) -> None:
    assert backing_devices(tmp_path / "does" / "not" / "exist", tmp_path / "p", tmp_path / "s") == []
    assert backing_devices(tmp_path, proc_root=tmp_path / "p", sys_root=tmp_path / "s") == []


@pytest.mark.skipif(not Path("/proc/self/mountinfo").exists(), reason="needs Linux /proc")
def test_backing_devices_of_a_real_path_are_in_diskstats() -> None:
    devices = backing_devices(Path.cwd())
    listed = {line.split()[2] for line in Path("/proc/diskstats").read_text().splitlines()}
    assert isinstance(devices, list)
    assert set(devices) <= listed
    assert backing_devices(Path("/proc")) == []  # a virtual filesystem has no device


def test_kernel_files_are_read_whole_or_not_at_all(tmp_path: Path) -> None:
    from iotui.core.host.proc_files import read_text

    long_text = "".join(f"line {number}\n" for number in range(20_000))  # beyond one 64 KiB read
    (tmp_path / "long").write_text(long_text)
    (tmp_path / "binary").write_bytes(b"\xff\xfe\x00")
    assert read_text(tmp_path / "long") == long_text
    assert read_text(str(tmp_path / "long")) == long_text
    assert read_text(tmp_path / "missing") is None
    assert read_text(tmp_path) is None  # a directory
    assert read_text(tmp_path / "binary") is None
    assert read_text("/proc/self/stat").split()[0] == str(os.getpid())
