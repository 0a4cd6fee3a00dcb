"""Host sampling beside fio: CPU, context switches, interrupts, disk counters, PSI.

Read once per second straight from /proc (a few small reads, far cheaper than a
general-purpose library walking every process), so iotui's own cost stays out of
the numbers it reports. Every figure that the platform does not provide is `None`
(absent), never 0: a machine without PSI has no pressure figure, not zero pressure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, fields
from pathlib import Path


from iotui.core.host.block_devices import bottom_of_stack
from iotui.core.host.proc_files import read_text as _read_text
from iotui.core.host.processes import read_process_tree_cpu_s
from iotui.core.series import CounterRate

# /proc/diskstats counts sectors of 512 bytes whatever the device's real sector size.
DISKSTATS_SECTOR_BYTES = 512

# Order of the per-CPU time columns in /proc/stat (jiffies). guest and guest_nice are
# already included in user and nice, so they are read but never added to the total.
_STAT_CPU_COLUMNS = (
    "user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal", "guest", "guest_nice",
)
_PSI_RESOURCES = ("cpu", "io", "memory")
_PSI_KINDS = ("some", "full")


@dataclass(frozen=True)
class HostSample:
    """One second of host activity. `None` means "not available here", never zero.

    CPU percentages are of all CPUs together (like vmstat); PSI percentages are the
    share of the interval during which some/all non-idle tasks were stalled.
    """

    cpu_user_pct: float | None = None
    cpu_system_pct: float | None = None
    cpu_iowait_pct: float | None = None
    cpu_irq_pct: float | None = None
    cpu_softirq_pct: float | None = None
    cpu_steal_pct: float | None = None
    ctx_switches_per_s: float | None = None
    interrupts_per_s: float | None = None
    procs_blocked: float | None = None
    device_read_iops: float | None = None
    device_write_iops: float | None = None
    device_read_bytes_per_s: float | None = None
    device_write_bytes_per_s: float | None = None
    psi_cpu_some_pct: float | None = None
    psi_cpu_full_pct: float | None = None
    psi_io_some_pct: float | None = None
    psi_io_full_pct: float | None = None
    psi_memory_some_pct: float | None = None
    psi_memory_full_pct: float | None = None
    # CPU seconds per wall second used by fio's process tree: 1.0 = one core busy.
    fio_cpu_cores: float | None = None
    # CPU count x non-idle share (idle and iowait count as idle, as in vmstat).
    busy_cores: float | None = None

    def as_dict(self) -> dict[str, float]:
        """The figures that exist, by field name (absent ones left out, as TOML needs)."""
        return {f.name: value for f in fields(self) if (value := getattr(self, f.name)) is not None}


# ---------------------------------------------------------------------------
# Readers: each returns raw counters (or None when the file is missing/unreadable).


def read_stat(proc_root: Path) -> dict[str, float] | None:
    """Counters and gauges from /proc/stat: CPU jiffies, ctxt, intr, procs_blocked, cpu_count."""
    text = _read_text(proc_root / "stat")
    if text is None:
        return None
    values: dict[str, float] = {}
    cpu_count = 0
    for line in text.splitlines():
        parts = line.split()
        if not parts:
            continue
        key = parts[0]
        try:
            if key == "cpu":
                columns = dict(zip(_STAT_CPU_COLUMNS, (float(p) for p in parts[1:])))
                for name, jiffies in columns.items():
                    values[f"cpu_{name}"] = jiffies
            elif key.startswith("cpu") and key[3:].isdigit():
                cpu_count += 1
            elif key == "ctxt":
                values["ctxt"] = float(parts[1])
            elif key == "intr":
                # The first number is the total; the rest are per-IRQ counts.
                values["intr"] = float(parts[1])
            elif key == "procs_blocked":
                values["procs_blocked"] = float(parts[1])
        except (IndexError, ValueError):
            continue
    if cpu_count:
        values["cpu_count"] = float(cpu_count)
    return values


def read_diskstats(proc_root: Path, devices: list[str]) -> dict[str, float] | None:
    """Sums of completed reads/writes and bytes for `devices` from /proc/diskstats.

    Returns `None` when the file is unreadable or none of the devices is listed.
    """
    if not devices:
        return None
    text = _read_text(proc_root / "diskstats")
    if text is None:
        return None
    wanted = set(devices)
    totals = {"read_ios": 0.0, "write_ios": 0.0, "read_bytes": 0.0, "write_bytes": 0.0}
    found = False
    for line in text.splitlines():
        parts = line.split()
        # major minor name, then reads completed, reads merged, sectors read, ms reading,
        # writes completed, writes merged, sectors written, ...
        if len(parts) < 10 or parts[2] not in wanted:
            continue
        try:
            totals["read_ios"] += float(parts[3])
            totals["read_bytes"] += float(parts[5]) * DISKSTATS_SECTOR_BYTES
            totals["write_ios"] += float(parts[7])
            totals["write_bytes"] += float(parts[9]) * DISKSTATS_SECTOR_BYTES
        except ValueError:
            continue
        found = True
    return totals if found else None


def read_pressure(proc_root: Path) -> dict[str, float]:
    """PSI `total=` counters (microseconds stalled) keyed like "cpu_some"; absent lines left out."""
    totals: dict[str, float] = {}
    for resource in _PSI_RESOURCES:
        text = _read_text(proc_root / "pressure" / resource)
        if text is None:
            continue
        for line in text.splitlines():
            parts = line.split()
            if not parts or parts[0] not in _PSI_KINDS:
                continue
            for field in parts[1:]:
                name, _, value = field.partition("=")
                if name == "total":
                    try:
                        totals[f"{resource}_{parts[0]}"] = float(value)
                    except ValueError:
                        pass
    return totals


# ---------------------------------------------------------------------------
# The sampler.


class HostSampler:
    """Samples the host once per call; the first call primes the counters.

    `devices` are names from /proc/diskstats (as `backing_devices` returns them). A
    device stacked on other listed devices (dm, md) is not added again: only the
    devices at the bottom of the stack are summed, so I/O is never counted twice.
    """

    def __init__(
        self,
        devices: list[str],
        fio_pid: int | None = None,
        proc_root: Path = Path("/proc"),
        *,
        sys_root: Path = Path("/sys"),
    ) -> None:
        self.proc_root = proc_root
        self.devices = list(devices)
        self.counted_devices = bottom_of_stack(self.devices, sys_root)
        self._fio_pid = fio_pid
        self._rates: dict[str, CounterRate] = {}

    def set_fio_pid(self, pid: int | None) -> None:
        """Follow a new fio process (or none); its CPU rate starts from a fresh baseline."""
        self._fio_pid = pid
        self._rates.pop("fio_cpu_s", None)

    def sample(self, now_s: float | None = None) -> HostSample:
        """Read /proc now and return the rates since the previous call."""
        if now_s is None:
            now_s = time.monotonic()
        counters, gauges = self._read_counters()
        rates = self._update_rates(counters, now_s)
        return _derive_sample(rates, gauges)

    def _read_counters(self) -> tuple[dict[str, float], dict[str, float]]:
        counters: dict[str, float] = {}
        gauges: dict[str, float] = {}
        stat_values = read_stat(self.proc_root)
        if stat_values is not None:
            for gauge in ("procs_blocked", "cpu_count"):
                if gauge in stat_values:
                    gauges[gauge] = stat_values.pop(gauge)
            if any(name.startswith("cpu_") for name in stat_values):
                # Total time of the interval: every column except guest (inside user/nice).
                stat_values["cpu_total"] = sum(
                    stat_values.get(f"cpu_{name}", 0.0) for name in _STAT_CPU_COLUMNS[:8]
                )
            counters.update(stat_values)
        disk = read_diskstats(self.proc_root, self.counted_devices)
        if disk is not None:
            counters.update({f"disk_{name}": value for name, value in disk.items()})
        counters.update({f"psi_{name}_us": value for name, value in read_pressure(self.proc_root).items()})
        if self._fio_pid is not None:
            fio_cpu_s = read_process_tree_cpu_s(self._fio_pid, self.proc_root)
            if fio_cpu_s is not None:
                counters["fio_cpu_s"] = fio_cpu_s
        return counters, gauges

    def _update_rates(self, counters: dict[str, float], now_s: float) -> dict[str, float | None]:
        """Every counter through its own CounterRate; vanished counters lose their baseline."""
        for name in self._rates.keys() - counters.keys():
            self._rates[name].reset()
        rates: dict[str, float | None] = {}
        for name, value in counters.items():
            rates[name] = self._rates.setdefault(name, CounterRate()).update(value, now_s)
        return rates


def _derive_sample(rates: dict[str, float | None], gauges: dict[str, float]) -> HostSample:
    """Turn per-second counter rates into the figures a HostSample carries."""
    total_jiffies_per_s = rates.get("cpu_total")

    def cpu_pct(*names: str) -> float | None:
        if not total_jiffies_per_s:
            return None
        parts = [rates.get(f"cpu_{name}") for name in names]
        if any(part is None for part in parts):
            return None
        return 100.0 * sum(parts) / total_jiffies_per_s  # type: ignore[arg-type]

    def psi_pct(name: str) -> float | None:
        stalled_us_per_s = rates.get(f"psi_{name}_us")
        if stalled_us_per_s is None:
            return None
        # Microseconds stalled per second of wall time -> percent; the kernel's clock and
        # ours are read a moment apart, so clamp the rare 100.3%.
        return min(100.0, stalled_us_per_s / 1e6 * 100.0)

    busy_cores: float | None = None
    idle_pct = cpu_pct("idle", "iowait")
    cpu_count = gauges.get("cpu_count")
    if idle_pct is not None and cpu_count:
        busy_cores = cpu_count * max(0.0, 100.0 - idle_pct) / 100.0

    return HostSample(
        cpu_user_pct=cpu_pct("user", "nice"),
        cpu_system_pct=cpu_pct("system"),
        cpu_iowait_pct=cpu_pct("iowait"),
        cpu_irq_pct=cpu_pct("irq"),
        cpu_softirq_pct=cpu_pct("softirq"),
        cpu_steal_pct=cpu_pct("steal"),
        ctx_switches_per_s=rates.get("ctxt"),
        interrupts_per_s=rates.get("intr"),
        procs_blocked=gauges.get("procs_blocked"),
        device_read_iops=rates.get("disk_read_ios"),
        device_write_iops=rates.get("disk_write_ios"),
        device_read_bytes_per_s=rates.get("disk_read_bytes"),
        device_write_bytes_per_s=rates.get("disk_write_bytes"),
        psi_cpu_some_pct=psi_pct("cpu_some"),
        psi_cpu_full_pct=psi_pct("cpu_full"),
        psi_io_some_pct=psi_pct("io_some"),
        psi_io_full_pct=psi_pct("io_full"),
        psi_memory_some_pct=psi_pct("memory_some"),
        psi_memory_full_pct=psi_pct("memory_full"),
        fio_cpu_cores=rates.get("fio_cpu_s"),
        busy_cores=busy_cores,
    )
