"""The set-up two runs differ in: what to check before trusting a comparison's deltas."""

from __future__ import annotations

import re

from iotui.core.fio.units import fio_kb_base, parse_size_bytes
from iotui.core.records.record import RunRecord

SETUP_KEYS = (
    ("run", "tool_version"),
    ("host", "hostname"),
    ("host", "system"),
    ("host", "kernel"),
    ("host", "cpu_model"),
    ("host", "cpu_count"),
    ("host", "mem_total_bytes"),
    ("target", "filesystem"),
    ("target", "mount_options"),
    ("target", "device"),
    ("target", "model"),
    ("target", "firmware"),
    ("target", "rotational"),
    ("target", "scheduler"),
    ("target", "read_ahead_kb"),
    ("target", "write_cache"),
    ("host", "cpu_governor"),
    ("run", "paused_s"),
)


# Options whose values are sizes in bytes (fio's size syntax; one per direction ``4k,64k``, a range
# ``4k-16k`` or ``4k:16k``): equal sizes spelled differently (4096B, 4k, 4KB) are the same set-up.
SIZE_OPTIONS = frozenset({
    "bs", "ba", "bsrange", "size", "io_size", "filesize", "offset", "offset_increment", "offset_align",
    "rate", "rate_min", "zonesize", "zonerange", "zoneskip", "lockmem",
})
_SIZE_SEPARATORS = re.compile(r"([,:-])")


def size_reading(value: str, kb_base: int = 1024) -> tuple[int | str, ...] | None:
    """Each part of a size value in bytes as fio reads it, separators kept (``4k,64k`` ->
    ``(4096, ',', 65536)``); None when a part is not a plain size (a percentage, a fraction)."""
    reading: list[int | str] = []
    for part in _SIZE_SEPARATORS.split(value.strip()):
        if part in (",", ":", "-", ""):  # an empty part (bs=,64k) keeps fio's default for that direction
            reading.append(part)
            continue
        size = parse_size_bytes(part.strip(), kb_base=kb_base)
        if size is None:
            return None
        reading.append(size)
    return tuple(reading)


def _option_reading(record: RunRecord, name: str) -> object:
    """What an option's value means to fio, for telling set-ups apart: a size's bytes, else its text."""
    text = _text(record.options.get(name))
    if text is None or name not in SIZE_OPTIONS:
        return text
    reading = size_reading(text, fio_kb_base(_text(record.options.get("kb_base"))))
    return text if reading is None else reading


def _text(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def setup_differences(records: list[RunRecord]) -> list[tuple[str, list[str | None]]]:
    """(key, one value per record) for every set-up key whose values differ.

    Keys are the record's own (``host.kernel``, ``options.bs``); a value a
    record lacks is None. Covers fio version, host, kernel, CPU, memory,
    filesystem, mount options, device, and every fio option. Sizes are compared as fio reads
    them (with each record's kb_base): ``bs`` 4096B and 4k are the same; each record's own
    spelling is what is shown.
    """
    differences: list[tuple[str, list[str | None]]] = []
    for table, key in SETUP_KEYS:
        values = [_text(getattr(record, table).get(key)) for record in records]
        if len(set(values)) > 1:
            differences.append((f"{table}.{key}", values))
    option_names = sorted({name for record in records for name in record.options})
    for name in option_names:
        if len({_option_reading(record, name) for record in records}) > 1:
            differences.append((f"options.{name}", [_text(record.options.get(name)) for record in records]))
    return differences


