"""``--json-stream`` and ``--metrics``: the stream's lines on standard output, one JSON object a
line, flushed as written, and the same events as Prometheus metrics.

The lines come from :class:`~iotui.core.stream.translate.StreamTranslator`, the same
events ``iotui.api`` yields. A reader that goes away (a closed pipe: ``| head -n 3``)
stops the run as a stop would, the record saved with ``ended_by = "stream-closed"``.
"""

from __future__ import annotations

import os
import sys
from typing import Callable, TextIO

from iotui.cli_common import CommandError
from iotui.core.stream.events import StreamEvent, to_line
from iotui.commands.metrics_words import MetricsRefused, open_metrics_server
from iotui.core.stream.metrics import MetricsServer
from iotui.core.stream.translate import StreamTranslator

def open_metrics(text: str | None) -> MetricsServer | None:
    """The metrics server ``--metrics`` asks for (None without it); a refusal is one sentence."""
    if text is None:
        return None
    try:
        return open_metrics_server(text)
    except MetricsRefused as error:
        raise CommandError(str(error)) from None


class JsonStreamOut:
    """Hands the stream events of one run or sweep to the JSON lines and the metrics (either may be
    off); events before ``start`` wait for it."""

    def __init__(
        self, *, sweep: bool = False, out: TextIO | None = None, write_json: bool = True,
        metrics: MetricsServer | None = None,
    ) -> None:
        self.translator = StreamTranslator(sweep=sweep)
        self.write_json = write_json
        self.metrics = metrics
        self.out = out or sys.stdout
        self.closed = False
        self.on_closed: Callable[[], None] = lambda: None
        self._waiting: list[object] | None = []

    def begin(self, events: list[StreamEvent], on_closed: Callable[[], None]) -> None:
        """Write ``start`` (and what it brings), then whatever came before it."""
        self.on_closed = on_closed
        self.write(events)
        waiting, self._waiting = self._waiting or [], None
        for event in waiting:
            self(event)

    def __call__(self, event: object) -> None:
        """A session's or sweep's event: its stream lines, if it makes any."""
        if self._waiting is not None:
            self._waiting.append(event)
            return
        self.write(self.translator.translate(event))

    def write(self, events: list[StreamEvent]) -> None:
        if self.metrics is not None:
            for event in events:
                self.metrics.observe(event)
        if not self.write_json or self.closed or not events:
            return
        try:
            self.out.write("".join(to_line(event) + "\n" for event in events))
            self.out.flush()
        except BrokenPipeError:
            self._closed()

    def _closed(self) -> None:
        """The reader went away: no more lines, and the run stops (said once on stderr)."""
        self.closed = True
        try:
            # What is still buffered would fail again when Python flushes at exit.
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self.out.fileno())
            os.close(devnull)
        except (OSError, ValueError):
            pass
        print("iotui: the --json-stream reader closed its end; stopping the run (the record is kept).",
              file=sys.stderr, flush=True)
        self.on_closed()

    def close(self) -> None:
        """Stop serving the metrics (the run is over)."""
        if self.metrics is not None:
            self.metrics.close()
