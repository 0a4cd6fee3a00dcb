"""The ``x`` key of Results, Compare and the sweep view: write ``iotui report``'s page, say where.

Drawing the charts takes a moment, so the page is made in a worker thread; only
its sentence comes back to the screen (``call_from_thread``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from textual.screen import Screen

from iotui.ui.services import ServiceError


def write_report_in_background(screen: Screen, write: Callable[[], Path]) -> None:
    """Run ``write`` (a Services.write_report call) off the event loop and notify where the page went."""
    screen.notify("Writing the report (HTML with charts)…", title="Report", timeout=3)

    def work() -> None:
        try:
            path = write()
        except ServiceError as error:
            screen.app.call_from_thread(screen.notify, str(error), title="Report", severity="error", timeout=10, markup=False)
            return
        screen.app.call_from_thread(screen.notify, f"Wrote the report to {path}; open it in a browser.", title="Report",
                                    timeout=10, markup=False)

    screen.run_worker(work, thread=True, group="report", exclusive=True, exit_on_error=False)
