"""The one way a finished run's record is saved and announced, for every kind of run.

A local fio run, a sysbench run and a multi-host run all end here: the overlap with another
run is marked (where the run held the machine's run lock), the record is saved through the
history index beside fio's report, and :class:`~iotui.core.runs.events.RunFinished` goes out.
A save error is the run's error: its one sentence, in place of the run's own failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from iotui.core.records.history_index import save_indexed
from iotui.core.records.record import RunRecord
from iotui.core.records.schema import RecordError
from iotui.core.runs.events import RunFinished
from iotui.core.runs.lock import RunLock, mark_overlap


def save_and_announce(
    record: RunRecord,
    *,
    runs_dir: Path | None,
    emit: Callable[[object], None],
    failure: str | None = None,
    fio_report: dict | None = None,
    run_lock: RunLock | None = None,
    refused: bool = False,
) -> Path | None:
    """Save ``record`` under ``runs_dir`` (None: not saved) and emit RunFinished; the saved path or None.

    ``run_lock``: the lock the run held, if any (another run forced beside it marks the record).
    ``fio_report``: fio's own final report(s), saved beside the record.
    ``refused``: the tool refused its options before anything ran (the caller passes no runs_dir).
    """
    mark_overlap(record, run_lock)
    saved_path: Path | None = None
    save_error: str | None = None
    if runs_dir is not None:
        try:
            saved_path = save_indexed(record, runs_dir, fio_report=fio_report)
        except RecordError as error:
            save_error = str(error)
    emit(RunFinished(record, saved_path, save_error or failure, refused=refused))
    return saved_path
