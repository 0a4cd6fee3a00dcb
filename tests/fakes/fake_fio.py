#!/usr/bin/env python3
"""A fake fio for faults real fio cannot be made to produce on demand.

Behaviour comes from the environment, so tests can point iotui's --fio at
this file:

- FAKE_FIO_REPLAY=FILE   print FILE's recorded stdout, one document per
                         FAKE_FIO_DELAY_S seconds (default 0.05)
- FAKE_FIO_MODE=garbage  print noise, then a valid replay
- FAKE_FIO_MODE=crash    print the first document and half of the next, then
                         die by SIGSEGV-like exit 139
- FAKE_FIO_MODE=stall    print one document, then hang ignoring SIGINT and
                         SIGTERM (only SIGKILL ends it)
- FAKE_FIO_MODE=bytewise write the replay one byte at a time
- FAKE_FIO_MODE=fail     print an error on stderr and exit 1
- FAKE_FIO_STDERR=TEXT   also print TEXT on stderr first
- FAKE_FIO_PIDFILE=PATH  write the pid there on start (to check clean-up)
"""

import os
import signal
import sys
import time

if "--version" in sys.argv:
    print("fio-3.33-fake")
    sys.exit(0)

mode = os.environ.get("FAKE_FIO_MODE", "replay")
replay = os.environ.get("FAKE_FIO_REPLAY", "")
delay_s = float(os.environ.get("FAKE_FIO_DELAY_S", "0.05"))
pidfile = os.environ.get("FAKE_FIO_PIDFILE")
if pidfile:
    with open(pidfile, "w") as handle:
        handle.write(str(os.getpid()))

stopping = False


def on_sigint(signum, frame):
    global stopping
    stopping = True


signal.signal(signal.SIGINT, on_sigint)

if os.environ.get("FAKE_FIO_STDERR"):
    print(os.environ["FAKE_FIO_STDERR"], file=sys.stderr, flush=True)

if mode == "fail":
    print("fio: failed to open the test file: Permission denied", file=sys.stderr)
    sys.exit(1)


def documents(text):
    """Split a recorded capture into chunks: each document with what precedes it."""
    chunks, current = [], []
    for line in text.splitlines(keepends=True):
        current.append(line)
        if line.rstrip("\r\n") == "}":
            chunks.append("".join(current))
            current = []
    if current:
        chunks.append("".join(current))
    return chunks


chunks = documents(open(replay).read()) if replay else []
out = sys.stdout

if mode == "garbage":
    out.write("note: random garbage \x00\x01 {not json\n{\n  broken ]]\n}\nmore text\n")
    out.flush()

if mode == "crash":
    out.write(chunks[0])
    out.write(chunks[1][: len(chunks[1]) // 2])
    out.flush()
    os._exit(139)

if mode == "stall":
    out.write(chunks[0])
    out.flush()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(1)

for index, chunk in enumerate(chunks):
    if stopping:
        # Like fio: on SIGINT, say so and write the last (final) document.
        out.write("fio: terminating on signal 2\n")
        out.write(chunks[-1])
        out.flush()
        sys.exit(0)
    if mode == "bytewise":
        for character in chunk:
            out.write(character)
            out.flush()
    else:
        out.write(chunk)
        out.flush()
    if index < len(chunks) - 1:
        time.sleep(delay_s)
sys.exit(0)
