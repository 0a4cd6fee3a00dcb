"""The memory a run may take: the kernel's MemAvailable, and the refusal when fio's buffers would not fit."""

from __future__ import annotations

from pathlib import Path

from iotui.core.host.proc_files import read_text


def mem_available_bytes(meminfo: Path | str = "/proc/meminfo") -> int | None:
    """MemAvailable (what can be allocated without swapping), in bytes; None where the kernel does not say."""
    text = read_text(meminfo)
    for line in (text or "").splitlines():
        key, _, rest = line.partition(":")
        if key == "MemAvailable":
            words = rest.split()
            if words and words[0].isdigit():
                return int(words[0]) * 1024  # /proc/meminfo's "kB" are KiB
    return None


def buffers_problem(needs_bytes: int | None, how: str, available_bytes: int | None, where: str = "this machine") -> str | None:
    """The sentence refusing a run whose I/O buffers (``needs_bytes``, made of ``how``) exceed
    ``available_bytes``; None when they fit or either figure is unknown."""
    if needs_bytes is None or available_bytes is None or needs_bytes <= available_bytes:
        return None
    return (
        f"The run's I/O buffers need {needs_bytes / (1 << 20):,.0f} MiB ({how}) and {where} has "
        f"{available_bytes / (1 << 20):,.0f} MiB available (MemAvailable): fio would fail to allocate them or "
        "push the machine into swap. Lower numjobs, iodepth or the block size."
    )
