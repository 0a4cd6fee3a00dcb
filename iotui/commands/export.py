"""``iotui export RECORD... --format markdown|csv|json``: tables like the studies'."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from iotui.commands.record_args import add_runs_dir_option, load_record_args, references_listing, runs_dir_from
from iotui.core.records.export import FORMATS, export_records
from iotui.core.remote.split import per_host
from iotui.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE



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
    parser.add_argument("-o", "--output", metavar="FILE", help="write the table to FILE instead of stdout")
    parser.add_argument(
        "--per-host", action="store_true",
        help="a multi-host run as its aggregate and then each host, as separate runs",
    )
    parser.add_argument("--list-references", action="store_true", help="list the published references and exit")
    add_runs_dir_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    if args.list_references:
        sys.stdout.write(references_listing())
        return EXIT_OK
    if not args.records:
        print("Name the runs to export (files, names in the runs directory, or ref:NAME).", file=sys.stderr)
        return EXIT_USAGE
    records, errors = load_record_args(args.records, runs_dir_from(args), expand_reference_rows=False)
    for error in errors:
        print(error, file=sys.stderr)
    if not records:
        return EXIT_FAILED
    if args.per_host:
        records = per_host(records)
    text = export_records(records, args.output_format)
    if args.output:
        try:
            Path(args.output).write_text(text, encoding="utf-8")
        except OSError as error:
            print(f"{args.output}: cannot write the table ({error.strerror or error}).", file=sys.stderr)
            return EXIT_FAILED
        print(f"Wrote {len(text.splitlines())} lines to {args.output}.", file=sys.stderr)
    else:
        sys.stdout.write(text)
    return EXIT_FAILED if errors else EXIT_OK
