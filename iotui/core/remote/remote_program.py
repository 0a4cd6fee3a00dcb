"""The one form of every program iotui runs on a host: a fixed command, the program on stdin.

sshd runs ssh's remote command as ``LOGIN_SHELL -c COMMAND``, and login shells quote in ways
of their own: inside POSIX single quotes a backslash is literal, in fish it escapes the quote,
tcsh and nushell have other rules. A command quoted for sh (``shlex.quote``) can therefore
run something else on a fish host. So the command ssh gets is fixed, ``exec sh -s ROLE``, in
characters every shell reads literally, and the program (a POSIX sh script with its
arguments, quoted for sh alone) is written to sh on its standard input, before anything
else goes there.

The program is one brace group, ending with ``exit``: sh reads the whole group before it runs
any of it (a cut-off program runs nothing), and it never reads another command from stdin,
which the script may go on reading (the lifeline's ``go`` and ``stop`` lines).
"""

from __future__ import annotations

import re
import shlex
import string
from collections.abc import Sequence
from dataclasses import dataclass

NEUTRAL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-_.,:/ ")
"""The characters the fixed command may hold: literal in sh, bash, dash, zsh, fish, tcsh, csh and nushell."""

PAYLOAD_END = "} # iotui: end of the program"
"""The program's last line (it closes the brace group); a test's stand-in ssh skips up to it."""

_ROLE = re.compile(r"iotui-[a-z]+")


@dataclass(frozen=True)
class RemoteProgram:
    """What ssh gets as its remote command, and what iotui writes first to its stdin."""

    command: str
    payload: bytes


def remote_program(role: str, script: str, args: Sequence[str]) -> RemoteProgram:
    """``script`` run by sh on the host with ``args`` as its positional parameters.

    ``role`` (``iotui-lifeline``, ``iotui-preflight``...) names the program in the host's
    process list; the command holds nothing else.
    """
    if not _ROLE.fullmatch(role):
        raise ValueError(f"not a program's role: {role!r}")
    command = f"exec sh -s {role}"
    lines = ["{", " ".join(["set", "--", *(shlex.quote(arg) for arg in args)]), script.strip("\n"), "exit", PAYLOAD_END]
    return RemoteProgram(command, ("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))


def is_shell_neutral(command: str) -> bool:
    """Whether every login shell reads ``command`` as the same words, with nothing to expand.

    Only :data:`NEUTRAL_CHARACTERS` (no ``=``: zsh expands a word starting with it, no ``~``),
    single spaces between words and none at either end, and a command word that is not an option.
    """
    if not command or any(ch not in NEUTRAL_CHARACTERS for ch in command):
        return False
    words = command.split(" ")
    return all(words) and not words[0].startswith("-")
