"""fio's normal report, read by :mod:`iotui.core.fio.text_report` -> one record per fio run.

Each reporting group is a section. A group printed as one block (one job, or
``group_reporting``) keeps that block's figures; a group whose jobs were
printed one by one is merged as fio merges a group (``sum_thread_stats``):
I/O counts and bytes summed, the longest runtime, IOPS = I/Os x 1000 /
runtime, bandwidth = bytes x 1000 / runtime, the mean latency weighted by
I/O count, min/max the extremes. fio's "Run status group" line prints the
group's bandwidth: the merged figure is kept only where it prints as that
line does; else the line's figure is the group's. Percentiles of several
jobs cannot be merged without fio's histogram bins, which the text does not
have: they are named in the direction's ``missing`` list, never taken from
one job.

Rounding: fio prints IOPS and bandwidth rounded (2.x truncates IOPS to an
integer; 3.x keeps 4 digits and scales with k/M). Where the block also prints
the exact inputs (the "issued" I/O count, the runtime, a fixed block size),
the exact figure is kept when fio's own printing of it reproduces the text
(:func:`iotui.core.fio.printed.reproduces`); the printed figure is kept beside
it as ``iops_printed`` / ``bw_bytes_printed``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from typing import Any

from iotui.core.fio.normalize import MAX_INT, clean_text
from iotui.core.fio.printed import bytes_of, count_of, reproduces, split_rate
from iotui.core.fio.sections import SECTION_OPTION_KEYS
from iotui.core.fio.terse import read_terse_reports
from iotui.core.fio.text_report import TEXT_DIRECTIONS, Block, DirectionText, GroupLine, TextReport, read_reports
from iotui.core.records.record import RunRecord, section_total_iops

UNKNOWN = "unknown"
PERCENTILE_KEYS = ("lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns")


def _printed_bw(text: str, legacy: bool) -> Decimal:
    return bytes_of(text, legacy=legacy)


def _rate_reproduces(io_bytes: int, runtime_ms: int, text: str, legacy: bool) -> bool:
    """Whether fio, printing ``io_bytes`` over ``runtime_ms`` as a rate, could have printed ``text``.

    fio 3.x prints bytes x 1000 / runtime. fio 2.x versions printed powers of 1024 named K/M
    (kb_base=1024; 1000 with kb_base=1000) and computed the figure as bytes/s, KiB x 1000 /
    runtime already in K (the group lines), or bytes / ms in K: each is tried.
    """
    digits, pow2, bits = split_rate(text)
    scale = 8 if bits == 1 else 1
    per_s = io_bytes * 1000 // runtime_ms * scale
    if not legacy:
        return reproduces(per_s, digits, pow2=pow2, legacy=False)
    candidates = (
        (per_s, 0),
        ((io_bytes // 1024) * 1000 // runtime_ms * scale, 1),
        (io_bytes // runtime_ms * scale, 1),
    )
    return any(
        reproduces(value, digits, pow2=base2, legacy=True, first=first)
        for value, first in candidates for base2 in (True, False)
    )


def _io_bytes(block: Block, direction: str, figures: DirectionText) -> tuple[int | None, int | None]:
    """(exact bytes, printed bytes): exact where the count and a fixed block size are known and print as fio did."""
    printed = int(bytes_of(figures.io_text, legacy=figures.legacy)) if figures.io_text else None
    total_ios = block.total_ios(direction)
    sizes = {block.block_bytes.get(d) for d in (("read", "write") if direction == "mixed" else (direction,))}
    size = sizes.pop() if len(sizes) == 1 else None
    if total_ios is None or not size:
        return None, printed
    exact = total_ios * size
    if figures.io_text:
        digits, pow2, _ = split_rate(figures.io_text)
        kinds = (True, False) if figures.legacy else (pow2,)  # fio 2.x: "MB" was usually MiB
        if not any(reproduces(exact, digits, pow2=kind, legacy=figures.legacy) for kind in kinds):
            return None, printed
    return exact, printed


def _one_block(block: Block, direction: str, figures: DirectionText) -> dict[str, Any]:
    """One job block's direction: exact figures where fio's printing reproduces the text."""
    printed_iops = count_of(figures.iops_text)
    printed_bw = _printed_bw(figures.bw_text, figures.legacy)
    table: dict[str, Any] = {"iops": float(printed_iops), "iops_printed": _plain(printed_iops)}
    total_ios = block.total_ios(direction)
    runtime_ms = figures.runtime_ms
    if total_ios is not None and runtime_ms:
        if reproduces(total_ios * 1000 // runtime_ms, figures.iops_text, pow2=False, legacy=figures.legacy):
            table["iops"] = total_ios * 1000 / runtime_ms
            table["total_ios"] = total_ios
    exact_io, printed_io = _io_bytes(block, direction, figures)
    table["bw_bytes"] = _plain(printed_bw)
    table["bw_bytes_printed"] = _plain(printed_bw)
    if exact_io is not None and runtime_ms:
        if _rate_reproduces(exact_io, runtime_ms, figures.bw_text, figures.legacy):
            table["bw_bytes"] = exact_io * 1000 // runtime_ms
    if exact_io is not None or printed_io is not None:
        table["io_bytes"] = exact_io if exact_io is not None else printed_io
    table.update(figures.lat)
    return table


def _plain(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


def _merged(blocks: list[Block], direction: str, line: GroupLine | None) -> tuple[dict[str, Any], list[str]]:
    """Several blocks of one group, merged as fio merges them; the group line checks the bandwidth."""
    doing = [(b, b.directions[direction]) for b in blocks if direction in b.directions]
    runtimes = [f.runtime_ms or 0 for _, f in doing]
    runtime_ms = max(runtimes + ([line.run_max_ms] if line else []))
    counts = [b.total_ios(direction) for b, _ in doing]
    exact_ios = [_io_bytes(b, direction, f)[0] for b, f in doing]
    notes: list[str] = []
    table: dict[str, Any] = {}
    if all(c is not None for c in counts) and runtime_ms:
        total = sum(c for c in counts if c is not None)
        table["iops"], table["total_ios"] = total * 1000 / runtime_ms, total
    else:  # no counts printed: each job's printed IOPS over its runtime, over the group's runtime
        moved = sum(float(count_of(f.iops_text)) * (f.runtime_ms or 0) for _, f in doing)
        table["iops"] = moved / runtime_ms if runtime_ms else sum(float(count_of(f.iops_text)) for _, f in doing)
        notes.append("IOPS from each job's printed IOPS (the report has no I/O counts)")
    printed_bw = int(_printed_bw(line.bw_text, line.legacy)) if line else None
    if all(e is not None for e in exact_ios) and runtime_ms:
        io_bytes = sum(e for e in exact_ios if e is not None)
        table["io_bytes"] = io_bytes
        exact_bw = io_bytes * 1000 // runtime_ms
        if line is None or _rate_reproduces(io_bytes, runtime_ms, line.bw_text, line.legacy):
            table["bw_bytes"] = exact_bw
        else:
            notes.append(f"the jobs' bytes ({exact_bw} B/s) do not print as the group line's bw={line.bw_text}")
    elif line is not None:
        table["io_bytes"] = int(bytes_of(line.io_text, legacy=line.legacy))
    printed_ios = [_io_bytes(b, direction, f)[1] for b, f in doing]
    if printed_bw is not None:
        table["bw_bytes_printed"] = printed_bw
        table.setdefault("bw_bytes", printed_bw)
    elif "bw_bytes" not in table and all(io is not None for io in printed_ios) and runtime_ms:
        table["io_bytes"] = sum(io for io in printed_ios if io is not None)  # no group line (terse): fio's sum
        table["bw_bytes"] = table["io_bytes"] * 1000 // runtime_ms
    else:
        table.setdefault("bw_bytes", int(sum(_printed_bw(f.bw_text, f.legacy) for _, f in doing)))
    lats = [(f.lat, c) for (_, f), c in zip(doing, counts) if "lat_mean_ns" in f.lat]
    if len(lats) == len(doing):
        # fio weights each job's mean by its samples: the I/O count, else printed IOPS x runtime
        weights = [
            c if c is not None else float(count_of(f.iops_text)) * (f.runtime_ms or 0)
            for (_, f), c in zip(doing, counts)
        ]
        if sum(weights):
            table["lat_mean_ns"] = sum(lat["lat_mean_ns"] * w for (lat, _), w in zip(lats, weights)) / sum(weights)
        table["lat_min_ns"] = min(lat["lat_min_ns"] for lat, _ in lats)
        table["lat_max_ns"] = max(lat["lat_max_ns"] for lat, _ in lats)
    table["missing"] = list(PERCENTILE_KEYS)
    return table, notes


def _group_section(groupid: int, blocks: list[Block], report: TextReport) -> tuple[dict[str, Any], list[str]]:
    names = list(dict.fromkeys(clean_text(b.name)[:200] for b in blocks))
    section: dict[str, Any] = {"name": names[0], "jobs": names, "groupid": groupid}
    lines = report.group_lines.get(groupid, {})
    runtimes = [f.runtime_ms for b in blocks for f in b.directions.values() if f.runtime_ms]
    runtimes += [line.run_max_ms for line in lines.values()]
    if runtimes:
        section["duration_s"] = max(runtimes) / 1000.0
    options = _section_options(blocks, report)
    if options:
        section["options"] = options
    notes: list[str] = []
    for direction in TEXT_DIRECTIONS:
        doing = [b for b in blocks if direction in b.directions]
        if not doing:
            continue
        if len(doing) == 1:
            section[direction] = _one_block(doing[0], direction, doing[0].directions[direction])
        else:
            section[direction], why = _merged(doing, direction, lines.get(direction))
            notes += [f"{section['name']} {direction}: {note}" for note in why]
        table = section[direction]
        absent = [key for key in PERCENTILE_KEYS if key not in table]
        if "lat_mean_ns" in table and absent:  # "All clients" prints none; a trimmed paste may lack some
            table["missing"] = absent
    cpu = _fio_cpu(blocks, section)
    if cpu:
        section["cpu"] = cpu
    return section, notes


def _fio_cpu(blocks: list[Block], section: dict[str, Any]) -> dict[str, float]:
    """fio's own ``cpu : usr=…%, sys=…%`` of the group (one block's as printed; several weighted by
    their jobs), its cores, and IOPS per fio core."""
    measured = [b for b in blocks if b.cpu]
    jobs = sum(b.jobs for b in measured)
    if not measured or jobs <= 0:
        return {}
    if len(measured) == 1:
        cpu = {"fio_user_pct": measured[0].cpu["usr"], "fio_system_pct": measured[0].cpu["sys"]}
    else:
        cpu = {
            "fio_user_pct": sum(b.cpu["usr"] * b.jobs for b in measured) / jobs,
            "fio_system_pct": sum(b.cpu["sys"] * b.jobs for b in measured) / jobs,
        }
    cores = sum((b.cpu["usr"] + b.cpu["sys"]) / 100.0 * b.jobs for b in measured)
    if cores > 0:
        cpu["fio_cpu_cores"] = cores
        cpu["iops_per_fio_core"] = section_total_iops(section) / cores
    return cpu


def _section_options(blocks: list[Block], report: TextReport) -> dict[str, str]:
    seen: dict[str, list[str]] = {}
    for block in blocks:
        for key, value in block.options.items():
            if key in SECTION_OPTION_KEYS and value not in seen.setdefault(key, []):
                seen[key].append(value)
    options = {key: "/".join(values) for key, values in seen.items()}
    command = report.context.command_options
    options.update({k: v for k, v in command.items() if k in SECTION_OPTION_KEYS})
    if "numjobs" not in options and len(blocks) > 1 and len({b.name for b in blocks}) == 1:
        options["numjobs"] = str(sum(b.jobs for b in blocks))
    return {clean_text(k): clean_text(v) for k, v in options.items()}


def report_sections(report: TextReport) -> tuple[list[dict[str, Any]], list[str]]:
    """Every reporting group of one printed run as a section, in fio's order, and notes on merges."""
    groups: dict[int, list[Block]] = {}
    for block in report.blocks:
        if block.directions:
            groups.setdefault(block.groupid, []).append(block)
    sections: list[dict[str, Any]] = []
    notes: list[str] = []
    for groupid, blocks in sorted(groups.items()):
        section, why = _group_section(groupid, blocks, report)
        if any(d in section for d in TEXT_DIRECTIONS):
            sections.append(section)
            notes += why
    return sections, notes


def _too_big(sections: list[dict[str, Any]]) -> bool:
    return any(
        isinstance(value, (int, float)) and value > MAX_INT
        for section in sections for d in TEXT_DIRECTIONS for value in section.get(d, {}).values()
    )


def _run_options(report: TextReport) -> dict[str, str]:
    """The command line's options; one job name: its header's too; several: each as ``name.key``."""
    options: dict[str, str] = {}
    names = list(dict.fromkeys(b.name for b in report.blocks))
    for name in names:
        first = next(b for b in report.blocks if b.name == name)
        for key, value in first.options.items():
            options[key if len(names) == 1 else f"{name}.{key}"] = value
    options.update(report.context.command_options)  # the command line as typed beats the header
    return {clean_text(k): clean_text(v) for k, v in options.items()}


def _record(report: TextReport) -> RunRecord | None:
    sections, notes = report_sections(report)
    if not sections or _too_big(sections):
        return None
    hosts: list[dict[str, Any]] = []
    for name, host_report in report.hosts:
        host_sections, _ = report_sections(host_report)
        if host_sections and not _too_big(host_sections):
            hosts.append({"name": clean_text(name)[:200], "sections": host_sections})
    options = _run_options(report if not report.hosts else report.hosts[0][1])
    names = list(dict.fromkeys(b.name for b in (report.hosts[0][1] if report.hosts else report).blocks))
    duration_s = max((s.get("duration_s", 0.0) for s in sections), default=0.0)
    started = next((b.started for b in report.blocks if b.started), None)
    record = RunRecord(
        run={
            "id": "",
            "preset": "import",
            "title": clean_text(", ".join(names))[:200] or "fio run",
            "status": "imported",
            "started": started or dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc),
            "duration_s": round(float(duration_s), 3),
            "tool_version": report.context.version if report.context.version is not None else UNKNOWN,
            "argv": [clean_text(arg) for arg in report.context.argv],
            "report": "",
        },
        host={
            "hostname": clean_text(", ".join(dict.fromkeys(h["name"] for h in hosts)))[:200] or UNKNOWN,
            "system": UNKNOWN,
            "kernel": UNKNOWN,
            "cpu_model": UNKNOWN,
        },
        target={
            "path": options.get("filename") or options.get("directory") or UNKNOWN,
            "filesystem": UNKNOWN,
            "device": clean_text(", ".join(report.devices))[:200] or UNKNOWN,
            "mount_options": UNKNOWN,
        },
        options=options,
        sections=sections,
        hosts=hosts,
    )
    for section in sections:
        missing = [d for d in TEXT_DIRECTIONS if section.get(d, {}).get("missing")]
        if missing:
            record.add_warning(
                "percentiles-missing",
                f"{section['name']}: the report prints each job's latency percentiles, not the group's "
                f"({', '.join(missing)}); they are left out (fio's JSON output with json+ has them).",
            )
    for note in notes:
        record.add_warning("text-merge", clean_text(note))
    for block in report.blocks:
        if block.error:
            record.add_warning("fio-message", clean_text(f"fio reported err={block.error} for job {block.name}."))
    return record


def parse_normal_output(text: str) -> list[RunRecord]:
    """One record per fio run printed in the text, normal or terse (none: not a fio report)."""
    records: list[RunRecord] = []
    for report in read_reports(text) or read_terse_reports(text):
        try:
            record = _record(report)
        except (InvalidOperation, ValueError, OverflowError, ZeroDivisionError):
            continue
        if record is not None:
            records.append(record)
    return records
