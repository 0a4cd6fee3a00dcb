"""The ssh command, the host list and the pre-flight check of each host.

iotui reaches a host only through the user's own ssh: the command is ``ssh``,
``$IOTUI_SSH`` or ``--ssh``, split into words as a shell would (like git's
``GIT_SSH_COMMAND``), always with ``BatchMode=yes`` so ssh never asks for a
password. Nothing listens on a port and no fio server runs.
"""

from __future__ import annotations

import os
import shlex
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from iotui.core.fio.status import MAX_TEXT_LINE_BYTES
from iotui.core.input_files import InputFileError, read_input_file
from iotui.core.terminal_text import terminal_safe

BATCH_MODE = ("-o", "BatchMode=yes")
PREFLIGHT_TIMEOUT_S = 20.0


class RemoteError(Exception):
    """A host that cannot take part; ``host`` names it, str() is what happened.

    ``code`` says which refusal it is, so the command line and the app each add
    what to do in their own terms (a flag, a field): ``target-read-only``,
    ``target-memory``, ``no-hosts``, ``ssh-command`` and the others raised here.
    """

    def __init__(self, code: str, host: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.host = host


def ssh_command(explicit: str | None = None, env: Mapping[str, str] | None = None) -> list[str]:
    """``--ssh``, else ``$IOTUI_SSH``, else ``ssh``; split like a shell; BatchMode forced."""
    env = os.environ if env is None else env
    text = explicit if explicit else env.get("IOTUI_SSH") or "ssh"
    try:
        words = shlex.split(text)
    except ValueError as error:
        raise RemoteError("ssh-command", "", f"The ssh command {text!r} cannot be split into words ({error}).") from None
    if not words:
        raise RemoteError("ssh-command", "", "The ssh command is empty.")
    return [words[0], *BATCH_MODE, *words[1:]]


def parse_hosts(text: str) -> list[str]:
    """``h1,h2`` (or one per line): ssh destinations, in order, each once."""
    hosts: list[str] = []
    for line in text.replace(",", "\n").splitlines():
        host = line.split("#", 1)[0].strip()
        if not host:
            continue
        if host.startswith("-") or any(ch.isspace() for ch in host) or terminal_safe(host) != host:
            raise RemoteError("host-name", host, f"{host!r} is not an ssh destination ([user@]host).")
        if host not in hosts:
            hosts.append(host)
    return hosts


def read_hosts_file(path: Path) -> list[str]:
    """One destination a line; ``#`` starts a comment."""
    try:
        text = read_input_file(path, "hosts file", allow_pipe=True).decode("utf-8")
    except InputFileError as error:
        raise RemoteError("hosts-file", "", str(error)) from None
    except UnicodeDecodeError:
        raise RemoteError("hosts-file", "", f"The hosts file {path} is not UTF-8 text.") from None
    return parse_hosts(text)


def ssh_config_hosts(path: Path | None = None) -> list[str]:
    """The ``Host`` entries of the user's ssh config, without patterns (for picking)."""
    path = path or Path.home() / ".ssh" / "config"
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    names: list[str] = []
    for line in text.splitlines():
        words = line.strip().split()
        if len(words) >= 2 and words[0].lower() == "host":
            for name in words[1:]:
                if not any(ch in name for ch in "*?!") and name not in names:
                    names.append(name)
    return names


def ssh_argv(ssh: list[str], host: str, remote_command: str) -> list[str]:
    """ssh's words, the destination, then one remote command string."""
    return [*ssh, "--", host, remote_command]


# -- pre-flight -----------------------------------------------------------------

# Prints key=value lines about fio, the kernel and the target. Never writes. Each key once; the
# target's real path last, as the hex of its bytes (od), so no name can make a line of its own.
PREFLIGHT_SCRIPT = r"""
t="$1"
[ -n "$t" ] || t="$HOME"
echo "kernel=$(uname -r 2>/dev/null | tr -d '\n')"
awk '$1 == "MemAvailable:" {print "mem_available_kb=" $2}' /proc/meminfo 2>/dev/null
command -v python3 >/dev/null 2>&1 && echo "python3=1"
if v=$(fio --version 2>&1); then k=fio_version; else k=fio_error; fi
printf '%s=%s\n' "$k" "$(printf '%s' "$v" | tr '\n' ' ')"
if cd "$t" 2>/dev/null; then
  [ -w . ] && echo "writable=1"
  df -PTk . 2>/dev/null | awk 'NR==2 {print "device=" $1; print "filesystem=" $2; print "free_kb=" $5; print "mount_point=" $7}'
  df -Pi . 2>/dev/null | awk 'NR==2 {print "inodes_total=" $2; print "inodes_free=" $4}'
  printf 'path_hex=%s\n' "$(pwd -P | od -An -v -tx1 | tr -d ' \n')"
else
  echo "target_error=missing"
fi
"""


@dataclass
class HostFacts:
    """What the pre-flight found on one host."""

    name: str
    tool_version: str
    kernel: str
    path: str
    filesystem: str
    device: str
    mount_point: str
    free_bytes: int | None
    writable: bool
    mem_available_bytes: int | None = None
    """The host's MemAvailable; None where its kernel does not say (the memory check then passes)."""
    python3: bool = False
    """Whether python3 is on the host's PATH (the responsiveness probes run there only then)."""
    free_inodes: int | None = None
    """Free inodes on the target's filesystem (df -Pi); None where it counts none (btrfs, NFS) or df does not say."""


def _parse_facts(host: str, text: str) -> dict[str, str]:
    """The answer's ``key=value`` lines; a key given twice is refused (which one would be the host's?)."""
    facts: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.isidentifier():
            if key in facts:
                raise RemoteError(
                    "facts-twice", host,
                    f"{host}: its pre-flight answer gives {terminal_safe(key)} twice, so none of its facts can be "
                    "trusted (a shell start-up file that prints, or a name that holds a newline).",
                )
            # The host's words reach the terminal and the record: no escape sequence gets through.
            facts[key] = terminal_safe(value).strip()
    return facts


def _target_path(host: str, facts: dict[str, str]) -> str | None:
    """The target's real path on the host, from its hex; refused where it holds a control character."""
    text = facts.get("path_hex", "")
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return None
    if not raw:
        return None
    raw = raw[:-1] if raw.endswith(b"\n") else raw  # pwd's own newline
    path = raw.decode("utf-8", "surrogateescape")
    if any(unicodedata.category(ch) == "Cc" for ch in path):
        raise RemoteError(
            "target-path", host,
            f"{host}: the target's real path {path!r} holds a control character, which a run cannot name safely.",
        )
    return path


def _ssh_message(stderr: bytes) -> str:
    text = stderr[-MAX_TEXT_LINE_BYTES:].decode("utf-8", "replace")
    lines = [terminal_safe(line).strip() for line in text.splitlines() if terminal_safe(line).strip()]
    return lines[-1] if lines else "no message"


PREFLIGHT_MAX_BYTES = 1024 * 1024
"""The pre-flight prints a few hundred bytes; a host that answers more is cut off here."""


def facts_from_output(host: str, target: str | None, stdout: str, stderr: bytes, returncode: int | None) -> HostFacts:
    """What the pre-flight check printed on the host, judged; RemoteError names what failed."""
    if returncode == 255:
        raise RemoteError("ssh-failed", host, f"{host}: ssh cannot reach it: {_ssh_message(stderr)}.")
    facts = _parse_facts(host, stdout)
    if "fio_version" not in facts:
        detail = facts.get("fio_error") or _ssh_message(stderr)
        raise RemoteError("fio-missing", host, f"{host}: fio is not there or does not run: {detail}.")
    if "target_error" in facts:
        where = f"the target {target}" if target else "its home directory (the default target)"
        raise RemoteError("target-missing", host, f"{host}: {where} does not exist or is not a directory.")
    path = _target_path(host, facts)
    if not facts.get("filesystem"):
        raise RemoteError("target-unknown", host, f"{host}: cannot tell the target's filesystem (df gave nothing).")
    free_kb = facts.get("free_kb", "")
    return HostFacts(
        name=host,
        tool_version=facts["fio_version"],
        kernel=facts.get("kernel", ""),
        path=path if path is not None else target or "",
        filesystem=facts["filesystem"],
        device=facts.get("device", "unknown"),
        mount_point=facts.get("mount_point", ""),
        free_bytes=int(free_kb) * 1024 if free_kb.isascii() and free_kb.isdigit() and len(free_kb) <= 15 else None,
        writable=facts.get("writable") == "1",
        mem_available_bytes=int(mem_kb) * 1024 if (mem_kb := facts.get("mem_available_kb", "")).isdigit() else None,
        free_inodes=_free_inodes(facts),
        python3=facts.get("python3") == "1",
    )


def _free_inodes(facts: dict[str, str]) -> int | None:
    """df -Pi's free inodes; None where the filesystem reports 0 in all (it allocates them as needed)."""
    total, free = facts.get("inodes_total", ""), facts.get("inodes_free", "")
    if not all(text.isascii() and text.isdigit() and len(text) <= 18 for text in (total, free)) or int(total) == 0:
        return None
    return int(free)
