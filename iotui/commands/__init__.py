"""Headless subcommands. Each module exposes ``register(subparsers)``."""

COMMAND_MODULES: tuple[str, ...] = (
    "run", "presets", "show", "sweep", "remedy", "compare", "importer", "export", "serve", "history", "report",
    "completion",
)

# Exit codes every subcommand uses.
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
