"""Pauses of a run: when and how long, which samples they fell in, and figures that leave them out.

fio's clock keeps running while its processes are stopped, so a paused run's
own totals are spread over time in which nothing ran, and the I/Os in flight
across the pause carry the pause into fio's latency bins. ``docs/numbers.md``
("Pauses") says how each figure of a paused section is made:

* IOPS and bandwidth: fio's totals (every I/O counted) over fio's runtime
  minus the paused time, so no partly paused interval is lost or guessed;
* latency: from the json+ bins of the unpaused intervals only (the final bins
  minus the bins gained in intervals a pause fell in), ``lat_source =
  "bins-unpaused"``;
* fio's untouched figures stay under the direction's ``fio`` key.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Mapping, MutableMapping, Sequence

from iotui.core.fio.intervals import DIRECTIONS, PERCENTILES, DirectionTotals, Snapshot, fio_percentiles, snapshot_from_document
from iotui.core.fio.sections import group_entries


@dataclass
class _Lost:
    """What the paused intervals added to one group's direction: I/Os' latencies to leave out."""

    clat_n: int = 0
    clat_sum_ns: float = 0.0
    bins: dict[int, int] = field(default_factory=dict)


class PauseLog:
    """Feed it pauses, resumes and every fio document; ask it which sample rows were paused."""

    def __init__(self) -> None:
        self.pauses: list[dict[str, float]] = []
        self._paused_at: tuple[float, float] | None = None  # (monotonic, fio clock)
        self._unflagged: list[int] = []  # pauses not yet assigned to a sample
        # The previous document, as it came: its groups' snapshots are worked out only
        # when the next interval holds a pause (a document of eight groups is eight
        # snapshots, every second, that an unpaused run never needs).
        self._previous_doc: dict | None = None
        self.lost: dict[tuple[int, str], _Lost] = {}
        self.row_pauses: list[list[int]] = []  # per sample row: the pauses it holds
        # The first row made while a pause was still open (a stop while paused): it holds that pause.
        self._open_pause_row: int | None = None

    @property
    def paused_s(self) -> float:
        return sum(p["duration_s"] for p in self.pauses)

    @property
    def is_paused(self) -> bool:
        return self._paused_at is not None

    def pause(self, now: float, fio_t_s: float) -> None:
        if self._paused_at is None:
            self._paused_at = (now, fio_t_s)

    def resume(self, now: float) -> None:
        if self._paused_at is None:
            return
        started, at_s = self._paused_at
        self.pauses.append({"at_s": round(at_s, 3), "duration_s": round(max(now - started, 0.0), 3)})
        if self._open_pause_row is not None:
            # fio reported (its final report, after a stop while paused) before the pause ended:
            # the row made then holds it, so its section's figures leave the pause out.
            self.row_pauses[self._open_pause_row].append(len(self.pauses) - 1)
            self._open_pause_row = None
        else:
            self._unflagged.append(len(self.pauses) - 1)
        self._paused_at = None

    def feed(self, doc: dict, made_row: bool, whole: Snapshot | None = None, rows_made: int = 1) -> bool:
        """One status document; returns whether the rows it made hold a pause (then they are marked paused).

        ``rows_made``: how many rows the document made (one per section that ran in it); the
        pause is counted once, on the first of them.

        ``whole``: the document's snapshot over all its jobs, when the caller has it: a
        document of one reporting group is that group's snapshot, not worked out again.
        """
        paused_row = made_row and bool(self._unflagged or self._paused_at is not None)
        if paused_row:
            previous = _group_snapshots(self._previous_doc) if self._previous_doc is not None else {}
            for gid, snapshot in _group_snapshots(doc, whole).items():
                before = previous.get(gid)
                for direction in DIRECTIONS:
                    self._add_lost(gid, direction, before, snapshot)
        self._previous_doc = doc
        if made_row:
            if paused_row and self._paused_at is not None and self._open_pause_row is None:
                self._open_pause_row = len(self.row_pauses)
            self.row_pauses.append(list(self._unflagged) if paused_row else [])
            self.row_pauses.extend([] for _ in range(rows_made - 1))
            if paused_row:
                self._unflagged = []
        return paused_row

    def _add_lost(self, gid: int, direction: str, before: Snapshot | None, after: Snapshot) -> None:
        new = after.directions.get(direction)
        if new is None:
            return
        old = before.directions.get(direction) if before is not None else None
        lost = self.lost.setdefault((gid, direction), _Lost())
        lost.clat_n += new.clat_n - (old.clat_n if old else 0)
        lost.clat_sum_ns += new.clat_sum_ns - (old.clat_sum_ns if old else 0.0)
        for value, count in new.bins.items():
            gained = count - (old.bins.get(value, 0) if old else 0)
            if gained:
                lost.bins[value] = lost.bins.get(value, 0) + gained

    def finish(self, now: float) -> None:
        """A run that ended while paused: the pause lasted until now."""
        self.resume(now)


def _group_snapshots(doc: dict, whole: Snapshot | None = None) -> dict[int, Snapshot]:
    """Each reporting group's cumulative snapshot (``whole``: the document's, when it is one group)."""
    groups = group_entries(doc)
    if whole is not None and len(groups) == 1 and len(groups[0][1]) == whole.job_count:
        return {groups[0][0]: whole}
    return {gid: snapshot_from_document({"jobs": entries}) for gid, entries in groups}


def unpause_sections(
    sections: Sequence[MutableMapping[str, object]], rows: Sequence[Mapping[str, object]], log: PauseLog, final_doc: dict
) -> None:
    """Give each paused section its pause, figures without the paused time, and fio's own beside them."""
    paused_by_section: dict[int, float] = {}
    for row, held in zip(rows, log.row_pauses):
        index = row.get("section")
        if held and isinstance(index, int):
            paused_by_section[index] = paused_by_section.get(index, 0.0) + sum(log.pauses[i]["duration_s"] for i in held)
    finals = _group_snapshots(final_doc)
    for index, section in enumerate(sections):
        paused_s = paused_by_section.get(index, 0.0)
        if paused_s <= 0:
            continue
        section["paused_s"] = round(paused_s, 3)
        gid = section.get("groupid", 0)
        if not isinstance(gid, int) or gid not in finals:
            continue
        for direction in DIRECTIONS:
            table = section.get(direction)
            totals = finals[gid].directions.get(direction)
            if not isinstance(table, dict) or totals is None:
                continue
            table["fio"] = copy.deepcopy({k: v for k, v in table.items() if k != "fio"})
            running_s = totals.runtime_ms / 1000.0 - paused_s
            if running_s > 0:
                table["iops"] = totals.total_ios / running_s
                table["bw_bytes"] = int(totals.io_bytes / running_s)
            unpaused_latency(table, totals, log.lost.get((gid, direction)))


def lost_together(logs: list[PauseLog], gid: int, direction: str) -> _Lost:
    """What the paused intervals of several runs (the hosts of one run) added to one group's direction."""
    together = _Lost()
    for log in logs:
        lost = log.lost.get((gid, direction))
        if lost is None:
            continue
        together.clat_n += lost.clat_n
        together.clat_sum_ns += lost.clat_sum_ns
        for value, count in lost.bins.items():
            together.bins[value] = together.bins.get(value, 0) + count
    return together


def unpaused_latency(table: MutableMapping[str, object], totals: DirectionTotals, lost: _Lost | None) -> None:
    """Latency of the unpaused intervals: final bins minus the paused intervals' bins."""
    for key in [k for k in table if k.startswith("lat_") and k != "lat_source"]:
        del table[key]
    lost = lost or _Lost()
    count = totals.clat_n - lost.clat_n
    bins = {value: n - lost.bins.get(value, 0) for value, n in totals.bins.items()}
    bins = {value: n for value, n in bins.items() if n > 0}
    if count <= 0 or not bins:
        table.pop("lat_source", None)
        return
    table["lat_mean_ns"] = (totals.clat_sum_ns - lost.clat_sum_ns) / count
    ordered = sorted(bins.items())
    # A bin's value is its bucket's representative (fio's resolution, about 1.5%), so it can lie
    # just outside the true extremes; fio's own min and max over the whole run bound the unpaused ones.
    table["lat_min_ns"] = max(ordered[0][0], totals.clat_min_ns) if totals.clat_min_ns else ordered[0][0]
    table["lat_max_ns"] = min(ordered[-1][0], totals.clat_max_ns) if totals.clat_max_ns else ordered[-1][0]
    values = fio_percentiles(ordered, sum(bins.values()), tuple(p for _, p in PERCENTILES))
    for (name, _), value in zip(PERCENTILES, values):
        if value is not None:
            table[f"lat_{name}_ns"] = value
    table["lat_source"] = "bins-unpaused"
