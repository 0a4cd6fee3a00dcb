"""``iotui history``: list, filter and prune saved runs headless, through the same index as the app."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
from dataclasses import dataclass

from iotui.cli_options import add_common_options, add_wide_option, flag, output_width, text, texts, whole_number
from iotui.commands.record_args import runs_dir_path
from iotui.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from iotui.core import format as fmt
from iotui.core.records.history_index import (
    INDEX_FILE_NAME, HistoryIndexError, IndexedRun, IndexNotUsed, RunFilter, query, still_matching, sync,
)
from iotui.core.records.edit import delete_records, parse_age
from iotui.core.table import Column, Step, fit_table, wrap
from iotui.core.terminal_text import terminal_safe


@dataclass(frozen=True)
class HistoryOptions:
    """``iotui history``'s options: which runs to list (or prune), how to print them, where they are."""

    words: tuple[str, ...] = ()
    preset: str | None = None
    status: str | None = None
    tag: str | None = None
    older_than: str | None = None
    """``--older-than`` as written (30d, 12h, 2w); read by ``parse_age``."""
    limit: int | None = None
    prune: bool = False
    yes: bool = False
    json_output: bool = False
    runs_dir: str | None = None
    width: int | None = None
    """The width the table is fitted to; None prints every column in full."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> HistoryOptions:
        values = vars(namespace)
        return cls(
            words=texts(values, "words"), preset=text(values, "preset"), status=text(values, "status"),
            tag=text(values, "tag"), older_than=text(values, "older_than"), limit=whole_number(values, "limit"),
            prune=flag(values, "prune"), yes=flag(values, "yes"), json_output=flag(values, "json"),
            runs_dir=text(values, "runs_dir"), width=output_width(values),
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "history",
        help="list, filter and prune saved runs",
        description="List saved runs newest first (the words must all appear in a run: preset, target, host, "
        "status, date, note, tag...). --prune deletes the runs selected by --older-than and/or --preset "
        "(each record and fio's report beside it); it lists them and deletes only with --yes.",
    )
    parser.add_argument("words", nargs="*", help="words every listed run must contain")
    parser.add_argument("--preset", help="only runs of this preset")
    parser.add_argument("--status", choices=("completed", "stopped", "failed", "imported", "bad file"))
    parser.add_argument("--tag", help="only runs with this tag")
    parser.add_argument("--older-than", metavar="AGE", help="only runs started longer ago than AGE (30d, 12h, 2w)")
    parser.add_argument("--limit", type=int, metavar="N", help="list at most N runs")
    parser.add_argument("--prune", action="store_true", help="delete the selected runs (needs --older-than or --preset)")
    parser.add_argument("--yes", action="store_true", help="with --prune: delete without asking")
    parser.add_argument("--json", action="store_true", help="print the runs (or what was pruned) as JSON")
    add_wide_option(parser)
    add_common_options(parser, subcommand=True)
    parser.set_defaults(handler=handle)


_COLUMNS = (
    Column("started"), Column("status"), Column("run", min_width=14), Column("where", min_width=12, cut_keeps="end"),
    Column(("read IOPS", "read"), align="right"), Column(("write IOPS", "write"), align="right"),
    Column("p99", align="right"), Column("mixed IOPS", align="right"), Column("tags, note", min_width=12),
)
# How the table narrows, in order (README.md, "Tables that fit the terminal"): the tags and note are cut,
# then dropped; the target is cut to its end, then dropped; the run's title is cut; the IOPS headers
# shorten; the mixed IOPS go last.
_STEPS = (
    Step("cut", 8), Step("drop", 8), Step("cut", 3), Step("drop", 3), Step("cut", 2), Step("shorten", 4),
    Step("shorten", 5), Step("drop", 7),
)


def _cells(run: IndexedRun) -> list[str]:
    date = run.started.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M") if run.started else "?"
    tags = " ".join(f"#{tag}" for tag in run.tags)
    note = f"\u201c{run.notes}\u201d" if run.notes else ""
    # unified_rw_reporting: fio's one "mixed" direction, shown as such (never as a read)
    mixed = _sections(run.mixed_iops, fmt.iops) if any(v is not None for v in run.mixed_iops) else ""
    # Every text read back from the index is made terminal-safe here too (one run, one line).
    return [
        date, terminal_safe(run.status), terminal_safe(run.title or run.preset), _where(run),
        _sections(run.read_iops, fmt.iops), _sections(run.write_iops, fmt.iops), _sections(run.p99_ns, fmt.latency_ns),
        mixed, terminal_safe("  ".join(part for part in (tags, note) if part)),
    ]


def _table(runs: list[IndexedRun], width: int | None) -> list[str]:
    """The runs as one table fitted to ``width``; a column nobody has (mixed IOPS, tags) is left out.
    A file that is not a record is a sentence of its own under the table, its name and why in full."""
    bad = [line for run in runs if run.error
           for line in wrap(f"{terminal_safe(run.path.name)}: {terminal_safe(run.error)}", width, " " * 4, f"{'?':16}  bad file  ")]
    runs = [run for run in runs if not run.error]
    if not runs:
        return bad
    rows = [_cells(run) for run in runs]
    present = [i for i in range(len(_COLUMNS)) if i < 7 or any(row[i] for row in rows)]
    columns = [_COLUMNS[i] for i in present]
    steps = [Step(step.kind, present.index(step.column)) for step in _STEPS if step.column in present]
    return fit_table(columns, [[row[i] for i in present] for row in rows], width, steps) + bad


def _where(run: IndexedRun) -> str:
    """The target, or for a run on hosts ``2 hosts: h1,h2`` cut to 24 characters."""
    where = terminal_safe(run.where())
    if not run.hosts:
        return where
    return where if len(where) <= 24 else where[:23] + "…"


def _sections(values: tuple, formatter) -> str:
    """One figure per section (fio's reporting group), never a sum across them."""
    cells = [formatter(value) for value in values]
    return "|".join(cells) if cells and any(cell != fmt.NO_VALUE for cell in cells) else fmt.NO_VALUE


def handle(args: argparse.Namespace) -> int:
    return _history(HistoryOptions.from_namespace(args))


def _history(options: HistoryOptions) -> int:
    try:
        older_than_s = parse_age(options.older_than) if options.older_than else None
    except ValueError as error:
        print(f"iotui: --older-than {error}", file=sys.stderr)
        return EXIT_USAGE
    if options.prune and older_than_s is None and options.preset is None:
        print("iotui: --prune deletes runs selected by --older-than AGE and/or --preset NAME; give at least one.",
              file=sys.stderr)
        return EXIT_USAGE
    runs_dir = runs_dir_path(options.runs_dir)
    try:
        synced = sync(runs_dir, progress=_progress if sys.stderr.isatty() and not options.json_output else None)
    except HistoryIndexError as error:
        print(_index_error(error), file=sys.stderr)
        return EXIT_FAILED
    except OSError as error:
        print(f"iotui: cannot read the runs directory {runs_dir} ({error.strerror or error}).", file=sys.stderr)
        return EXIT_FAILED
    if synced.not_used is not None and synced.not_used in NOT_USED_WORDS:
        print(f"iotui: {NOT_USED_WORDS[synced.not_used].format(runs_dir=runs_dir, index=INDEX_FILE_NAME)}", file=sys.stderr)
    if synced.cold and sys.stderr.isatty():
        print(f"\rindexed {synced.total} records in {synced.seconds:.1f} s" + " " * 20, file=sys.stderr)
    run_filter = RunFilter(
        tuple(word.lower() for word in options.words), preset=options.preset, status=options.status, tag=options.tag,
        older_than_s=older_than_s,
    )
    try:
        runs, total = query(runs_dir, run_filter, limit=None if options.prune else options.limit)
    except HistoryIndexError as error:
        print(_index_error(error), file=sys.stderr)
        return EXIT_FAILED
    if options.prune:
        return _prune(options, runs, run_filter)
    if options.json_output:
        print(json.dumps({"runs_dir": str(runs_dir), "matched": total, "runs": [run.to_json_dict() for run in runs]}, indent=2))
        return EXIT_OK
    if not runs:
        print(f"No saved runs in {runs_dir} match." if total == 0 and synced.total else f"No saved runs in {runs_dir}.")
        return EXIT_OK
    for line in _table(runs, options.width):
        print(line)
    if total > len(runs):
        print(f"({len(runs)} of {total} shown; drop --limit to see all)")
    return EXIT_OK


NOT_USED_WORDS: dict[IndexNotUsed, str] = {
    "not-own-index": "the history index {index} in {runs_dir} is another user's or writable by others, so it was "
    "not used; the runs were listed from their records (remove that file to let iotui keep its own).",
    "shared-directory": "the runs directory {runs_dir} can be changed by other users, so its history index was not "
    "used; the runs were listed from their records.",
    "disk-full": "the disk holding {runs_dir} is full, so the history index could not be written; the runs were "
    "listed from their records (free some space to keep the index).",
}
"""Why the index file was not used, worded for the command line (a read-only directory needs no word)."""


def _index_error(error: HistoryIndexError) -> str:
    """The index file's failure as one sentence with what to do."""
    if error.code == "busy":
        return (f"iotui: the history index {error.path} is busy (another iotui is writing it); "
                "try again in a moment.")
    if error.code == "full":
        return f"iotui: the disk holding {error.path.parent} is full; free some space and try again."
    if error.code == "corrupt":
        return f"iotui: the history index {error.path} is damaged and could not be made again; remove it and try again."
    return f"iotui: the history index {error.path} cannot be used ({terminal_safe(error.detail)}); remove it and try again."


def _progress(done: int, total: int) -> None:
    print(f"\rindexing the runs directory: {done} of {total} records", end="", file=sys.stderr, flush=True)


def _prune(options: HistoryOptions, runs: list[IndexedRun], run_filter: RunFilter) -> int:
    # The index chose the runs; each is read again from its own file before anything is deleted.
    runs, changed = still_matching(runs_dir_path(options.runs_dir), runs, run_filter)
    if changed:
        one = len(changed) == 1
        print(f"iotui: kept {len(changed)} {'run' if one else 'runs'} that the history index selected but "
              f"{'whose record no longer matches' if one else 'whose records no longer match'} the selection.",
              file=sys.stderr)
    if not runs:
        print(json.dumps({"pruned": [], "failed": []}) if options.json_output else "No saved runs match; nothing to delete.")
        return EXIT_OK
    if not options.yes:
        if options.json_output:
            print(json.dumps({"would_prune": [run.to_json_dict() for run in runs], "pruned": []}, indent=2))
        else:
            for line in _table(runs, options.width):
                print(line)
            print(f"{len(runs)} runs would be deleted (each record and its fio report); "
                  "run the same command with --yes to delete them.")
        return EXIT_OK
    deleted = delete_records(run.path for run in runs)
    try:
        sync(runs_dir_path(options.runs_dir))
    except (HistoryIndexError, OSError):
        pass  # the records are deleted; the next History brings the index up to date
    if options.json_output:
        print(json.dumps({"pruned": [str(run.path) for run in runs if run.path in deleted.removed],
                          "failed": [{"path": str(path), "error": why} for path, why in deleted.failed]}, indent=2))
    else:
        print(f"Deleted {sum(1 for run in runs if run.path in deleted.removed)} runs.")
        for path, why in deleted.failed:
            print(f"iotui: could not delete {path} ({why}).", file=sys.stderr)
    return EXIT_FAILED if deleted.failed else EXIT_OK
