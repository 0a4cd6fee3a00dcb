"""What a schema 2 record holds: the expected type of every key, checked on load and save.

``docs/record-format.md`` documents each key; ``docs/record-schema-2.md`` is the
design. A record that does not validate is refused with the file, the key and
what was expected. Optional tables tolerate keys this version does not know
(a newer minor addition), but every key listed here is type-checked.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

SCHEMA_VERSION = 2
RUN_STATUSES = ("completed", "stopped", "failed", "imported", "reference")
# "mixed": fio's unified_rw_reporting, reads and writes reported as one direction.
DIRECTIONS = ("read", "write", "trim", "mixed")
RESPONSIVENESS_LEVELS = ("ok", "sluggish", "unresponsive")
LAT_SOURCES = ("bins", "bins-unpaused", "derived", "fio")

NUMBER = (int, float)
Spec = dict[str, tuple[tuple[type, ...], bool]]

DIRECTION_KEYS = (
    "iops",
    "bw_bytes",
    "io_bytes",
    "total_ios",
    "lat_mean_ns",
    "lat_min_ns",
    "lat_max_ns",
    "lat_p50_ns",
    "lat_p90_ns",
    "lat_p99_ns",
    "lat_p99_9_ns",
    "iops_printed",
    "bw_bytes_printed",
)
# A direction must say its rate; counts, bandwidth and latency are absent where
# the source never had them (a published table, a plain-text report).
DIRECTION_REQUIRED = ("iops",)

CPU_KEYS = (
    "fio_user_pct",
    "fio_system_pct",
    "user_pct",
    "system_pct",
    "iowait_pct",
    "ctx_switches_per_s",
    "interrupts_per_s",
    "fio_cpu_cores",
    "iops_per_fio_core",
    "iops_per_busy_core",
)

RUN_KEYS: Spec = {
    "id": ((str,), True),
    "preset": ((str,), True),
    "status": ((str,), True),
    "started": ((dt.datetime,), True),
    "duration_s": (NUMBER, True),
    "tool": ((str,), True),
    "tool_version": ((str,), True),
    "argv": ((list,), True),
    "report": ((str,), True),
    "title": ((str,), False),
    "ended_by": ((str,), False),
    "exit_code": ((int,), False),
    "iotui_version": ((str,), False),
    "source": ((str,), False),
    "reference": ((bool,), False),
    "test_file_bytes": ((int,), False),
    "sync_time_s": (NUMBER, False),
    "paused_s": (NUMBER, False),
    "forced": ((bool,), False),
    "notes": ((str,), False),
    "tags": ((list,), False),
    "repeat_group": ((str,), False),
    "repeat_index": ((int,), False),
    "start_spread_ms": (NUMBER, False),
    "started_source": ((str,), False),
}
# Schema 1 names of [run] keys, still read (a schema 2 writer renames them).
RUN_RENAMES = {"fio_version": "tool_version", "fio_argv": "argv", "fio_report": "report"}
TOOLS = ("fio", "sysbench")

HOST_KEYS: Spec = {
    "hostname": ((str,), True),
    "system": ((str,), True),
    "kernel": ((str,), True),
    "cpu_model": ((str,), True),
    "cpu_count": ((int,), True),
    "mem_total_bytes": ((int,), True),
    "cpu_governor": ((str,), False),
}
# Imports and references leave out what their source did not publish.
HOST_OPTIONAL_FOR = ("imported", "reference")
HOST_PUBLISHED_ONLY = ("cpu_count", "mem_total_bytes")

TARGET_KEYS: Spec = {
    "path": ((str,), True),
    "filesystem": ((str,), True),
    "device": ((str,), True),
    "mount_options": ((str,), True),
    "model": ((str,), False),
    "firmware": ((str,), False),
    "rotational": ((bool,), False),
    "block_device": ((bool,), False),
    "scheduler": ((str,), False),
    "read_ahead_kb": ((int,), False),
    "write_cache": ((str,), False),
}

PRESSURE_TEXT_KEYS = ("responsiveness", "cause", "cause_unit", "responsiveness_note", "not_measured")

SECTION_KEYS: Spec = {
    "name": ((str,), True),
    "jobs": ((list,), False),
    "groupid": ((int,), False),
    "duration_s": (NUMBER, False),
    "t_start_s": (NUMBER, False),
    "t_end_s": (NUMBER, False),
    "paused_s": (NUMBER, False),
    "options": ((dict,), False),
    "cpu": ((dict,), False),
    "pressure": ((dict,), False),
    "steady": ((dict,), False),
    "cliff": ((dict,), False),
    "latency_target": ((dict,), False),
    "interference": ((dict,), False),
}
STEADY_KEYS: Spec = {
    "reached": ((bool,), False),
    "after_s": (NUMBER, False),
    "method": ((str,), False),
    "fio_ss": ((dict,), False),
    "judged_s": (NUMBER, False),
    "window_s": (NUMBER, False),
}
CLIFF_KEYS: Spec = {
    "found": ((bool,), False),
    "at_s": (NUMBER, False),
    "at_bytes": (NUMBER, False),
    "bw_before_bytes": (NUMBER, False),
    "bw_after_bytes": (NUMBER, False),
    "within_bytes": (NUMBER, False),
    "within_s": (NUMBER, False),
}
LATENCY_TARGET_KEYS: Spec = {
    "target_ns": (NUMBER, False),
    "depth": ((int,), False),
    "percentile": (NUMBER, False),
    "window_s": (NUMBER, False),
}
STEADY_METHODS = ("window", "fio-ss")
PAUSE_KEYS: Spec = {"at_s": (NUMBER, True), "duration_s": (NUMBER, True)}
HOSTS_KEYS: Spec = {
    "name": ((str,), True),
    "tool_version": ((str,), False),
    "kernel": ((str,), False),
    "filesystem": ((str,), False),
    "exit_status": ((int,), False),
    "failed_at_s": (NUMBER, False),
    "clock_offset_ms": (NUMBER, False),
    "clock_rtt_ms": (NUMBER, False),
    "port": ((int,), False),
    "paused_s": (NUMBER, False),
    "pauses": ((list,), False),
    "sections": ((list,), False),
    "samples": ((list,), False),
    "pressure": ((dict,), False),
}
# Figures that cannot be negative (durations, seconds paused, sizes); each also has to be finite, so
# a hand-edited duration_s = -1e308 or inf is refused as a bad value, not summed into a comparison.
RUN_NON_NEGATIVE = ("duration_s", "sync_time_s", "paused_s", "start_spread_ms", "test_file_bytes")
SECTION_NON_NEGATIVE = ("duration_s", "paused_s")
HOST_NON_NEGATIVE = ("paused_s", "failed_at_s")
PAUSE_NON_NEGATIVE = ("at_s", "duration_s")
SAMPLE_NON_NEGATIVE = ("dt_s",)

# Sample keys that are not numbers.
SAMPLE_TEXT_KEYS = ("responsiveness", "responsiveness_cause")
SAMPLE_BOOL_KEYS = ("paused", "interference")
SAMPLE_INT_KEYS = ("section",)

KNOWN_TOP = {
    "schema", "run", "host", "target", "options", "pressure", "pauses", "sections", "samples",
    "hosts", "warnings", "messages",
}


class RecordError(Exception):
    """A record that cannot be loaded or saved; str() is a full sentence."""


def _type_names(types: tuple[type, ...]) -> str:
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "an array",
        bool: "true or false",
        dt.datetime: "a date-time",
        dict: "a table",
    }
    return " or ".join(dict.fromkeys(names.get(t, t.__name__) for t in types))


def check(value: Any, types: tuple[type, ...], where: str, key: str) -> None:
    if isinstance(value, bool) and bool not in types:
        raise RecordError(f"{where}: key '{key}' should be {_type_names(types)}, found {value!r}.")
    if not isinstance(value, types):
        raise RecordError(
            f"{where}: key '{key}' should be {_type_names(types)}, found {type(value).__name__} {value!r}."
        )


def check_spec(table: dict[str, Any], spec: Spec, where: str, prefix: str, optional: tuple[str, ...] = ()) -> None:
    for key, (types, required) in spec.items():
        if key not in table:
            if required and key not in optional:
                raise RecordError(f"{where}: key '{prefix}.{key}' is missing.")
            continue
        check(table[key], types, where, f"{prefix}.{key}")


def check_figures(table: dict[str, Any], keys: tuple[str, ...], where: str, prefix: str, *, negative: bool = False) -> None:
    """Each of ``keys`` present in ``table`` (already type-checked as a number) finite, and not below
    0 unless ``negative``."""
    for key in keys:
        value = table.get(key)
        if not isinstance(value, NUMBER) or isinstance(value, bool):
            continue
        if not math.isfinite(value):
            raise RecordError(f"{where}: key '{prefix}.{key}' should be a finite number, found {value}.")
        if value < 0 and not negative:
            raise RecordError(f"{where}: key '{prefix}.{key}' should not be negative, found {value}.")


def table_of(doc: dict[str, Any], name: str, where: str) -> dict[str, Any]:
    value = doc.get(name)
    if not isinstance(value, dict):
        raise RecordError(f"{where}: the table [{name}] is missing or is not a table.")
    return value


def _check_level(value: Any, where: str, key: str) -> None:
    if value is not None and value not in RESPONSIVENESS_LEVELS:
        raise RecordError(
            f"{where}: key '{key}' should be one of {', '.join(RESPONSIVENESS_LEVELS)}, found {value!r}."
        )


def check_pressure(table: Any, where: str, prefix: str) -> None:
    if not isinstance(table, dict):
        raise RecordError(f"{where}: [{prefix}] should be a table.")
    for key, value in table.items():
        if key in PRESSURE_TEXT_KEYS:
            check(value, (str,), where, f"{prefix}.{key}")
        else:
            check(value, NUMBER, where, f"{prefix}.{key}")
    _check_level(table.get("responsiveness"), where, f"{prefix}.responsiveness")


def check_direction(table: Any, where: str, prefix: str) -> None:
    if not isinstance(table, dict):
        raise RecordError(f"{where}: [{prefix}] should be a table.")
    for key in DIRECTION_REQUIRED:
        if key not in table:
            raise RecordError(f"{where}: key '{prefix}.{key}' is missing.")
    for key in DIRECTION_KEYS:
        if key in table:
            check(table[key], NUMBER, where, f"{prefix}.{key}")
    check_figures(table, DIRECTION_KEYS, where, prefix)
    if "lat_source" in table and table["lat_source"] not in LAT_SOURCES:
        raise RecordError(
            f"{where}: key '{prefix}.lat_source' should be one of {', '.join(LAT_SOURCES)}, "
            f"found {table['lat_source']!r}."
        )
    if "missing" in table and not (
        isinstance(table["missing"], list) and all(isinstance(key, str) for key in table["missing"])
    ):
        raise RecordError(f"{where}: key '{prefix}.missing' should be an array of figure names.")
    if "fio" in table:
        check_direction(table["fio"], where, f"{prefix}.fio")


def check_section(section: Any, where: str, prefix: str) -> None:
    if not isinstance(section, dict):
        raise RecordError(f"{where}: {prefix} should be a table.")
    check_spec(section, SECTION_KEYS, where, prefix)
    check_figures(section, SECTION_NON_NEGATIVE, where, prefix)
    check_figures(section, ("t_start_s", "t_end_s"), where, prefix, negative=True)
    if "jobs" in section and not all(isinstance(name, str) for name in section["jobs"]):
        raise RecordError(f"{where}: key '{prefix}.jobs' should be an array of strings.")
    options = section.get("options", {})
    if not all(isinstance(v, str) for v in options.values()):
        raise RecordError(f"{where}: table [{prefix}.options] should map option names to strings.")
    for direction in DIRECTIONS:
        if direction in section:
            check_direction(section[direction], where, f"{prefix}.{direction}")
    for key, value in section.get("cpu", {}).items():
        check(value, NUMBER, where, f"{prefix}.cpu.{key}")
    if "pressure" in section:
        check_pressure(section["pressure"], where, f"{prefix}.pressure")
    if "steady" in section:
        check_spec(section["steady"], STEADY_KEYS, where, f"{prefix}.steady")
    if "steady" in section and section["steady"].get("method", "window") not in STEADY_METHODS:
        raise RecordError(
            f"{where}: key '{prefix}.steady.method' should be one of {', '.join(STEADY_METHODS)}, "
            f"found {section['steady']['method']!r}."
        )
    if "cliff" in section:
        check_spec(section["cliff"], CLIFF_KEYS, where, f"{prefix}.cliff")
    if "latency_target" in section:
        check_spec(section["latency_target"], LATENCY_TARGET_KEYS, where, f"{prefix}.latency_target")


def check_sections(sections: Any, where: str, prefix: str) -> None:
    if not isinstance(sections, list):
        raise RecordError(f"{where}: '{prefix}' should be an array of tables.")
    for index, section in enumerate(sections):
        check_section(section, where, f"{prefix}[{index}]")


def check_samples(samples: Any, where: str, prefix: str, section_count: int) -> None:
    if not isinstance(samples, list):
        raise RecordError(f"{where}: '{prefix}' should be an array of tables.")
    for index, sample in enumerate(samples):
        name = f"{prefix}[{index}]"
        if not isinstance(sample, dict):
            raise RecordError(f"{where}: {name} should be a table.")
        for key in ("t_s", "dt_s"):
            if key not in sample:
                raise RecordError(f"{where}: key '{name}.{key}' is missing.")
        for key, value in sample.items():
            if key in SAMPLE_TEXT_KEYS:
                check(value, (str,), where, f"{name}.{key}")
            elif key in SAMPLE_BOOL_KEYS:
                check(value, (bool,), where, f"{name}.{key}")
            elif key in SAMPLE_INT_KEYS:
                check(value, (int,), where, f"{name}.{key}")
                if not 0 <= value < max(section_count, 1):
                    raise RecordError(
                        f"{where}: key '{name}.{key}' should index one of the {section_count} sections, found {value}."
                    )
            else:
                check(value, NUMBER, where, f"{name}.{key}")
        check_figures(sample, SAMPLE_NON_NEGATIVE, where, name)
        check_figures(sample, ("t_s",), where, name, negative=True)
        _check_level(sample.get("responsiveness"), where, f"{name}.responsiveness")


def check_pauses(pauses: Any, where: str, name: str = "pauses") -> None:
    if not isinstance(pauses, list):
        raise RecordError(f"{where}: '{name}' should be an array of tables.")
    for index, pause in enumerate(pauses):
        if not isinstance(pause, dict):
            raise RecordError(f"{where}: {name}[{index}] should be a table.")
        check_spec(pause, PAUSE_KEYS, where, f"{name}[{index}]")
        check_figures(pause, PAUSE_NON_NEGATIVE, where, f"{name}[{index}]")


def check_hosts(hosts: Any, where: str) -> None:
    if not isinstance(hosts, list):
        raise RecordError(f"{where}: 'hosts' should be an array of tables.")
    for index, host in enumerate(hosts):
        name = f"hosts[{index}]"
        if not isinstance(host, dict):
            raise RecordError(f"{where}: {name} should be a table.")
        check_spec(host, HOSTS_KEYS, where, name)
        check_figures(host, HOST_NON_NEGATIVE, where, name)
        if "pressure" in host:
            check_pressure(host["pressure"], where, f"{name}.pressure")
        check_pauses(host.get("pauses", []), where, f"{name}.pauses")
        check_sections(host.get("sections", []), where, f"{name}.sections")
        check_samples(host.get("samples", []), where, f"{name}.samples", len(host.get("sections", [])))


def check_list_of(value: Any, where: str, name: str, text_key: str, other: str | None = None) -> None:
    keys = (text_key,) if other is None else (text_key, other)
    if not isinstance(value, list) or not all(
        isinstance(item, dict) and all(isinstance(item.get(k), str) for k in keys) for item in value
    ):
        needs = " and ".join(f"'{k}'" for k in keys)
        raise RecordError(f"{where}: '{name}' should be an array of tables with {needs} strings.")


def check_document(doc: dict[str, Any], where: str) -> None:
    """Validate a schema 2 document (already migrated); raise RecordError naming the key."""
    run = table_of(doc, "run", where)
    check_spec(run, RUN_KEYS, where, "run")
    check_figures(run, RUN_NON_NEGATIVE, where, "run")
    if run["status"] not in RUN_STATUSES:
        raise RecordError(
            f"{where}: key 'run.status' should be one of {', '.join(RUN_STATUSES)}, found {run['status']!r}."
        )
    if not all(isinstance(arg, str) for arg in run["argv"]):
        raise RecordError(f"{where}: key 'run.argv' should be an array of strings.")
    if "tags" in run and not all(isinstance(tag, str) for tag in run["tags"]):
        raise RecordError(f"{where}: key 'run.tags' should be an array of strings.")
    host = table_of(doc, "host", where)
    optional = HOST_PUBLISHED_ONLY if run["status"] in HOST_OPTIONAL_FOR else ()
    check_spec(host, HOST_KEYS, where, "host", optional)
    check_spec(table_of(doc, "target", where), TARGET_KEYS, where, "target")
    options = doc.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, str) for v in options.values()):
        raise RecordError(f"{where}: table [options] should map option names to strings.")
    if "pressure" in doc:
        check_pressure(doc["pressure"], where, "pressure")
    check_pauses(doc.get("pauses", []), where)
    sections = doc.get("sections", [])
    check_sections(sections, where, "sections")
    check_samples(doc.get("samples", []), where, "samples", len(sections))
    check_hosts(doc.get("hosts", []), where)
    check_list_of(doc.get("warnings", []), where, "warnings", "code", "message")
    check_list_of(doc.get("messages", []), where, "messages", "text")
