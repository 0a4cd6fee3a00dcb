"""Headless subcommands. Each module exposes ``register(subparsers)``."""

COMMANDS: dict[str, str] = {
    "run": "run", "presets": "presets", "show": "show", "sweep": "sweep", "remedy": "remedy", "compare": "compare",
    "import": "importer", "export": "export", "serve": "serve", "history": "history", "report": "report",
    "completion": "completion",
}
"""Each subcommand's word and the module (in this package) that registers it, in ``--help``'s order."""

# Exit codes every subcommand uses.
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130

STREAM_CLOSED = "stream-closed"
"""A run's or a sweep's ``ended_by`` when the reader of its ``--json-stream`` went away."""
