"""fio JSON from any fio version -> one clean shape (fio 3.x's), or a refusal.

The importer reads documents written by fio 2.x and 3.x, by fio's
client/server mode, and documents other tools have mangled. Everything
downstream (summaries, interval arithmetic) expects fio 3.x's shape with
sane numbers, so each document is rebuilt here from the keys iotui uses:

* fio 2.x wrote latencies in microseconds under ``clat``/``lat``, no ``N``,
  ``io_bytes`` in KiB and ``bw`` in KiB/s, percentile lists padded with
  duplicate ``"0.00": 0`` entries, and json+ bins keyed by bucket *index*
  (with ``FIO_IO_U_PLAT_BITS``/``VAL``/``NR`` beside them). All of that
  becomes nanoseconds, bytes, and bins keyed by their value in ns.
* fio 3.0/3.1 had ``clat_ns`` but no ``N`` and no ``bw_bytes``.
* A value of the wrong type, a negative, non-finite or out-of-range number
  in a key iotui reads is a :class:`DocumentError` naming the key.
"""

from __future__ import annotations

import math
import re
from typing import Any

from iotui.core.numbers import is_number

# "mixed": fio's unified_rw_reporting reports reads and writes as one direction.
DIRECTIONS = ("read", "write", "trim", "mixed")
# TOML integers are signed 64-bit; a larger count cannot be saved.
MAX_INT = 2**63 - 1
# fio 2.x json+ bucket constants when a document does not carry them.
LEGACY_PLAT_BITS = 6
LEGACY_PLAT_VAL = 1 << LEGACY_PLAT_BITS
ALL_CLIENTS = "All clients"


class DocumentError(ValueError):
    """A document iotui cannot import; str() says which key and why."""


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def clean_text(value: Any) -> str:
    """Any value as a string that TOML and UTF-8 can hold (no lone surrogates)."""
    text = value if isinstance(value, str) else str(value)
    return text.encode("utf-8", errors="replace").decode("utf-8")


def _number(value: Any, where: str) -> float | int:
    if not is_number(value):
        raise DocumentError(f"key '{where}' should be a number, found {_describe(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise DocumentError(f"key '{where}' should be a finite number, found {value}")
    if value < 0:
        raise DocumentError(f"key '{where}' should not be negative, found {value}")
    if value > MAX_INT:
        raise DocumentError(f"key '{where}' is out of range ({_describe(value)})")
    return value


def _int(value: Any, where: str) -> int:
    return int(_number(value, where))


def _optional_number(stats: dict, key: str, where: str, default: float | int = 0) -> float | int:
    value = stats.get(key)
    return default if value is None else _number(value, f"{where}.{key}")


def _table(value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise DocumentError(f"key '{where}' should be an object, found {_describe(value)}")
    return value


def plat_idx_to_val(index: int, plat_bits: int, plat_val: int) -> int:
    """fio 2.x's ``plat_idx_to_val``: a json+ bucket index -> its latency (µs).

    Buckets below ``2 * plat_val`` hold one value each; above, each group
    doubles its width and fio reports the middle of the bucket, truncated
    to an integer as fio's C code does.
    """
    if index < (plat_val << 1):
        return index
    error_bits = (index >> plat_bits) - 1
    base = 1 << (error_bits + plat_bits)
    bucket = index % plat_val
    return int(base + (bucket + 0.5) * (1 << error_bits))


def _percentiles(raw: Any, scale: int, where: str) -> dict[str, int]:
    table = _table(raw, where)
    result: dict[str, int] = {}
    for key, value in table.items():
        try:
            percentile = float(key)
        except (TypeError, ValueError):
            continue
        # fio 2.x pads the list with "0.00": 0 entries; they are not percentiles.
        if not 0.0 < percentile <= 100.0:
            continue
        result[f"{percentile:.6f}"] = int(_number(value, f"{where}.{key}") * scale)
    return result


def _bins(raw: Any, by_index: bool, scale: int, where: str) -> dict[str, int]:
    table = _table(raw, where)
    if not by_index and scale == 1:
        fast = _ns_bins(table)  # None for fio 2.x's FIO_IO_U_PLAT_* keys too
        if fast is not None:
            return fast
    by_index = by_index or any(str(key).startswith("FIO_IO_U_PLAT") for key in table)
    plat_bits = LEGACY_PLAT_BITS
    if by_index and "FIO_IO_U_PLAT_BITS" in table:
        plat_bits = _int(table["FIO_IO_U_PLAT_BITS"], f"{where}.FIO_IO_U_PLAT_BITS")
        if not 1 <= plat_bits <= 16:
            raise DocumentError(f"key '{where}.FIO_IO_U_PLAT_BITS' should be between 1 and 16, found {plat_bits}")
    plat_val = 1 << plat_bits
    bins: dict[str, int] = {}
    for key, count in table.items():
        if str(key).startswith("FIO_IO_U_PLAT"):
            continue
        try:
            position = int(key)
        except (TypeError, ValueError):
            raise DocumentError(f"key '{where}' has a bin key {_describe(key)} that is not a number") from None
        if position < 0 or position > MAX_INT:
            raise DocumentError(f"key '{where}' has an out-of-range bin key {_describe(key)}")
        samples = _int(count, f"{where}.{key}")
        if samples == 0:
            continue
        if by_index:
            if position > 4096:
                raise DocumentError(f"key '{where}' has a bucket index {position} beyond fio's histogram")
            value_ns = plat_idx_to_val(position, plat_bits, plat_val) * scale
        else:
            value_ns = position * scale
        if value_ns > MAX_INT:
            raise DocumentError(f"key '{where}.{key}' is out of range")
        bins[str(value_ns)] = bins.get(str(value_ns), 0) + samples
    return bins


# A bin key of at most this many digits is below MAX_INT (19 digits).
_SAFE_KEY_DIGITS = 18
# A key with a leading zero (but "0" itself), among keys joined by commas after a comma.
_PADDED_KEY = re.compile(r",0[0-9]")


def _ns_bins(table: dict) -> dict[str, int] | None:
    """fio 3.x's bins as fio writes them (``"1234": 5``: nanoseconds as plain decimal keys, whole
    counts), checked a whole table at a time and kept as written; None where any entry is
    otherwise, for the checked path. The result is what the checked path gives for such a table.

    A json+ job has about 1,150 bins per direction: the checks run in C over all of them
    (a report of 10,000 groups has 11 million)."""
    if not table:
        return {}
    try:
        joined = "," + ",".join(table)
    except TypeError:  # a key that is not a string
        return None
    digits = joined.replace(",", "")
    if (joined.count(",") != len(table) or not digits.isascii() or not digits.isdigit()
            or ",," in joined or joined.endswith(",")
            or max(map(len, table)) > _SAFE_KEY_DIGITS or _PADDED_KEY.search(joined)):
        return None
    counts = table.values()
    if set(map(type, counts)) != {int} or min(counts) < 0 or max(counts) > MAX_INT:
        return None
    return dict(table) if min(counts) > 0 else {key: count for key, count in table.items() if count}


def normalize_direction(raw: Any, where: str) -> dict[str, Any]:
    """One direction's statistics in fio 3.x units (bytes, ns)."""
    stats = _table(raw, where)
    legacy_latency = "clat_ns" not in stats and "clat" in stats
    # fio before 3.0 wrote KiB under "io_bytes" and had no "io_kbytes".
    kib_io_bytes = "io_kbytes" not in stats
    io_bytes = _int(_optional_number(stats, "io_bytes", where), f"{where}.io_bytes")
    if kib_io_bytes:
        io_bytes *= 1024
    if "bw_bytes" in stats:
        bw_bytes = _int(stats["bw_bytes"], f"{where}.bw_bytes")
    else:
        bw_bytes = _int(_optional_number(stats, "bw", where), f"{where}.bw") * 1024
    iops = float(_optional_number(stats, "iops", where))
    runtime_ms = _int(_optional_number(stats, "runtime", where), f"{where}.runtime")
    # fio 2.1.x wrote neither total_ios nor clat N: the count is IOPS x runtime, marked derived.
    derived = "total_ios" not in stats
    if derived:
        total_ios = round(iops * runtime_ms / 1000)
    else:
        total_ios = _int(stats["total_ios"], f"{where}.total_ios")
    clean: dict[str, Any] = {
        "io_bytes": io_bytes,
        "bw_bytes": bw_bytes,
        "iops": iops,
        "runtime": runtime_ms,
        "total_ios": total_ios,
    }
    if derived:
        clean["total_ios_derived"] = True
    if max(io_bytes, bw_bytes) > MAX_INT:
        raise DocumentError(f"key '{where}.io_bytes' is out of range")
    latency_key = "clat" if legacy_latency else "clat_ns"
    scale = 1000 if legacy_latency else 1
    raw_clat = stats.get(latency_key)
    if raw_clat is None:
        return clean
    clat_where = f"{where}.{latency_key}"
    clat = _table(raw_clat, clat_where)
    sample_count = _int(clat["N"], f"{clat_where}.N") if "N" in clat else total_ios
    if "N" not in clat and derived:
        clean["lat_derived"] = True
    clean_clat: dict[str, Any] = {
        "mean": float(_optional_number(clat, "mean", clat_where)) * scale,
        "N": sample_count,
    }
    for key in ("min", "max"):  # absent in some tools' trimmed copies of fio's JSON: absent here too
        if clat.get(key) is not None:
            clean_clat[key] = int(_optional_number(clat, key, clat_where) * scale)
    if max(clean_clat.get("min", 0), clean_clat.get("max", 0), clean_clat["mean"]) > MAX_INT:
        raise DocumentError(f"key '{clat_where}' holds a latency out of range")
    if "percentile" in clat:
        clean_clat["percentile"] = _percentiles(clat["percentile"], scale, f"{clat_where}.percentile")
    if "bins" in clat:
        clean_clat["bins"] = _bins(clat["bins"], legacy_latency, scale, f"{clat_where}.bins")
    clean["clat_ns"] = clean_clat
    return clean


def _options(raw: Any, where: str) -> dict[str, str]:
    if raw is None:
        return {}
    table = _table(raw, where)
    return {clean_text(key): clean_text(value) for key, value in table.items() if not isinstance(value, (dict, list))}


def _global_options(raw: Any) -> dict[str, str]:
    """fio's ``global options``; fio 3.43's client/server output has one object per client (an array):
    merged, a value the clients differ on kept as their distinct values joined by "/"."""
    if not isinstance(raw, list):
        return _options(raw, "global options")
    seen: dict[str, list[str]] = {}
    for index, item in enumerate(raw):
        for key, value in _options(item, f"global options[{index}]").items():
            if value not in seen.setdefault(key, []):
                seen[key].append(value)
    return {key: "/".join(values) for key, values in seen.items()}


def normalize_job(raw: Any, where: str) -> dict[str, Any]:
    """One job (or client) entry with the keys iotui reads, cleaned."""
    job = _table(raw, where)
    clean: dict[str, Any] = {
        "jobname": clean_text(job.get("jobname", "")),
        "job options": _options(job.get("job options"), f"{where}.job options"),
    }
    for key in ("elapsed", "usr_cpu", "sys_cpu", "ctx", "port", "groupid", "job_runtime"):
        if job.get(key) is not None:
            clean[key] = _number(job[key], f"{where}.{key}")
    if isinstance(job.get("error"), int) and not isinstance(job.get("error"), bool):
        clean["error"] = max(min(job["error"], MAX_INT), -MAX_INT)
    if job.get("hostname") is not None:
        clean["hostname"] = clean_text(job["hostname"])
    for direction in DIRECTIONS:
        if job.get(direction) is not None:
            clean[direction] = normalize_direction(job[direction], f"{where}.{direction}")
    return clean


def is_fio_document(doc: Any) -> bool:
    """A parsed JSON value that looks like fio output (jobs or client_stats)."""
    return isinstance(doc, dict) and (isinstance(doc.get("jobs"), list) or isinstance(doc.get("client_stats"), list))


def normalize_document(raw: dict) -> dict[str, Any]:
    """A fio document in fio 3.x's shape: ``jobs`` (client entries too), times in ms.

    ``clients`` is True for client/server output; ``timestamp_ms`` comes from
    fio, else from ``timestamp`` (seconds), else from the jobs' runtime, so a
    sequence of documents always has a clock.
    """
    clients = isinstance(raw.get("client_stats"), list)
    source_key = "client_stats" if clients else "jobs"
    entries = raw.get(source_key)
    if not isinstance(entries, list):
        raise DocumentError(f"key '{source_key}' should be an array")
    jobs = [normalize_job(entry, f"{source_key}[{index}]") for index, entry in enumerate(entries)]
    if not jobs:
        raise DocumentError(f"key '{source_key}' is empty: fio ran no job")
    doc: dict[str, Any] = {
        "fio version": clean_text(raw.get("fio version", "unknown")),
        "global options": _global_options(raw.get("global options")),
        "jobs": jobs,
        "clients": clients,
    }
    if raw.get("timestamp_ms") is not None:
        doc["timestamp_ms"] = _int(raw["timestamp_ms"], "timestamp_ms")
    elif raw.get("timestamp") is not None:
        doc["timestamp_ms"] = _int(raw["timestamp"], "timestamp") * 1000
    else:
        doc["clock_from_runtime"] = True
        doc["timestamp_ms"] = max(
            (job[d]["runtime"] for job in jobs for d in DIRECTIONS if d in job), default=0
        )
    if doc["timestamp_ms"] > MAX_INT:
        raise DocumentError("key 'timestamp' is out of range")
    devices: list[str] = []
    disk_util = raw.get("disk_util")
    if isinstance(disk_util, list):
        for disk in disk_util:
            if isinstance(disk, dict) and isinstance(disk.get("name"), str):
                name = clean_text(disk["name"])
                if name not in devices:
                    devices.append(name)
    doc["devices"] = devices
    return doc


def summary_jobs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """The entries whose totals are the run's: fio's "All clients" aggregate
    in client/server output when there is one, else every job."""
    jobs = doc["jobs"]
    if doc.get("clients"):
        aggregate = [job for job in jobs if job.get("jobname") == ALL_CLIENTS]
        if aggregate:
            return aggregate[-1:]
    return jobs


def host_jobs(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Every entry but the "All clients" aggregate."""
    return [job for job in doc["jobs"] if not (doc.get("clients") and job.get("jobname") == ALL_CLIENTS)]
