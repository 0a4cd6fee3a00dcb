"""``iotui presets``: the presets, what each runs and what it tells you."""

from __future__ import annotations

import argparse
import json
import sys

from iotui import format as fmt
from iotui.core import presets


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("presets", help="list the presets", description="List shipped and user presets.")
    parser.add_argument("--json", action="store_true", help="print as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    found, errors = presets.list_presets()
    found.sort(key=lambda p: p.name)
    if args.json:
        print(json.dumps([
            {
                "name": p.name, "title": p.title, "description": p.description, "tells": p.tells,
                "source": str(p.source) if p.source else None,
                "estimated_duration_s": presets.estimate(p)[0], "disk_bytes": presets.estimate(p)[1],
                "sweep": p.sweep,
            }
            for p in found
        ], indent=2))
    else:
        width = max((len(p.name) for p in found), default=10)
        for preset in found:
            duration_s, disk_bytes = presets.estimate(preset)
            print(f"{preset.name:<{width}}  {preset.description}")
            print(f"{'':<{width}}  ~{fmt.duration_s(duration_s)}, {fmt.size_bytes(disk_bytes)} on disk. {preset.tells}")
    for error in errors:
        print(f"iotui: {error}", file=sys.stderr)
    return 1 if errors and not found else 0
