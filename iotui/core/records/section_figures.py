"""Host figures per section: CPU, context switches, interrupts, IOPS per core, responsiveness.

Each section gets the host figures of its own seconds only (the samples that
belong to it, paused ones left out), so a read section followed by a write
section never averages the two: ``iops_per_fio_core`` is that section's IOPS
over the fio cores measured while it ran.
"""

from __future__ import annotations

from typing import Iterable, Mapping, MutableMapping, Sequence

from iotui.core.numbers import number, numbers
from iotui.core.host.section_pressure import pressure_from_samples
from iotui.core.records.direction_figures import section_total_iops

# Sample key -> section cpu key (means over the section's samples).
_CPU_MEANS = (
    ("cpu_user_pct", "user_pct"),
    ("cpu_system_pct", "system_pct"),
    ("cpu_iowait_pct", "iowait_pct"),
    ("ctx_switches_per_s", "ctx_switches_per_s"),
    ("interrupts_per_s", "interrupts_per_s"),
    ("fio_cpu_cores", "fio_cpu_cores"),
)


def _mean(values: Iterable[object]) -> float | None:
    present = numbers(values)
    return sum(present) / len(present) if present else None


def assign_sections(
    sections: Sequence[Mapping[str, object]], rows: Sequence[MutableMapping[str, object]], row_groupids: list[int | None]
) -> None:
    """Give each sample row the index of its section (by fio's groupid); unknown ones stay unassigned."""
    index_of = {section.get("groupid"): index for index, section in enumerate(sections)}
    for row, groupid in zip(rows, row_groupids):
        if groupid in index_of:
            row["section"] = index_of[groupid]
        elif len(sections) == 1:
            row["section"] = 0


def section_host_figures(
    section: MutableMapping[str, object], rows: Sequence[Mapping[str, object]], busy_cores: list[float | None]
) -> None:
    """Fill ``section`` with its seconds' host CPU, IOPS per core, time span and pressure.

    ``rows`` are the section's sample rows and ``busy_cores`` the host's busy
    cores at each of them (same order); paused rows are left out.
    """
    kept = [(row, busy) for row, busy in zip(rows, busy_cores) if not row.get("paused")]
    if not kept:
        return
    kept_rows = [row for row, _ in kept]
    first_s, last_s = number(kept_rows[0].get("t_s")), number(kept_rows[-1].get("t_s"))
    if first_s is not None and last_s is not None:
        section["t_start_s"] = round(first_s - (number(kept_rows[0].get("dt_s")) or 0.0), 3)
        section["t_end_s"] = round(last_s, 3)
    own = section.get("cpu")
    cpu: dict[str, object] = dict(own) if isinstance(own, Mapping) else {}
    for sample_key, cpu_key in _CPU_MEANS:
        value = _mean(row.get(sample_key) for row in kept_rows)
        if value is not None:
            cpu[cpu_key] = value
    iops = section_total_iops(section)
    fio_cores = number(cpu.get("fio_cpu_cores"))
    if fio_cores:
        cpu["iops_per_fio_core"] = iops / fio_cores
    busy = _mean(b for _, b in kept)
    if busy:
        cpu["iops_per_busy_core"] = iops / busy
    if cpu:
        section["cpu"] = cpu
    pressure = section_pressure(kept_rows)
    if pressure:
        section["pressure"] = pressure


def section_pressure(rows: Sequence[Mapping[str, object]]) -> dict[str, object]:
    """The worst responsiveness level over these samples, its cause, and each signal's maximum.

    The same rules as the run's ``[pressure]`` (iotui/core/host/section_pressure.py); the
    recorder adds each cause's threshold once the run's baselines are known.
    """
    return pressure_from_samples(rows, {})
