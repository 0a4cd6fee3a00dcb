#!/usr/bin/env python3
"""A fake ssh whose "hosts" misbehave on purpose, for faults a real host cannot be made to produce.

iotui calls it as its ssh command (``--ssh "python fake_remote.py"``): ``-o BatchMode=yes -- HOST
COMMAND``. It answers the pre-flight and speaks the lifeline's protocol (``IOTUI-READY`` on
stderr, waits for ``go``, fio's json+ documents on stdout, ``IOTUI-EXIT`` on stderr), replaying a
recorded real fio capture (``FAKE_REMOTE_REPLAY``). What goes wrong depends on the host's name:

- ``good-*``      nothing: the capture as fio wrote it
- ``nan-*``       the last document's first ``"iops"`` is ``NaN``
- ``huge-*``      the last document's first ``"total_ios"`` is a 30-digit integer
- ``longline-*``  one stderr line of FAKE_REMOTE_LINE_BYTES (default 1 MiB) before it is ready
- ``escape-*``    escape sequences in its pre-flight facts, its job names and a stderr line; a free
                  space of ``²`` (a digit to ``str.isdigit()``, not to ``int()``)
- ``chatty-*``    a pre-flight answer of 4 MiB
- ``silent-*``    a pre-flight that never answers (it sleeps a minute)
- ``endless-*``   one stderr line that never ends (it writes until the pipe closes)
"""

from __future__ import annotations

import os
import re
import sys
import time

PAYLOAD_END = "} # iotui: end of the program"  # iotui.core.remote.remote_program's, kept apart: this runs as ssh
ESCAPES = "\x1b]0;pwned-title\x07\x1b[2J\x9b31m"


def host_and_command(argv: list[str]) -> tuple[str, str]:
    words = argv[argv.index("--") + 1:]
    return words[0], words[1]


def preflight(host: str) -> None:
    if host.startswith("silent-"):
        time.sleep(60)
    if host.startswith("chatty-"):
        sys.stdout.write(("banner " * 1000 + "\n") * 600)
    bad = ESCAPES if host.startswith("escape-") else ""
    print(f"kernel=6.1.0{bad}")
    print(f"fio_version=fio-3.33{bad}")
    print("writable=1")
    print(f"device=/dev/fake{bad}")
    print("filesystem=ext4")
    print("free_kb=\u00b2" if bad else "free_kb=104857600")  # a digit to str.isdigit(), not to int()
    print("mount_point=/srv")
    print("path_hex=" + b"/srv/fake\n".hex())


def documents(text: str) -> list[str]:
    chunks, current = [], []
    for line in text.splitlines(keepends=True):
        current.append(line)
        if line.rstrip("\r\n") == "}":
            chunks.append("".join(current))
            current = []
    return chunks


def spoil(host: str, docs: list[str]) -> list[str]:
    last = docs[-1]
    if host.startswith("nan-"):
        last = re.sub(r'"iops" : [0-9.]+', '"iops" : NaN', last, count=1)
    elif host.startswith("huge-"):
        last = re.sub(r'"total_ios" : [0-9]+', '"total_ios" : ' + "9" * 30, last, count=1)
    if host.startswith("escape-"):
        docs = [re.sub(r'"jobname" : "', r'"jobname" : "\\u001b]0;pwned-title\\u0007', doc) for doc in docs]
        return docs
    return docs[:-1] + [last]


def skip_program() -> None:
    """The program iotui writes first on stdin, read up to its last line (the protocol's lines follow)."""
    for line in sys.stdin:
        if line.rstrip("\n") == PAYLOAD_END:
            return


def lifeline(host: str) -> int:
    if host.startswith("endless-"):
        try:
            while True:
                sys.stderr.write("x" * 65536)
                sys.stderr.flush()
        except (BrokenPipeError, OSError):
            return 141
    if host.startswith("longline-"):
        size = int(os.environ.get("FAKE_REMOTE_LINE_BYTES", str(1024 * 1024)))
        sys.stderr.write("x" * size + "\n")
    if host.startswith("escape-"):
        sys.stderr.write(f"fio: a warning {ESCAPES}from the host\n")
    skip_program()
    sys.stderr.write("IOTUI-READY /srv/fake/.iotui-remote.fake\n")
    sys.stderr.flush()
    line = sys.stdin.readline().strip()
    while line == "clock":  # a host whose date has no nanoseconds: nothing usable comes back
        sys.stderr.write("IOTUI-CLOCK 1700000000N\n")
        sys.stderr.flush()
        line = sys.stdin.readline().strip()
    if line != "go":
        sys.stderr.write("IOTUI-EXIT 98\n")
        return 98
    with open(os.environ["FAKE_REMOTE_REPLAY"], encoding="utf-8") as handle:
        docs = spoil(host, documents(handle.read()))
    for doc in docs:
        sys.stdout.write(doc)
        sys.stdout.flush()
        time.sleep(float(os.environ.get("FAKE_REMOTE_DELAY_S", "0.3")))
    sys.stderr.write("IOTUI-EXIT 0\n")
    sys.stderr.flush()
    return 0


def main() -> int:
    host, command = host_and_command(sys.argv)
    if "iotui-preflight" in command:
        preflight(host)
        return 0
    if "iotui-lifeline" in command:
        return lifeline(host)
    print(f"fake_remote: unknown command for {host}", file=sys.stderr)
    return 255


if __name__ == "__main__":
    sys.exit(main())
