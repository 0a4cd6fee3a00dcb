"""Headless subcommands. Each module exposes ``register(subparsers)``."""

COMMAND_MODULES: tuple[str, ...] = ("run", "presets", "show", "sweep", "compare", "importer", "export")
