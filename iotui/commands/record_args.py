"""Command-line record arguments: a file, a record name in the runs directory, or ``ref:NAME[:ROW]``.

Shared by ``iotui compare`` and ``iotui export``. Every failure is a
:class:`RecordError` whose text names the file (and key) and says what to do.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from iotui.core.runs.paths import default_runs_dir
from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record
from iotui.core.records.schema import RecordError
from iotui.core.records.references import PREFIX, list_references, load_reference, resolve_reference
from iotui.core.sweep import SWEEP_SUFFIX


def runs_dir_path(runs_dir: str | None) -> Path:
    """``--runs-dir`` when given (before or after the subcommand), else the default."""
    return Path(runs_dir).expanduser() if runs_dir else default_runs_dir()


def add_runs_dir_option(parser: argparse.ArgumentParser) -> None:
    # SUPPRESS keeps a value given before the subcommand (``iotui --runs-dir X compare``).
    parser.add_argument(
        "--runs-dir",
        default=argparse.SUPPRESS,
        help="where run records are (default: $IOTUI_RUNS_DIR or ~/.local/share/iotui/runs)",
    )


def record_path(argument: str, runs_dir: Path) -> Path | None:
    """The file a record argument names: a path, or a record's file name (with or without ``.toml``) in
    the runs directory, as shell completion offers them; None when there is none."""
    for candidate in (Path(argument).expanduser(), runs_dir / argument, runs_dir / f"{argument}.toml"):
        if candidate.is_file():
            return candidate
    return None


def load_record_arg(argument: str, runs_dir: Path, *, expand_reference_rows: bool) -> list[RunRecord]:
    """The record(s) one argument names.

    ``ref:NAME`` gives every row of a published table as its own record when
    ``expand_reference_rows`` (compare), else the table record (export gives
    one row per table row anyway); ``ref:NAME:ROW`` gives that row.
    """
    if argument.startswith(PREFIX):
        name, _, row = argument[len(PREFIX):].partition(":")
        if row or expand_reference_rows:
            return resolve_reference(argument)
        return [load_reference(name)]
    candidate = record_path(argument, runs_dir)
    if candidate is not None:
        if True:
            if candidate.name.endswith(SWEEP_SUFFIX):
                # Not a run: its points are, each a record of its own.
                raise RecordError(
                    f"{candidate}: a sweep record, not a run; 'iotui show {candidate} --json' names each point's "
                    f"record, which compare and export take ('iotui show {candidate}' prints the sweep's table, "
                    f"'iotui report {candidate}' draws it)."
                )
            return [load_record(candidate)]
    raise RecordError(
        f"{argument}: no such record (looked for the file and in {runs_dir}); give a path to a .toml "
        "record, a record's file name in the runs directory, or ref:NAME for a published reference "
        "(--list-references shows them)."
    )


def load_record_args(
    arguments: Sequence[str], runs_dir: Path, *, expand_reference_rows: bool
) -> tuple[list[RunRecord], list[str]]:
    """Every loadable record, and one sentence per argument that failed."""
    records: list[RunRecord] = []
    errors: list[str] = []
    for argument in arguments:
        try:
            records.extend(load_record_arg(argument, runs_dir, expand_reference_rows=expand_reference_rows))
        except RecordError as error:
            errors.append(str(error))
    return records, errors


def references_listing() -> str:
    """One line per shipped reference: ``ref:NAME``, its title, its rows."""
    lines = []
    for record in list_references():
        row_names = ", ".join(record.section_names())
        name = record.path.stem if record.path else record.id
        lines.append(f"ref:{name}  {record.run.get('title', '')}\n    rows: {row_names}\n    source: {record.run.get('source', '')}")
    return "\n".join(lines) + "\n"
