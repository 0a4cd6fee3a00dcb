"""``iotui`` with no subcommand: the Textual app. The only module that imports the UI.

The headless commands never import this module, so they never load Textual.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from iotui.cli_options import AppOptions


def run_app(options: AppOptions) -> int:
    """Open the app with ``--target`` / ``--preset`` chosen when given; return the exit code."""
    # Not cli_common: it imports the whole run machinery, which the app loads only when a run starts.
    from iotui.core.runs.paths import default_runs_dir
    from iotui.ui.app import IotuiApp
    from iotui.ui.services import Services

    runs_dir = Path(options.runs_dir).expanduser() if options.runs_dir else default_runs_dir()
    from iotui.web import BROWSER_CLIENT, CLIENT_ENV

    in_browser = os.environ.get(CLIENT_ENV) == BROWSER_CLIENT
    services = Services(
        runs_dir=runs_dir, fio=options.fio, lock_by="the app in a browser" if in_browser else "the app"
    )
    if options.metrics is not None:
        from iotui.commands.metrics_words import MetricsRefused, open_metrics_server

        try:
            services.metrics = open_metrics_server(options.metrics)
        except MetricsRefused as error:
            print(f"iotui: {error}", file=sys.stderr)
            return 1
    app = IotuiApp(services, target=options.target, preset=options.preset)
    try:
        result = app.run()
    finally:
        if services.metrics is not None:
            services.metrics.close()
    if app.terminal_lost or app.ended_by_signal:
        leave_at_once(int(app.return_code or result or 0))
    if app.return_code not in (None, 0):
        print("iotui: the app stopped on an error (see above).", file=sys.stderr)
        return int(app.return_code or 1)
    return int(result or 0)


def leave_at_once(code: int) -> None:
    """Exit now, after a signal or with the terminal gone: every record is saved, every test
    file removed, the terminal restored where there is one.

    The interpreter's own teardown (a last collection over everything the app made) took
    seconds on a busy machine, while whoever sent the signal waits; the exit functions
    (those that end a fio still alive) still run, and what is buffered is written.
    """
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # a terminal that is gone, a closed stream
            pass
    os._exit(code)
