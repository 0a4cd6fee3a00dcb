"""A run's seconds as the record keeps them: one row per section per second, for every kind of fio run.

A local run, each host of a multi-host run and the multi-host aggregate all keep their
seconds here. Each :class:`~iotui.core.fio.intervals.IntervalSample` (made once per document by
:mod:`iotui.core.fio.section_seconds`) becomes its ``[[samples]]`` row once, beside the fio group
it came from; at save the rows are given their section (by that group, never by guess) and the
paused seconds are taken out of the sections' figures with fio's own kept beside them.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from iotui.core.fio.summary import sample_row
from iotui.core.records.section_figures import assign_sections, section_host_figures
from iotui.core.runs.pauses import PauseLog, unpause_sections

if TYPE_CHECKING:
    from iotui.core.fio.intervals import IntervalSample, Snapshot
    from iotui.core.host.counters import HostSample


class SecondRows:
    """The rows of one series of seconds (a run, a host, or the hosts' aggregate), with their groups and pauses."""

    def __init__(self, pause_log: PauseLog | None = None, *, drop_empty: bool = False) -> None:
        self.pause_log = pause_log if pause_log is not None else PauseLog()
        # Rows without the figures a second did not have (a host's rows travel as they are saved).
        self.drop_empty = drop_empty
        self.rows: list[dict[str, object]] = []
        # fio's groupid of each row: the section it belongs to, given at save.
        self.groupids: list[int | None] = []
        # The host's busy cores at each row (a local run's IOPS per core), None where not read.
        self.busy_cores: list[float | None] = []

    def take(
        self,
        doc: dict,
        intervals: Sequence[IntervalSample],
        *,
        whole: Snapshot | None = None,
        host: HostSample | None = None,
        t_s: float | None = None,
    ) -> list[IntervalSample]:
        """One status document's seconds (one per section that ran in it): their rows are kept.

        ``t_s``: when the document arrived on the run's clock, where not the seconds' own (a host's).
        Returns the seconds as kept, marked paused where a pause fell in the document's interval
        (the pause log counts the pause once, on the first of them).
        """
        paused = self.pause_log.feed(doc, made_row=bool(intervals), whole=whole, rows_made=len(intervals))
        kept = [replace(interval, paused=True) for interval in intervals] if paused else list(intervals)
        for interval in kept:
            self.add(interval, host, t_s=t_s)
        return kept

    def add(
        self, interval: IntervalSample, host: HostSample | None = None, *, t_s: float | None = None,
        extra: Mapping[str, object] | None = None,
    ) -> dict[str, object]:
        """Keep one second's row (``t_s``: its time on the run's clock where not the interval's own)."""
        row = sample_row(interval, host)
        if self.drop_empty:
            row = {key: value for key, value in row.items() if value is not None}
        if t_s is not None:
            row["t_s"] = round(t_s, 3)
        if extra:
            row.update(extra)
        self.rows.append(row)
        self.groupids.append(interval.groupid)
        self.busy_cores.append(getattr(host, "busy_cores", None))
        return row

    def file_under(self, sections: Sequence[MutableMapping[str, object]], final_doc: Mapping[str, object]) -> None:
        """Give each row its section and each paused section its figures without the pause.

        ``sections``: the record's sections of this series (fio's groups, from its final report);
        ``final_doc``: fio's final report, whose whole-run figures are kept beside the unpaused ones.
        """
        assign_sections(sections, self.rows, self.groupids)
        if self.pause_log.pauses:
            unpause_sections(sections, self.rows, self.pause_log, dict(final_doc))

    def add_host_figures(self, sections: Sequence[MutableMapping[str, object]]) -> None:
        """Each section's host CPU, IOPS per core and time span, from its own unpaused rows."""
        for index, section in enumerate(sections):
            picked = [(row, busy) for row, busy in zip(self.rows, self.busy_cores) if row.get("section") == index]
            section_host_figures(section, [row for row, _ in picked], [busy for _, busy in picked])

    def copy_rows(self) -> list[dict[str, object]]:
        """The rows as a record keeps them (a copy: the record's own)."""
        return [dict(row) for row in self.rows]
