"""``iotui report FILE... [-o OUT.html]``: runs, their comparison or a sweep as one HTML page to share."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

from iotui import cli_options
from iotui.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from iotui.commands.record_args import add_runs_dir_option, load_record_args, runs_dir_path
from iotui.core.report.charts import INSTALL_HINT
from iotui.core.report.charts import available as charts_available
from iotui.core.report.build import (
    FILE_FORMATS, ReportError, check_output_place, default_charts_dir, default_html_path, require_charts, runs_html_path, runs_report, sweep_report,
    write_chart_files, write_html,
)
from iotui.core.compare.answers import repeat_groups_beside
from iotui.core.compare.compare import compare_records
from iotui.core.records.schema import RecordError
from iotui.core.sweep import SWEEP_SUFFIX
from iotui.core.sweep.record import SweepRecordError, load_sweep


@dataclass(frozen=True)
class ReportOptions:
    """``iotui report``'s options: the records as named, the file format and place, where the runs are."""

    files: tuple[str, ...] = ()
    output: str | None = None
    file_format: str = "html"
    runs_dir: str | None = None

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> ReportOptions:
        values = vars(namespace)
        return cls(
            files=cli_options.texts(values, "files"), output=cli_options.text(values, "output"),
            file_format=cli_options.text(values, "file_format") or "html",
            runs_dir=cli_options.text(values, "runs_dir"),
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write runs, their comparison or a sweep as one HTML page (or the charts as SVG/PNG files)",
        description="One self-contained HTML file (nothing is loaded when it is viewed): the desktop table, "
        "the sections table, per-second IOPS, bandwidth and p99 charts with the responsiveness level under "
        "them, a sweep's curves, a comparison's bars with the noise band, the host and target facts and every "
        "warning. FILE is a run record (.toml, or its name in the runs directory; several are compared, the "
        "first is the baseline) or one sweep record (.sweep.toml). The charts need matplotlib "
        "(pip install 'iotui[report]'); without it the page has every table and a sentence in place of each chart.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="run records, or one sweep record")
    parser.add_argument(
        "-o", "--output", metavar="OUT",
        help="the HTML file (default: beside the first record, as NAME.html; - for standard output); with "
        "--format svg|png, a folder (default: NAME-charts beside the first record). A name that holds anything "
        "but a regular file (/dev/null, a FIFO, a symlink) is refused, never replaced",
    )
    parser.add_argument("--format", choices=FILE_FORMATS, default="html", dest="file_format",
                        help="html (default), or the same charts as svg or png files")
    add_runs_dir_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    options = ReportOptions.from_namespace(args)
    if options.output == "-" and options.file_format != "html":
        print(f"iotui report: --format {options.file_format} writes one file per chart, so it cannot go to standard "
              "output; give -o a folder.", file=sys.stderr)
        return EXIT_USAGE
    try:
        return _report(options)
    except ReportError as error:
        print(_refusal(error, options) if error.refused is not None else str(error), file=sys.stderr)
        return EXIT_FAILED


def _refusal(error: ReportError, options: ReportOptions) -> str:
    """A place the report cannot be written to safely, in the command's terms."""
    refused = error.refused
    assert refused is not None
    if options.file_format == "html":
        return (f"iotui report: {refused.path} is {refused.kind}, not a regular file, so the report was not written; "
                "give -o a file path (or -o - for standard output).")
    if refused.code == "folder-is-symlink":
        return (f"iotui report: the charts folder {refused.path} is a symbolic link, and iotui does not write charts "
                "through a link; remove it or give -o another folder.")
    if refused.code == "not-a-folder":
        return f"iotui report: {refused.path} is {refused.kind}, not a folder; give -o a folder for the charts."
    return (f"iotui report: {refused.path} is {refused.kind}, not a regular file, so no chart was written over it; "
            "remove it or give -o another folder.")


def _require_charts(options: ReportOptions) -> None:
    """Chart files need matplotlib; a page without it holds every table and a sentence per chart."""
    if options.file_format != "html":
        require_charts()
    elif not charts_available():
        print(f"iotui report: matplotlib is not installed, so the page has its tables and a sentence in place of "
              f"each chart; add the charts with {INSTALL_HINT}.", file=sys.stderr)


def _report(options: ReportOptions) -> int:
    if options.output and options.output != "-":
        check_output_place(Path(options.output).expanduser(), options.file_format)
    sweeps = [name for name in options.files if name.endswith(SWEEP_SUFFIX)]
    inline = options.file_format == "html"
    if sweeps:
        if len(options.files) > 1:
            print("A sweep's report stands alone: give the sweep record by itself (or run records without it).", file=sys.stderr)
            return EXIT_USAGE
        given = Path(sweeps[0]).expanduser()
        in_runs_dir = runs_dir_path(options.runs_dir) / sweeps[0]
        try:
            sweep = load_sweep(given if given.is_file() or not in_runs_dir.is_file() else in_runs_dir)
        except SweepRecordError as error:
            raise ReportError(str(error)) from None
        assert sweep.path is not None
        _require_charts(options)  # after the records load: a mistyped name is the first thing to fix
        first, errors = sweep.path, list[str]()
        text, specs = sweep_report(sweep, inline=inline)
    else:
        records, errors = load_record_args(options.files, runs_dir_path(options.runs_dir), expand_reference_rows=len(options.files) > 1)
        for problem in errors:
            print(problem, file=sys.stderr)
        if not records:
            return EXIT_FAILED
        _require_charts(options)
        comparison = None
        if len(records) > 1:
            try:
                comparison = compare_records(records, repeat_groups_beside(records, runs_dir_path(options.runs_dir)))
            except (RecordError, ValueError) as error:
                raise ReportError(f"Cannot compare these runs: {error}") from None
        text, specs = runs_report(records, comparison, inline=inline)
        html_path = runs_html_path(records, Path.cwd())
        first = html_path.with_suffix(".toml")
    try:
        if options.file_format == "html" and options.output == "-":
            sys.stdout.write(text)
        elif options.file_format == "html":
            path = write_html(text, Path(options.output).expanduser() if options.output else default_html_path(first))
            print(f"Wrote the report to {path}", file=sys.stderr)
        else:
            folder = Path(options.output).expanduser() if options.output else default_charts_dir(first)
            written = write_chart_files(specs, folder, options.file_format)
            print(f"Wrote {len(written)} charts to {folder}", file=sys.stderr)
    except ReportError as error:
        raise ReportError(f"{error} Choose another place with -o.", error.refused) from None
    return EXIT_FAILED if errors else EXIT_OK
