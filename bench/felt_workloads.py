"""bench_felt's workloads: each an `iotui run quick` with its options, at least 60 s of load."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

GIB = 1 << 30
FREE_MARGIN_BYTES = 2 * GIB
OWN_MACHINE_ENV = "IOTUI_BENCH_OWN_MACHINE"  # set to 1 for workloads that press on every program


class Refused(Exception):
    """A workload this machine cannot run as asked; str() is the sentence saying why and what to do."""


@dataclass(frozen=True)
class Workload:
    what: str
    sets: tuple[str, ...]
    size: str = "1G"


def _direct(rw: str, bs: str, iodepth: int, numjobs: int) -> tuple[str, ...]:
    return (f"rw={rw}", f"bs={bs}", f"iodepth={iodepth}", f"numjobs={numjobs}", "ioengine=libaio", "direct=1",
            "time_based=1", "rwmixread=100" if "read" in rw else "rwmixread=0")


WORKLOADS = {
    "idle": Workload("one 4 KiB direct read a second (nothing to feel)",
                     ("rw=randread", "bs=4k", "iodepth=1", "numjobs=1", "direct=1", "rate_iops=1", "time_based=1",
                      "rwmixread=100"), "64M"),
    "randread-qd1": Workload("random 4 KiB direct reads, QD1, 1 job", _direct("randread", "4k", 1, 1)),
    "randread-qd32x4": Workload("random 4 KiB direct reads, QD32 x 4 jobs", _direct("randread", "4k", 32, 4)),
    "randread-qd128x4": Workload("random 4 KiB direct reads, QD128 x 4 jobs", _direct("randread", "4k", 128, 4)),
    "seqwrite-direct": Workload("sequential 1 MiB direct writes, QD8", _direct("write", "1m", 8, 1)),
    "randwrite-qd32x4": Workload("random 4 KiB direct writes, QD32 x 4 jobs", _direct("randwrite", "4k", 32, 4)),
    "randwrite-qd128x4": Workload("random 4 KiB direct writes, QD128 x 4 jobs", _direct("randwrite", "4k", 128, 4)),
    "buffered-flood": Workload("buffered 1 MiB writes, 2 jobs, twice the dirty limit (writeback throttles)",
                               ("rw=write", "bs=1m", "iodepth=1", "numjobs=2", "ioengine=psync", "direct=0",
                                "time_based=1", "rwmixread=0"), "(from vm.dirty_*)"),
    "cpu-hogs": Workload("CPU hogs: fio's cpuio at 100%, three per core",
                         ("ioengine=cpuio", "cpuload=100", "numjobs=(3 x cores)", "time_based=1"), "1M"),
    "memory-thrash": Workload("buffered random reads of a 2 GiB file while fio locks all but 1 GiB of memory "
                              "(lockmem): the page cache thrashes",
                              ("rw=randread", "bs=4k", "iodepth=1", "numjobs=1", "ioengine=psync", "direct=0",
                               "time_based=1", "rwmixread=100", "lockmem=(MemAvailable - 1 GiB)"), "2G"),
}


def _meminfo_bytes(key: str) -> int:
    with open("/proc/meminfo", encoding="ascii") as meminfo:
        for line in meminfo:
            if line.startswith(f"{key}:"):
                return int(line.split()[1]) * 1024
    raise Refused(f"/proc/meminfo has no {key}")


def _vm(name: str) -> int:
    return int(Path(f"/proc/sys/vm/{name}").read_text().split()[0])


def dirty_limit_bytes() -> int:
    """Where the kernel starts throttling writers: vm.dirty_bytes, else vm.dirty_ratio of available memory."""
    dirty_bytes = _vm("dirty_bytes")
    return dirty_bytes if dirty_bytes else _vm("dirty_ratio") * _meminfo_bytes("MemAvailable") // 100


def workload_sets(name: str, target: Path) -> tuple[list[str], str]:
    """The workload's --set options and --size for this machine; Refused (a sentence) where it cannot run."""
    workload = WORKLOADS[name]
    sets, size = list(workload.sets), workload.size
    free = shutil.disk_usage(target).free
    if name == "buffered-flood":
        flood = 2 * dirty_limit_bytes()
        if flood + FREE_MARGIN_BYTES > free:
            raise Refused(
                f"the flood must write twice the dirty limit ({flood / GIB:.1f} GiB) for writeback to throttle, and "
                f"{target} has {free / GIB:.1f} GiB free (a {FREE_MARGIN_BYTES / GIB:.0f} GiB margin kept): choose a "
                "target with more room or lower vm.dirty_bytes")
        size = f"{flood // (1 << 20)}M"
    elif name == "cpu-hogs":
        sets = [option if not option.startswith("numjobs=") else f"numjobs={3 * (os.cpu_count() or 1)}" for option in sets]
    elif name == "memory-thrash":
        if os.environ.get(OWN_MACHINE_ENV) != "1":
            raise Refused(
                "memory-thrash locks all but 1 GiB of this machine's memory, pressing every program on it; run it "
                f"only on a machine of your own, with {OWN_MACHINE_ENV}=1")
        lock = _meminfo_bytes("MemAvailable") - GIB
        sets = [option if not option.startswith("lockmem=") else f"lockmem={lock // (1 << 20)}M" for option in sets]
    if name not in ("buffered-flood", "cpu-hogs") and _size_bytes(size) + FREE_MARGIN_BYTES > free:
        raise Refused(f"{target} has {free / GIB:.1f} GiB free; this workload's file needs {size} and a margin")
    return sets, size


def _size_bytes(size: str) -> int:
    units = {"M": 1 << 20, "G": GIB}
    return int(size[:-1]) * units[size[-1]]
