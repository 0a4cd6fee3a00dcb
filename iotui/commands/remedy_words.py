"""A remedy run in words: the skipped remedies, the table and the verdict (CLI and ``iotui show``)."""

from __future__ import annotations

from iotui.core.remedy.plan import Skipped
from iotui.core.remedy.table import RemedyRow, Verdict
from iotui.core.remedy.words import NARROW_STEPS, table_cells, table_headers, verdict_sentence
from iotui.core.sweep.record import SweepRecord
from iotui.core.table import Column, fit_table, labelled_path, wrap


def skipped_sentence(skipped: Skipped) -> str:
    """One sentence: which remedy is not tried and why, and what to do."""
    if skipped.code == "no-io-controller":
        return ("The cgroup weight is not tried: no cgroup hierarchy here has the I/O controller (cgroup v2 "
                "with io in cgroup.subtree_control, or v1 blkio); the other remedies still run.")
    if skipped.code == "no-weight-file":
        return ("The cgroup weight is not tried: this kernel's blkio controller has no weight (neither bfq's "
                "blkio.bfq.weight nor blkio.weight); the other remedies still run.")
    if skipped.remedy == "cgroup" and skipped.code == "not-root":
        return ("The cgroup weight is not tried: making a cgroup needs root (run iotui remedy with sudo); "
                "the other remedies still run.")
    if skipped.code == "no-block-device":
        return ("The I/O schedulers are not tried: the target is on no block device whose scheduler can be chosen "
                "(a tmpfs, a network filesystem or a device-mapper stack); the other remedies still run.")
    if skipped.code == "not-root":
        return (f"The I/O schedulers of {skipped.device} are not tried: changing one needs root "
                "(run iotui remedy with sudo); the other remedies still run.")
    return (f"The I/O schedulers of {skipped.device} are not tried: it also holds {skipped.holds}; give "
            "--allow-system-disk to try them there (each is put back after its point); the other remedies still run.")


def print_table(rows: list[RemedyRow], found: Verdict, sweep: SweepRecord, width: int | None = None) -> None:
    headers = table_headers()
    columns = [Column(headers[0]), *(Column(header, "right") for header in headers[1:-1]), Column(headers[-1])]
    table_rows = table_cells(rows)
    print()
    for line in fit_table(columns, table_rows, width, NARROW_STEPS):
        print(line)
    print()
    for line in wrap(verdict_sentence(found), width):
        print(line)
    if sweep.path is not None:
        for line in labelled_path("Saved:", sweep.path, width):
            print(line)
