"""``iotui presets``: the presets, what each runs and what it tells you."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass

from iotui.cli_options import add_wide_option, flag, output_width
from iotui.core import format as fmt
from iotui.core.sweep.plan import preset_estimate
from iotui.core.presets.files import list_presets
from iotui.core.table import wrap


@dataclass(frozen=True)
class PresetsOptions:
    """``iotui presets``'s options: whether to print the list as JSON."""

    json_output: bool = False
    width: int | None = None
    """The width the descriptions are wrapped to; None prints each on one line."""

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> PresetsOptions:
        return cls(json_output=flag(vars(namespace), "json"), width=output_width(vars(namespace)))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("presets", help="list the presets", description="List shipped and user presets.")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    add_wide_option(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return _list(PresetsOptions.from_namespace(args))


def _list(options: PresetsOptions) -> int:
    found, errors = list_presets()
    found.sort(key=lambda p: p.name)
    if options.json_output:
        rows = []
        for preset in found:
            duration_s, disk_bytes = preset_estimate(preset)
            rows.append({
                "name": preset.name, "title": preset.title, "description": preset.description,
                "tells": preset.tells, "source": str(preset.source) if preset.source else None,
                "estimated_duration_s": duration_s, "disk_bytes": disk_bytes, "sweep": preset.sweep,
            })
        print(json.dumps(rows, indent=2))
    else:
        width = max((len(p.name) for p in found), default=10)
        for preset in found:
            duration_s, disk_bytes = preset_estimate(preset)
            # Past 30 characters of names (or on a narrow terminal) the text starts under the name instead.
            indent = " " * (width + 2) if options.width is None or width + 2 <= min(30, options.width // 3) else "    "
            first = f"{preset.name:<{width}}  " if len(indent) > 4 else None
            if first is None:
                print(preset.name)
            for line in wrap(preset.description, options.width, indent, first):
                print(line)
            # A duration nobody can know (fio ends a steady-state run itself) is left out, as in the app.
            known = [f"~{fmt.duration_s(duration_s)}"] if duration_s is not None else []
            known += [f"{fmt.size_bytes(disk_bytes)} on disk"] if disk_bytes is not None else []
            for line in wrap(f"{', '.join(known)}{'. ' if known else ''}{preset.tells}", options.width, indent):
                print(line)
    for error in errors:
        print(f"iotui: {error}", file=sys.stderr)
    return 1 if errors and not found else 0
