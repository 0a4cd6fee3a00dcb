"""``iotui`` with no subcommand: the Textual app. The only module that imports the UI.

The headless commands never import this module, so they never load Textual.
"""

from __future__ import annotations

import argparse
import sys

from iotui.cli_common import resolve_runs_dir


def run_app(args: argparse.Namespace) -> int:
    """Open the app with ``--target`` / ``--preset`` chosen when given; return the exit code."""
    from iotui.ui.app import IotuiApp
    from iotui.ui.services import Services

    services = Services(runs_dir=resolve_runs_dir(args), fio=getattr(args, "fio", None))
    app = IotuiApp(services, target=getattr(args, "target", None), preset=getattr(args, "preset", None))
    result = app.run()
    if app.return_code not in (None, 0):
        print("iotui: the app stopped on an error (see above).", file=sys.stderr)
        return int(app.return_code or 1)
    return int(result or 0)
