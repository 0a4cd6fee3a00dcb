"""The set-up two runs differ in: what to check before trusting a comparison's deltas."""

from __future__ import annotations

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
    filesystem, mount options, device, and every fio option.
    """
    differences: list[tuple[str, list[str | None]]] = []
    for table, key in SETUP_KEYS:
        values = [_text(getattr(record, table).get(key)) for record in records]
        if len(set(values)) > 1:
            differences.append((f"{table}.{key}", values))
    option_names = sorted({name for record in records for name in record.options})
    for name in option_names:
        values = [_text(record.options.get(name)) for record in records]
        if len(set(values)) > 1:
            differences.append((f"options.{name}", values))
    return differences


