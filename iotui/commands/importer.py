"""``iotui import FILE|DIR...``: fio results from anywhere become run records (status "imported")."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TextIO
from dataclasses import dataclass
from pathlib import Path

from iotui.cli_options import text, texts
from iotui.commands import EXIT_FAILED, EXIT_OK
from iotui.commands.record_args import add_runs_dir_option, runs_dir_path
from iotui.core import format as fmt
from iotui.core.records.importer import ImportRefused, import_fio_runs
from iotui.core.records.history_index import IndexBatch
from iotui.core.records.record import RunRecord, section_directions
from iotui.core.records.files import record_file_name, sync_paths
from iotui.core.records.schema import RecordError
from iotui.core.terminal_text import terminal_safe


@dataclass(frozen=True)
class ImportOptions:
    """``iotui import``'s options: the files and directories as named, and the runs directory they go to."""

    files: tuple[str, ...] = ()
    runs_dir: str | None = None

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> ImportOptions:
        values = vars(namespace)
        return cls(files=texts(values, "files"), runs_dir=text(values, "runs_dir"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import",
        help="turn fio output (JSON, json+, the normal text report, terse) into run records",
        description="Import fio results: JSON or json+ from fio 2.x or 3.x (also client/server output and "
        "--status-interval captures, with any text around the JSON), fio's normal text report or its terse "
        "lines (--minimal, terse versions 2 to 5). Each fio run becomes one record with status 'imported' "
        "in the runs directory, one section per reporting group. A DIR is read whole: every regular file "
        "under it, recursively (symbolic links are not followed). A file that cannot be imported is named on "
        "stderr with the reason; the others still import. Exit 1 if any file failed.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE|DIR", help="fio output files, or directories of them")
    add_runs_dir_option(parser)
    parser.set_defaults(handler=handle)


def _summary_line(record: RunRecord) -> str:
    parts = []
    for index, section in enumerate(record.sections):
        for direction in section_directions(section):
            table = section[direction]
            where = f"{section.get('name')} " if len(record.sections) > 1 else ""
            parts.append(
                f"{where}{direction} {fmt.iops(table.get('iops'))} IOPS {fmt.bytes_per_s(table.get('bw_bytes'))} "
                f"p99 {fmt.latency_ns(table.get('lat_p99_ns'))}"
            )
        if index >= 7 and len(record.sections) > 9:
            parts.append(f"... {len(record.sections) - index - 1} more sections")
            break
    return "; ".join(parts)


def _files_under(root: Path) -> tuple[list[Path], list[str]]:
    """Every regular file under ``root``, sorted, without following symbolic links; and what was skipped.

    A stack, not recursion (``os.walk`` recurses on Python 3.11): a directory 1,000 levels deep is walked
    like any other."""
    found: list[Path] = []
    skipped: list[str] = []
    folders = [str(root)]
    while folders:
        folder = folders.pop()
        try:
            with os.scandir(folder) as entries:
                listed = sorted((entry.name, entry) for entry in entries)
        except OSError as error:
            skipped.append(f"{error.filename or folder}: cannot read the directory ({error.strerror or error}).")
            continue
        below = []
        for _, entry in listed:
            try:
                if entry.is_dir(follow_symlinks=False):
                    below.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    found.append(Path(entry.path))
            except OSError:
                continue
        folders.extend(reversed(below))  # the first folder by name is walked next, as os.walk did
    return found, skipped


def _say(text: str, stream: TextIO) -> None:
    """One line for the terminal: a file's name (or fio's text) can hold escape sequences."""
    print(terminal_safe(text), file=stream)


class _Progress:
    """``N of M files`` on stderr about once a second while a directory imports (never for a few files)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.shown_at = time.monotonic()

    def step(self, done: int, saved: int) -> None:
        now = time.monotonic()
        if self.total >= 20 and (now - self.shown_at >= 1.0 or done == self.total):
            self.shown_at = now
            print(f"import: {done} of {self.total} files read, {saved} runs saved", file=sys.stderr, flush=True)


def handle(args: argparse.Namespace) -> int:
    return _import(ImportOptions.from_namespace(args))


def _import(options: ImportOptions) -> int:
    runs_dir = runs_dir_path(options.runs_dir)
    failed = False
    files: list[Path] = []
    for argument in options.files:
        path = Path(argument)
        if path.is_dir():
            found, skipped = _files_under(path)
            for sentence in skipped:
                _say(sentence, sys.stderr)
            failed = failed or bool(skipped)
            files.extend(found)
        else:
            files.append(path)
    progress = _Progress(len(files))
    written: list[Path] = []
    # One index connection for the lot (a commit per chunk, the rest at the end, also when
    # interrupted), and one syncfs: each saved record is in History's index when the command ends.
    try:
        with IndexBatch(runs_dir) as index:
            failed = _import_files(files, runs_dir, index, progress, written) or failed
    finally:
        sync_paths(written)  # once for the lot: see sync_paths
    return EXIT_FAILED if failed else EXIT_OK


def _import_files(files: list[Path], runs_dir: Path, index: IndexBatch, progress: _Progress, written: list[Path]) -> bool:
    """Import each file into ``runs_dir``, appending every file written to ``written``; True if any failed."""
    failed = False
    saved = 0
    for done, file_name in enumerate(files, start=1):
        try:
            runs = import_fio_runs(file_name)
        except ImportRefused as refusal:
            _say(str(refusal), sys.stderr)
            failed = True
            progress.step(done, saved)
            continue
        for run in runs:
            existed = (runs_dir / record_file_name(run.record)).exists()
            try:
                path = index.save(run.record, fio_report=run.fio_report, durable=False)
            except RecordError as error:
                _say(f"{file_name}: {error}", sys.stderr)
                failed = True
                continue
            saved += 1
            written.append(path)
            if run.record.report:
                written.append(runs_dir / run.record.report)
            again = " (imported before; replaced)" if existed else ""
            _say(f"{file_name} -> {path}{again}: {run.record.run.get('title')}: {_summary_line(run.record)}", sys.stdout)
            for warning in run.record.warnings:
                if warning["code"] != "fio-message":
                    _say(f"  warning: {warning['message']}", sys.stdout)
        progress.step(done, saved)
    return failed
