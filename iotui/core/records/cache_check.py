"""Flag results that are probably a lie: the page cache answered, not the device.

These checks look at a record's numbers only, so they apply to live runs and
to imported results alike (the SeaweedFS study's 394k IOPS sequential 4 KiB
read at a 0 ns median is the textbook case).
"""

from __future__ import annotations

from iotui.core.records.record import RunRecord

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


def suspicious_results(record: RunRecord) -> list[tuple[str, str]]:
    """(code, sentence) for each reason to doubt the record's figures."""
    warnings: list[tuple[str, str]] = []
    direct = _direct_io(record.options)
    read = record.summary.get("read", {})
    p50_ns = read.get("lat_p50_ns")
    if isinstance(p50_ns, (int, float)) and read.get("total_ios") and p50_ns < IMPOSSIBLE_READ_P50_NS:
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
