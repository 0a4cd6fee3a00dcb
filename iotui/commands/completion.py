"""``iotui completion bash|zsh|fish``: the shell hook that completes iotui's subcommands, options,
preset names and record files (argcomplete's own hook, for installs that do not put
argcomplete's ``register-python-argcomplete`` on the PATH, such as pipx)."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass

from iotui.cli_options import text
from iotui.commands import EXIT_OK


@dataclass(frozen=True)
class CompletionOptions:
    """``iotui completion``'s options: the shell to print the hook for."""

    shell: str

    @classmethod
    def from_namespace(cls, namespace: argparse.Namespace) -> CompletionOptions:
        return cls(shell=text(vars(namespace), "shell") or "")


def register(subparsers: argparse._SubParsersAction) -> None:
    from iotui.completion import SHELLS

    parser = subparsers.add_parser(
        "completion",
        help="print the shell completion hook (bash, zsh or fish)",
        description="Print the code that makes SHELL complete iotui. bash: eval \"$(iotui completion bash)\" in "
        "~/.bashrc; zsh: the same with zsh in ~/.zshrc; fish: iotui completion fish > "
        "~/.config/fish/completions/iotui.fish.",
    )
    parser.add_argument("shell", choices=SHELLS)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace) -> int:
    return _print_hook(CompletionOptions.from_namespace(args))


def _print_hook(options: CompletionOptions) -> int:
    from iotui.completion import shell_code

    sys.stdout.write(shell_code(options.shell))
    return EXIT_OK
