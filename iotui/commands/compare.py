"""``iotui compare A.toml B.toml [C ...]``: side by side, deltas against A, noise-aware verdicts."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

from iotui.cli_options import add_wide_option, flag, output_width, text, texts
from iotui.commands import EXIT_FAILED, EXIT_OK, EXIT_USAGE
from iotui.commands.record_args import add_runs_dir_option, load_record_args, references_listing, runs_dir_path
from iotui.core.remote.split import per_host
from iotui.core.compare.compare import compare_records
from iotui.core.compare.answers import repeat_groups_beside
from iotui.core.compare.render import comparison_markdown, comparison_text
from iotui.core.records.schema import RecordError


@dataclass(frozen=True)
class CompareOptions:
    """``iotui compare``'s options: the records as named, how to print them, where the runs are."""

    records: tuple[str, ...] = ()
    output_format: str = "text"
    plot: bool = False
    per_host: bool = False
    list_references: bool = False
    runs_dir: str | None = None
    width: int | None = None
    """The width the text table is fitted to; None prints every column in full."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> CompareOptions:
        values = vars(namespace)
        return cls(
            records=texts(values, "records"), output_format=text(values, "output_format") or "text",
            plot=flag(values, "plot"), per_host=flag(values, "per_host"),
            list_references=flag(values, "list_references"), runs_dir=text(values, "runs_dir"),
            width=output_width(values),
        )


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="compare saved runs, imports and published references side by side",
        description="Compare runs against the first one: IOPS, bandwidth, latency (mean, p50, p99, "
        "p99.9), CPU, IOPS per core, context switches/s and responsiveness, with delta, delta %% and a "
        "verdict (better, worse, same within noise). RECORD is a .toml file, a record's name in the "
        "runs directory, or ref:NAME[:ROW] for a published reference (every row, or one).",
    )
    parser.add_argument("records", nargs="*", metavar="RECORD", help="runs to compare; the first is the baseline")
    parser.add_argument("--format", choices=("text", "markdown", "json"), default="text", dest="output_format")
    parser.add_argument("--plot", action="store_true", help="draw IOPS and p99 over time, and bars of the summaries")
    parser.add_argument(
        "--per-host", action="store_true",
        help="a multi-host run as its aggregate and then each host, as separate runs",
    )
    parser.add_argument("--list-references", action="store_true", help="list the published references and exit")
    add_wide_option(parser)
    add_runs_dir_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return _compare(CompareOptions.from_namespace(args))


def _compare(options: CompareOptions) -> int:
    if options.list_references:
        sys.stdout.write(references_listing())
        return EXIT_OK
    if options.plot and options.output_format == "json":
        print("--plot draws on the terminal; it cannot be combined with --format json.", file=sys.stderr)
        return EXIT_USAGE
    if not options.records:
        print("Name at least two runs to compare (files, names in the runs directory, or ref:NAME).", file=sys.stderr)
        return EXIT_USAGE
    records, errors = load_record_args(options.records, runs_dir_path(options.runs_dir), expand_reference_rows=True)
    for error in errors:
        print(error, file=sys.stderr)
    if options.per_host:
        records = per_host(records)
    if len(records) < 2:
        if not errors:
            print("Comparing needs at least two runs; name another one (or a reference, ref:NAME).", file=sys.stderr)
        return EXIT_FAILED
    try:
        comparison = compare_records(records, repeat_groups_beside(records, runs_dir_path(options.runs_dir)))
    except (RecordError, ValueError) as error:
        print(f"Cannot compare these runs: {error}", file=sys.stderr)
        return EXIT_FAILED
    if options.output_format == "json":
        sys.stdout.write(json.dumps(comparison.to_json_dict(), indent=2, ensure_ascii=False) + "\n")
    elif options.output_format == "markdown":
        sys.stdout.write(comparison_markdown(comparison))
    else:
        sys.stdout.write(comparison_text(comparison, options.width))
    if options.plot:
        from iotui.commands.compare_plot import render_plots

        sys.stdout.write("\n" + render_plots(comparison))
    return EXIT_FAILED if errors else EXIT_OK
