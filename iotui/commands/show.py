"""``iotui show RECORD``: a saved run's summary."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from iotui.cli_options import add_wide_option, flag, output_width, text, texts
from iotui.commands.record_args import add_runs_dir_option, record_path, runs_dir_path
from iotui.commands.run_summary import print_summary
from iotui.commands.remote_summary import print_remote_summary
from iotui.core.records.files import load_record
from iotui.core.records.schema import RecordError
from iotui.core.sweep import SWEEP_SUFFIX


@dataclass(frozen=True)
class ShowOptions:
    """``iotui show``'s options: the record files as named, and whether to print them as JSON."""

    records: tuple[str, ...] = ()
    runs_dir: str | None = None
    json_output: bool = False
    width: int | None = None
    """The width the summary and a sweep's table are fitted to (None: every column in full)."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> ShowOptions:
        values = vars(namespace)
        return cls(records=texts(values, "record"), json_output=flag(values, "json"), runs_dir=text(values, "runs_dir"),
                   width=output_width(values))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("show", help="print a saved run's summary", description="Print a saved run record's summary.")
    parser.add_argument("record", nargs="+", help="record file(s) (.toml), or sweep records (.sweep.toml)")
    parser.add_argument("--json", action="store_true", help="print the whole record as JSON")
    add_runs_dir_option(parser)
    add_wide_option(parser)
    parser.set_defaults(handler=handle)


def _show_sweep(name: str, as_json: bool, width: int | None) -> bool:
    """A sweep record: what ``iotui sweep`` printed at its end (``--json``: its JSON document). False on failure."""
    from iotui.core.sweep.analysis import analyze
    from iotui.core.sweep.output import sweep_json, sweep_text
    from iotui.core.sweep.record import SweepRecordError, load_sweep

    try:
        sweep = load_sweep(Path(name))
    except SweepRecordError as error:
        print(f"iotui: {error}", file=sys.stderr)
        return False
    if [axis.key for axis in sweep.axes] == ["remedy"]:  # an `iotui remedy` run: its table and verdict
        from iotui.commands.remedy import show_remedy

        show_remedy(sweep, as_json, width)
        return True
    analysis = analyze(sweep.results(), sweep.axes)
    print(json.dumps(sweep_json(sweep, analysis), indent=2) if as_json else sweep_text(sweep, analysis, width))
    return True


def handle(args: argparse.Namespace) -> int:
    return _show(ShowOptions.from_namespace(args))


def _show(options: ShowOptions) -> int:
    failed = False
    runs_dir = runs_dir_path(options.runs_dir)
    for argument in options.records:
        # A record's name as completion offers it (its file name in the runs directory), as compare takes it.
        found = record_path(argument, runs_dir)
        name = str(found) if found is not None else argument
        if name.endswith(SWEEP_SUFFIX):
            failed = not _show_sweep(name, options.json_output, options.width) or failed
            continue
        try:
            record = load_record(Path(name))
        except RecordError as error:
            print(f"iotui: {error}", file=sys.stderr)
            failed = True
            continue
        if options.json_output:
            print(json.dumps(record.to_json_dict(), indent=2))
        else:
            # A multi-host run: the aggregate, then each host.
            if record.hosts and record.status != "imported":
                print_remote_summary(record, record.path, width=options.width)
            else:
                print_summary(record, record.path, width=options.width)
    return 1 if failed else 0
