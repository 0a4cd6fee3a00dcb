"""Reading a file that came from outside: a regular file, of a bounded size, that fits in memory.

Records, sweep records, imports, presets, job files and hosts files are named by
anyone: a FIFO called ``x.toml`` in the runs directory would block a plain
``read()`` forever, and ``/dev/zero`` (or a ``*.toml`` symlink to it) would be
read until memory runs out. :func:`read_input_file` opens without blocking,
looks at what it opened (``fstat``, so a symlink is judged by what it points
at) and reads only a regular file no larger than :data:`MAX_INPUT_BYTES`.

The limit: the largest record iotui writes is a 24 h run on 128 hosts. Each
host and the aggregate keep one ``[[samples]]`` row a second, about 500 bytes of
TOML for a mixed read/write job (``t_s``, ``dt_s`` and, per direction, IOPS,
bandwidth, mean, four percentiles and the maximum latency), so
86,400 s x 129 rows x 500 B = 5.6 GB. Ten times that, rounded up, is 64 GiB.
A file that size cannot be read into memory on most machines, so a file whose
reading would need more than the memory available now (about
:data:`PARSE_MEMORY_FACTOR` times its size, for the parsed tables) is refused
too, with both figures, rather than read until the kernel ends iotui.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

MAX_INPUT_BYTES = 64 * 1024**3
"""The one size limit for records, imports and remote streams (see the module's note)."""
PARSE_MEMORY_FACTOR = 7
"""Reading and parsing a record takes about this many times its bytes (the bytes, the text, the tables).

Measured: a 49 MB record of 100,000 sample rows peaks at 343 MB resident while it is read and
parsed, 12 MB of that the interpreter (``/usr/bin/time -v``): 6.7 times."""
_READ_CHUNK_BYTES = 1024 * 1024


class InputFileError(Exception):
    """A file that is not read; str() is a sentence naming it and why."""


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def size_text(size_bytes: int) -> str:
    """Bytes in binary units, for a refusal: ``5.2 GiB (5,583,457,484 bytes)``."""
    value = float(size_bytes)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            shown = f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
            return f"{shown} ({size_bytes:,} bytes)"
        value /= 1024
    raise AssertionError("unreachable")


def available_memory_bytes(meminfo: Path = Path("/proc/meminfo")) -> int | None:
    """MemAvailable, or None where the system does not say."""
    try:
        with open(meminfo, "rb") as handle:
            for line in handle.read(65536).splitlines():
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def read_input_file(
    path: Path | str, what: str = "file", *, limit_bytes: int = MAX_INPUT_BYTES, allow_pipe: bool = False
) -> bytes:
    """The bytes of a regular file from outside, or InputFileError (never blocks, never reads unbounded).

    ``allow_pipe``: a file named on the command line (a job file, a hosts file) may also be a pipe
    the user made (``--job-file <(generate-job)``); it is read to its end, within the same bounds.
    """
    path = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO with no writer returns at once instead of waiting for one.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket, or a device with nothing behind it
            raise InputFileError(f"{path}: the {what} is not a regular file; name a regular file.") from None
        raise InputFileError(f"{path}: cannot read the {what} ({error.strerror or error}).") from None
    try:
        info = os.fstat(fd)
        if allow_pipe and stat.S_ISFIFO(info.st_mode):
            return _read_pipe(fd, path, what, limit_bytes)
        if not stat.S_ISREG(info.st_mode):
            raise InputFileError(
                f"{path}: the {what} is {_kind(info.st_mode)}, not a regular file; iotui reads only regular files."
            )
        if info.st_size > limit_bytes:
            raise InputFileError(
                f"{path}: the {what} is {size_text(info.st_size)}, over iotui's limit of {size_text(limit_bytes)} "
                "for a file it reads; no record iotui writes is that large."
            )
        available = available_memory_bytes()
        if available is not None and info.st_size * PARSE_MEMORY_FACTOR > available:
            raise InputFileError(
                f"{path}: the {what} is {size_text(info.st_size)}; reading it needs about "
                f"{size_text(info.st_size * PARSE_MEMORY_FACTOR)} of memory and {size_text(available)} is available."
            )
        # Only the size fstat gave, which was judged: a file that grows while read is cut there,
        # and a pseudo-file of size 0 whose read would wait for data or consume it (a symlink to
        # /proc/kmsg) is never read at all. The descriptor stays non-blocking as well.
        chunks: list[bytes] = []
        left = info.st_size
        while left > 0:
            chunk = os.read(fd, min(left, _READ_CHUNK_BYTES))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError as error:
        raise InputFileError(f"{path}: cannot read the {what} ({error.strerror or error}).") from None
    finally:
        os.close(fd)


def _read_pipe(fd: int, path: Path, what: str, limit_bytes: int) -> bytes:
    """A pipe the user named, read to its end; more than the limit (or memory allows) is refused."""
    available = available_memory_bytes()
    bound = min(limit_bytes, available // PARSE_MEMORY_FACTOR) if available is not None else limit_bytes
    os.set_blocking(fd, True)  # the user's own pipe: its writer is theirs, waiting for it is what they asked
    chunks: list[bytes] = []
    total = 0
    while chunk := os.read(fd, _READ_CHUNK_BYTES):
        total += len(chunk)
        if total > bound:
            raise InputFileError(f"{path}: more than {size_text(bound)} came through the pipe named as the {what}.")
        chunks.append(chunk)
    return b"".join(chunks)
