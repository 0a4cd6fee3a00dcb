"""Flag results that are probably a lie: the page cache answered, not the device.

These checks look at a record's numbers only, so they apply to live runs and
to imported results alike (the SeaweedFS study's 394k IOPS sequential 4 KiB
read at a 0 ns median is the textbook case).

No cache is involved where the engine moves no file data through the kernel: null
completes every I/O without doing it, cpuio only burns CPU, the network engines move
data over a socket. Such runs get no cache warning (a null run reporting 58 million
read IOPS against the device's 4/s is not the page cache at work) and one line saying
their figures are not storage figures.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from iotui.core.records.findings import all_section_options
from iotui.core.presets.model import lookup_option
from iotui.core.records.record import RunRecord

# fio's default engine on Linux when a job names none.
DEFAULT_ENGINE = "psync"
# Engines that read and write a file's data through the kernel on the target's own
# filesystem, so the page cache (or direct I/O past it) and the target's device are involved.
FILE_DATA_ENGINES = frozenset({
    "sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "posixaio", "mmap", "splice",
    "solarisaio", "windowsaio",
})
# Engines whose figures are not storage figures at all, with what they do instead.
NOT_STORAGE_ENGINES = {
    "null": "completes every I/O at once without doing it",
    "cpuio": "only burns CPU",
    "net": "moves data over a network socket",
    "netsplice": "moves data over a network socket",
    "rdma": "moves data over RDMA",
}
CACHE_CODES = ("cache-latency", "cache-read-gap", "cache-write-gap", "cache-memory-fs", "cache-small-file")
NOT_STORAGE_CODE = "not-storage"

# No storage device completes a read in under 2 us: even NVMe on a
# polled queue is several microseconds. A median below this is memory.
IMPOSSIBLE_READ_P50_NS = 2_000
# fio reporting this many times the IOPS the device itself served means
# most I/O never reached the device.
DEVICE_GAP_FACTOR = 2.0
# Below this fio IOPS the device-gap check says nothing useful.
DEVICE_GAP_MIN_IOPS = 50.0


def _direct_io(options: dict[str, str]) -> bool:
    return str(options.get("direct", "0")).strip().lower() in ("1", "true", "yes", "on")


def _mean_of(samples: list[dict], key: str) -> float | None:
    values = [float(s[key]) for s in samples if isinstance(s.get(key), (int, float))]
    return sum(values) / len(values) if values else None


def engines_of(options_per_section: Iterable[Mapping[str, str]]) -> list[str]:
    """Each section's engine as fio would use it (its own, the global one, else fio's default)."""
    engines = []
    for options in options_per_section:
        engine = (lookup_option(options, "ioengine") or DEFAULT_ENGINE).strip().lower()
        engines.append(engine or DEFAULT_ENGINE)
    return engines or [DEFAULT_ENGINE]


def record_engines(record: RunRecord) -> list[str]:
    """The engines of a record's sections (its options when it has no sections)."""
    if record.sections:
        return engines_of(all_section_options(record))
    return engines_of([record.options])


def moves_file_data(engines: Iterable[str]) -> bool:
    """Does every engine read and write file data on the target, where a cache can answer?"""
    return all(engine in FILE_DATA_ENGINES for engine in engines)


def not_storage_warning(engines: Iterable[str]) -> tuple[str, str] | None:
    """The one line for a run whose every engine does no storage I/O; None otherwise."""
    found = list(dict.fromkeys(engines))
    if not found or any(engine not in NOT_STORAGE_ENGINES for engine in found):
        return None
    what = "; ".join(f"ioengine={engine} {NOT_STORAGE_ENGINES[engine]}" for engine in found)
    return (NOT_STORAGE_CODE, f"These are not storage figures: {what}.")


def without_cache_warnings(warnings: Iterable[tuple[str, str]], engines: Iterable[str]) -> list[tuple[str, str]]:
    """``warnings`` less the page-cache ones where no engine's data goes through a file."""
    if moves_file_data(engines):
        return list(warnings)
    return [(code, message) for code, message in warnings if code not in CACHE_CODES]


def suspicious_results(record: RunRecord) -> list[tuple[str, str]]:
    """(code, sentence) for each reason to doubt the record's figures.

    Page-cache checks only where every engine reads and writes file data on the target.
    """
    engines = record_engines(record)
    if not moves_file_data(engines):
        note = not_storage_warning(engines)
        return [note] if note is not None else []
    warnings: list[tuple[str, str]] = []
    direct = _direct_io(record.options)
    read = record.figures_of("read")
    p50_ns = read.lat_p50_ns if read is not None else None
    if read is not None and p50_ns is not None and read.total_ios and p50_ns < IMPOSSIBLE_READ_P50_NS:
        warnings.append(
            (
                "cache-latency",
                f"Half of the reads completed in {p50_ns:,.0f} ns or less (under "
                f"{IMPOSSIBLE_READ_P50_NS / 1000:.0f} us), faster than any storage device: the page cache served them"
                + ("" if direct else " (direct I/O was off)")
                + ". Use direct=1 or a file larger than RAM to measure the device.",
            )
        )
    for direction, device_key in (("read", "device_read_iops"), ("write", "device_write_iops")):
        fio_iops = record.metric(direction, "iops")
        device_iops = _mean_of(record.samples, device_key)
        # With direct I/O the block layer may legitimately merge requests.
        if direct or not fio_iops or fio_iops < DEVICE_GAP_MIN_IOPS or device_iops is None:
            continue
        if fio_iops > DEVICE_GAP_FACTOR * max(device_iops, 1.0):
            warnings.append(
                (
                    f"cache-{direction}-gap",
                    f"fio reported {fio_iops:,.0f} {direction} IOPS but the device itself served "
                    f"{device_iops:,.0f}/s: most {direction}s stayed in the page cache, "
                    "so this is not the device's speed.",
                )
            )
    filesystem = str(record.target.get("filesystem", ""))
    if filesystem in ("tmpfs", "ramfs"):
        warnings.append(
            ("cache-memory-fs", f"The target is on {filesystem}: this measured memory, not storage.")
        )
    return warnings
