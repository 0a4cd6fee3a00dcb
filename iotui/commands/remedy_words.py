"""A remedy run in words: the skipped remedies, the table and the verdict (CLI and ``iotui show``)."""

from __future__ import annotations

from iotui.core import format as fmt
from iotui.core.remedy.plan import IDLE_CLASS, Skipped, scheduler_of
from iotui.core.remedy.table import FELT, Felt, RemedyRow, Verdict
from iotui.core.sweep.record import SweepRecord
from iotui.core.table import Column, fit_table


def skipped_sentence(skipped: Skipped) -> str:
    """One sentence: which remedy is not tried and why, and what to do."""
    if skipped.code == "no-block-device":
        return ("The I/O schedulers are not tried: the target is on no block device whose scheduler can be chosen "
                "(a tmpfs, a network filesystem or a device-mapper stack); the other remedies still run.")
    if skipped.code == "not-root":
        return (f"The I/O schedulers of {skipped.device} are not tried: changing one needs root "
                "(run iotui remedy with sudo); the other remedies still run.")
    return (f"The I/O schedulers of {skipped.device} are not tried: it also holds {skipped.holds}; give "
            "--allow-system-disk to try them there (each is put back after its point); the other remedies still run.")


def remedy_words(remedy: str) -> str:
    scheduler = scheduler_of(remedy)
    if scheduler is not None:
        return f"scheduler {scheduler}"
    return "idle I/O class" if remedy == IDLE_CLASS else remedy


def _change(value: float | None) -> str:
    return "" if value is None else f" ({value:+.0f}%)"


def _felt(felt: Felt | None) -> str:
    if felt is None:
        return "-"
    text = fmt.latency_ns(felt.p99_ms * 1e6)
    return f"{text} ×{felt.times_rest:.1f}" if felt.times_rest is not None else text


def verdict_sentence(found: Verdict) -> str:
    if found.kind == "no-as-is":
        return "No verdict: the workload as it is did not complete, so there is nothing to compare the remedies with."
    if found.kind == "responsive-as-is":
        return "The desktop stayed responsive as it is (level ok): no remedy is needed for this workload."
    if found.kind == "none-helped":
        return (f"None of the remedies helped: none brought the level below {found.as_is_level}, the workload's "
                "level as it is. Try a lower iodepth or rate_iops, direct I/O for buffered writes, or another disk.")
    cost = "" if found.iops_change_pct is None else f", at {found.iops_change_pct:+.0f}% of fio's IOPS"
    text = (f"{remedy_words(found.remedy or '')} keeps the desktop {found.level} "
            f"(as it is: {found.as_is_level}){cost}.")
    if found.command:
        if scheduler_of(found.remedy or "") is not None:
            text += f" To make it last, a udev rule (e.g. /etc/udev/rules.d/60-iosched.rules): {found.command}"
        else:
            text += f" To make it last, start the heavy job as: {found.command} (or fio's prioclass=3)"
    return text


def print_table(rows: list[RemedyRow], found: Verdict, sweep: SweepRecord, width: int | None = None) -> None:
    columns = [Column("remedy"), Column("IOPS", "right"), Column("BW", "right"),
               *(Column(f"{name} p99", "right") for _, _, name in FELT), Column("level")]
    table_rows = []
    for row in rows:
        if row.status != "completed" and row.iops is None:
            table_rows.append([remedy_words(row.remedy), row.status, "", *("" for _ in FELT), ""])
            continue
        table_rows.append([
            remedy_words(row.remedy),
            fmt.iops(row.iops) + _change(row.iops_change_pct),
            fmt.bytes_per_s(row.bw_bytes) + _change(row.bw_change_pct),
            *(_felt(row.felt.get(name)) for _, _, name in FELT),
            row.level or "-",
        ])
    print()
    for line in fit_table(columns, table_rows, width):
        print(line)
    print()
    print(verdict_sentence(found))
    if sweep.path is not None:
        print(f"Saved: {sweep.path}")
