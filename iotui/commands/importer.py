"""``iotui import FILE...``: fio results from anywhere become run records (status "imported")."""

from __future__ import annotations

import argparse
import sys

from iotui.commands import EXIT_FAILED, EXIT_OK
from iotui.commands.record_args import add_runs_dir_option, runs_dir_from
from iotui.core import format as fmt
from iotui.core.fio.importer import ImportRefused, import_fio_runs
from iotui.core.runs.record import RunRecord
from iotui.core.runs.history_index import save_indexed
from iotui.core.runs.record_files import record_file_name
from iotui.core.runs.record_schema import RecordError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "import",
        help="turn fio output (JSON, json+, or the normal text report) into run records",
        description="Import fio results: JSON or json+ from fio 2.x or 3.x (also client/server output and "
        "--status-interval captures, with any text around the JSON) or fio's normal text report. Each run "
        "becomes a record with status 'imported' in the runs directory. A file that cannot be imported is "
        "named on stderr with the reason; the others still import. Exit 1 if any file failed.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="fio output files")
    add_runs_dir_option(parser)
    parser.set_defaults(handler=handle)


def _summary_line(record: RunRecord) -> str:
    parts = []
    for direction in record.directions():
        table = record.summary[direction]
        parts.append(
            f"{direction} {fmt.iops(table.get('iops'))} IOPS {fmt.bytes_per_s(table.get('bw_bytes'))} "
            f"p99 {fmt.latency_ns(table.get('lat_p99_ns'))}"
        )
    return "; ".join(parts)


def handle(args: argparse.Namespace) -> int:
    runs_dir = runs_dir_from(args)
    failed = False
    for file_name in args.files:
        try:
            runs = import_fio_runs(file_name)
        except ImportRefused as refusal:
            print(str(refusal), file=sys.stderr)
            failed = True
            continue
        for run in runs:
            existed = (runs_dir / record_file_name(run.record)).exists()
            try:
                path = save_indexed(run.record, runs_dir, fio_report=run.fio_report)
            except RecordError as error:
                print(f"{file_name}: {error}", file=sys.stderr)
                failed = True
                continue
            again = " (imported before; replaced)" if existed else ""
            print(f"{file_name} -> {path}{again}: {run.record.run.get('title')}: {_summary_line(run.record)}")
            for warning in run.record.warnings:
                if warning["code"] != "fio-message":
                    print(f"  warning: {warning['message']}")
    return EXIT_FAILED if failed else EXIT_OK
