"""What compare adds from the per-section findings: runs that never settled, desktop tables side by side,
and each run's repeat group (the runs whose spread is the noise)."""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from iotui.core.records.files import list_records
from iotui.core.records.desktop_table import desktop_compare_markdown, is_desktop_table
from iotui.core.compare.repeat import siblings
from iotui.core.records.record import RunRecord


def never_settled(records: Sequence[RunRecord], labels: Sequence[str]) -> list[str]:
    """One sentence per run and section whose steady-state judgement is "not reached"."""
    notes = []
    for label, record in zip(labels, records):
        unsettled = [
            str(section.get("name", "?"))
            for section in record.sections
            if isinstance(steady := section.get("steady"), dict) and steady.get("reached") is False
        ]
        if unsettled:
            where = ", ".join(unsettled)
            notes.append(
                f"Run {label} never settled in {where}: its figures were still moving when the section ended, "
                "so a difference there may be the run's own drift."
            )
    return notes


def desktop_side_by_side(records: Sequence[RunRecord]) -> str:
    """The desktop tables of the first two desktop-table runs side by side ("" when there are not two)."""
    desktop = [record for record in records if is_desktop_table(record)]
    return desktop_compare_markdown(desktop[0], desktop[1]) if len(desktop) >= 2 else ""


def repeat_groups(records: Sequence[RunRecord], candidates: Iterable[RunRecord | None]) -> dict[str, list[RunRecord]]:
    """For each record of a ``--repeat`` group: its group's completed runs (record id -> runs)."""
    pool = list(candidates)
    groups = {}
    for record in records:
        runs = siblings(record, pool)
        if len(runs) >= 2:
            groups[record.id] = runs
    return groups


def repeat_groups_beside(records: Sequence[RunRecord], runs_dir: Path) -> dict[str, list[RunRecord]]:
    """:func:`repeat_groups` from the runs found beside each record and in ``runs_dir``."""
    if not any(record.run.get("repeat_group") for record in records):
        return {}
    directories = {record.path.parent for record in records if record.path is not None} | {Path(runs_dir)}
    candidates = [found for directory in directories for _, found, _ in list_records(directory) if found is not None]
    return repeat_groups(records, candidates)
