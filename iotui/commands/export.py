"""``iotui export RECORD... --format markdown|csv|json``: tables like the studies'."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from iotui.cli_options import flag, text, texts
from iotui.commands.record_args import add_runs_dir_option, load_record_args, references_listing, runs_dir_path
from iotui.core.records.export import FORMATS, export_records
from iotui.core.remote.split import per_host
from iotui.core.safe_files import UnsafeFileError, write_file
from iotui.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE


@dataclass(frozen=True)
class ExportOptions:
    """``iotui export``'s options: the records as named, the table's format and file, where the runs are."""

    records: tuple[str, ...] = ()
    output_format: str = "markdown"
    output: str | None = None
    per_host: bool = False
    list_references: bool = False
    runs_dir: str | None = None

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> ExportOptions:
        values = vars(namespace)
        return cls(
            records=texts(values, "records"), output_format=text(values, "output_format") or "markdown",
            output=text(values, "output"), per_host=flag(values, "per_host"),
            list_references=flag(values, "list_references"), runs_dir=text(values, "runs_dir"),
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="print runs as a markdown, CSV or JSON table",
        description="One row per run and direction (one per job for records with several job sections "
        "and for published tables): the settings that differ, BW (MiB/s), IOPS, average latency (µs), "
        "p99 (µs). RECORD is a .toml file, a record's name in the runs directory, or ref:NAME[:ROW].",
    )
    parser.add_argument("records", nargs="*", metavar="RECORD")
    parser.add_argument("--format", choices=FORMATS, default="markdown", dest="output_format")
    parser.add_argument(
        "-o", "--output", metavar="FILE",
        help="write the table to FILE instead of stdout (- for stdout); a FILE that is not a regular file "
        "(/dev/null, a FIFO, a symlink) is refused, never replaced",
    )
    parser.add_argument(
        "--per-host", action="store_true",
        help="a multi-host run as its aggregate and then each host, as separate runs",
    )
    parser.add_argument("--list-references", action="store_true", help="list the published references and exit")
    add_runs_dir_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return _export(ExportOptions.from_namespace(args))


def _export(options: ExportOptions) -> int:
    if options.list_references:
        sys.stdout.write(references_listing())
        return EXIT_OK
    if not options.records:
        print("Name the runs to export (files, names in the runs directory, or ref:NAME).", file=sys.stderr)
        return EXIT_USAGE
    records, errors = load_record_args(options.records, runs_dir_path(options.runs_dir), expand_reference_rows=False)
    for error in errors:
        print(error, file=sys.stderr)
    if not records:
        return EXIT_FAILED
    if options.per_host:
        records = per_host(records)
    table = export_records(records, options.output_format)
    if options.output and options.output != "-":
        try:
            write_file(Path(options.output).expanduser(), table.encode("utf-8"))
        except UnsafeFileError as error:
            print(f"iotui export: {error.path} is {error.kind}, not a regular file, so the table was not written; "
                  "give -o a file path (or leave -o out, or -o -, for standard output).", file=sys.stderr)
            return EXIT_FAILED
        except OSError as error:
            print(f"{options.output}: cannot write the table ({error.strerror or error}).", file=sys.stderr)
            return EXIT_FAILED
        print(f"Wrote {len(table.splitlines())} lines to {options.output}.", file=sys.stderr)
    else:
        sys.stdout.write(table)
    return EXIT_FAILED if errors else EXIT_OK
