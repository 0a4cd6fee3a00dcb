"""fio results from anywhere -> run records (status "imported").

Reads one file: fio JSON or json+ (fio 2.x or 3.x, with or without
``group_reporting``, several jobs, client/server output), several documents
in one file (a ``--status-interval`` capture becomes samples; separate runs
become separate records), with any text before, between or after the JSON.
Files without JSON are read as fio's normal human-readable report or its
terse lines (:mod:`iotui.core.records.text_sections`). What cannot be imported raises
:class:`ImportRefused` with the file and the reason. ``docs/import.md``
describes what is kept and what is unknown.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from iotui.core.fio.section_seconds import SectionSecondsDeriver
from iotui.core.fio.json_documents import split_documents
from iotui.core.fio.normalize import (
    DIRECTIONS,
    DocumentError,
    clean_text,
    host_jobs,
    is_fio_document,
    normalize_document,
    summary_jobs,
)
from iotui.core.fio.sections import fio_sections, merged_direction
from iotui.core.fio.summary import sample_row
from iotui.core.input_files import InputFileError, read_input_file
from iotui.core.terminal_text import strip_document, terminal_safe
from iotui.core.records.cache_check import suspicious_results
from iotui.core.records.record import RunRecord, section_total_iops
from iotui.core.records.files import validate_toml_dict
from iotui.core.records.schema import RecordError
from iotui.core.records.section_figures import assign_sections, section_host_figures

IMPORT_PRESET = "import"
MAX_MESSAGES = 200
UNKNOWN = "unknown"


class ImportRefused(Exception):
    """A file that cannot be imported; str() is a sentence naming the file and the reason."""


@dataclass
class ImportedRun:
    """One imported record and fio's final JSON report for it (None for text reports)."""

    record: RunRecord
    fio_report: dict | None


def import_fio_file(path: Path | str) -> list[RunRecord]:
    """Every run found in the file, as validated records; or ImportRefused."""
    return [run.record for run in import_fio_runs(path)]


def import_fio_runs(path: Path | str) -> list[ImportedRun]:
    """Like :func:`import_fio_file`, keeping fio's final report for each run."""
    path = Path(path)
    try:
        raw = read_input_file(path, "file")
    except InputFileError as error:
        raise ImportRefused(str(error)) from None
    return runs_from_bytes(path, raw)


def runs_from_bytes(path: Path, raw: bytes) -> list[ImportedRun]:
    """The runs in a file's content, already read (``path`` names it in records and refusals)."""
    try:
        return _runs_from_bytes(path, raw)
    except _BeyondTheCalendar as error:
        raise ImportRefused(f"{path}: {error}") from None


class _BeyondTheCalendar(Exception):
    """A run's length that no start time can be counted back for (a report's garbage)."""


def _counted_back(moment: dt.datetime, duration_s: float) -> dt.datetime:
    """``moment`` less the run's length; a length past any calendar date is refused."""
    try:
        return moment - dt.timedelta(seconds=duration_s)
    except (OverflowError, ValueError):
        raise _BeyondTheCalendar(
            f"the run's length, {duration_s:g} s by its report, reaches back before any calendar date; "
            "the report is damaged."
        ) from None


def _runs_from_bytes(path: Path, raw: bytes) -> list[ImportedRun]:
    if not raw.strip():
        raise ImportRefused(f"{path}: the file is empty.")
    # Names from elsewhere (job names, fio's messages) reach a terminal and the record: no escapes.
    text = terminal_safe(raw.decode("utf-8", errors="replace"), keep_newlines=True)
    documents, text_lines = split_documents(text)
    if "\\" in text:
        # "\u001b" written inside JSON strings: only an escape can put a control character in a
        # string of JSON whose text has none (strict JSON has no raw control character in a string).
        documents = [strip_document(doc) for doc in documents]
    fio_documents = [doc for doc in documents if is_fio_document(doc)]
    if fio_documents:
        return _runs_from_json(path, raw, fio_documents, text_lines)
    from iotui.core.records.text_sections import parse_normal_output

    text_runs = parse_normal_output(text)
    if text_runs:
        return [
            ImportedRun(_finish(record, path, raw, index), None)
            for index, record in enumerate(text_runs)
        ]
    if documents:
        raise ImportRefused(
            f"{path}: the JSON in it is not fio output (no 'jobs' or 'client_stats' array)."
        )
    raise ImportRefused(
        f"{path}: no fio JSON document and no fio report found; "
        "save fio's output with --output-format=json (or json+) and import that."
    )


# -- JSON documents -> runs ------------------------------------------------------


def _signature(doc: dict[str, Any]) -> tuple:
    return tuple(
        (job.get("jobname"), tuple(sorted(job.get("job options", {}).items())), job.get("hostname"), job.get("port"))
        for job in doc["jobs"]
    )


def _elapsed(doc: dict[str, Any]) -> float | None:
    values = [job["elapsed"] for job in doc["jobs"] if "elapsed" in job]
    return max(values) if values else None


def group_runs(documents: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Consecutive documents of one run stay together (a status-interval capture).

    A new run starts when the jobs differ, or fio's clock (``timestamp_ms``
    or the jobs' ``elapsed``) goes backwards. The end of ``ramp_time`` resets
    the counters but not the clock, so it stays one run.
    """
    groups: list[list[dict[str, Any]]] = []
    for doc in documents:
        if groups:
            previous = groups[-1][-1]
            before, after = _elapsed(previous), _elapsed(doc)
            same_run = (
                _signature(previous) == _signature(doc)
                and doc["timestamp_ms"] >= previous["timestamp_ms"]
                and not (before is not None and after is not None and after < before)
            )
            if same_run:
                groups[-1].append(doc)
                continue
        groups.append([doc])
    return groups


def _mtime(path: Path) -> dt.datetime | None:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.timezone.utc)
    except (OSError, ValueError, OverflowError):
        return None


def _runs_from_json(path: Path, raw: bytes, documents: list[dict], text_lines: list[str]) -> list[ImportedRun]:
    normalized: list[tuple[dict[str, Any], dict]] = []
    for index, doc in enumerate(documents):
        where = "" if len(documents) == 1 else f"in fio document {index + 1}, "
        try:
            normalized.append((normalize_document(doc), doc))
        except DocumentError as error:
            raise ImportRefused(f"{path}: {where}{error}.") from None
    originals = {id(clean): original for clean, original in normalized}
    runs: list[ImportedRun] = []
    skipped: list[str] = []
    groups = group_runs([clean for clean, _ in normalized])
    for group in groups:
        record = _record_from_group(group, _mtime(path))
        if record is None:
            errors = sorted({job.get("error", 0) for job in group[-1]["jobs"]} - {0})
            skipped.append(f"fio error {errors[0]}" if errors else "no I/O")
            continue
        for line in text_lines[:MAX_MESSAGES]:
            record.messages.append({"source": "stdout", "text": clean_text(line)})
            if line.startswith("fio:") or "error" in line.lower():
                record.add_warning("fio-message", clean_text(line))
        runs.append(ImportedRun(_finish(record, path, raw, len(runs)), originals[id(group[-1])]))
    if not runs:
        reason = skipped[0] if len(set(skipped)) == 1 else ", ".join(sorted(set(skipped)))
        raise ImportRefused(f"{path}: no job in the fio output did any I/O ({reason}).")
    return runs


def _started(
    final: dict[str, Any], duration_s: float, file_mtime: dt.datetime | None
) -> tuple[dt.datetime, str | None]:
    """The report's time minus the run's length; without a clock in the document, the file's mtime.

    Returns the time and where it came from (``None``: fio's own timestamp).
    """
    if not final.get("clock_from_runtime"):
        try:
            end = dt.datetime.fromtimestamp(final["timestamp_ms"] / 1000, dt.timezone.utc)
            started = end - dt.timedelta(seconds=duration_s)
        except (ValueError, OverflowError, OSError):
            started = None
        if started is not None and started.year >= 2000:
            return started, None
    mtime = file_mtime or dt.datetime.now(dt.timezone.utc)
    return _counted_back(mtime, duration_s).replace(microsecond=0), "file-mtime"


def _options(final: dict[str, Any]) -> dict[str, str]:
    """Global options as plain keys; with several job names, each job's own as ``name.key``."""
    options = dict(final["global options"])
    jobs = host_jobs(final) or final["jobs"]
    first_of_name: dict[str, dict[str, Any]] = {}
    for job in jobs:
        first_of_name.setdefault(job["jobname"], job)
    if len(first_of_name) == 1:
        options.update(jobs[0].get("job options", {}))
        return options
    for name, first in first_of_name.items():
        for key, value in first.get("job options", {}).items():
            options[f"{name}.{key}"] = value
    return options


def _fio_cpu_cores(jobs: list[dict[str, Any]], global_options: dict[str, str] | None = None) -> float | None:
    """fio's own CPU use in cores, from the jobs' ``usr_cpu`` + ``sys_cpu``.

    fio reports CPU as percent of one CPU per job; with ``group_reporting``
    one entry stands for ``numjobs`` jobs and holds their average.
    """
    per_name: dict[str, int] = {}
    for job in jobs:
        per_name[job["jobname"]] = per_name.get(job["jobname"], 0) + 1
    cores = 0.0
    seen = False
    for job in jobs:
        if "usr_cpu" not in job and "sys_cpu" not in job:
            continue
        seen = True
        try:
            default = (global_options or {}).get("numjobs", "1")  # numjobs in [global] counts too
            numjobs = max(int(job.get("job options", {}).get("numjobs", default)), 1)
        except ValueError:
            numjobs = 1
        clones = numjobs // per_name[job["jobname"]] if numjobs >= per_name[job["jobname"]] else 1
        cores += (job.get("usr_cpu", 0) + job.get("sys_cpu", 0)) / 100.0 * clones
    return cores if seen and cores > 0 else None


def _host_percentiles(final: dict[str, Any], sections: list[dict[str, Any]]) -> None:
    """fio prints no percentiles for "All clients"; walk the hosts' merged bins of that group instead."""
    hosts = host_jobs(final)
    if not final.get("clients") or len(hosts) < 2:
        return
    by_group: dict[object, list[dict[str, Any]]] = {}
    for job in hosts:
        by_group.setdefault(job.get("groupid", 0), []).append(job)
    for section in sections:
        entries = by_group.get(section.get("groupid", 0), [])
        for direction in DIRECTIONS:
            table = section.get(direction)
            doing = [job[direction] for job in entries if isinstance(job.get(direction), dict)]
            if not isinstance(table, dict) or "lat_p50_ns" in table or len(doing) < 2:
                continue
            merged = merged_direction(doing)
            for key, value in merged.items():
                if key.startswith("lat_p") or key == "lat_source":
                    table[key] = value


def _name_missing_percentiles(sections: list[dict[str, Any]]) -> None:
    """A group of several jobs without json+ bins has no merged percentiles: named, not invented."""
    keys = ("lat_p50_ns", "lat_p90_ns", "lat_p99_ns", "lat_p99_9_ns")
    for section in sections:
        for direction in DIRECTIONS:
            table = section.get(direction)
            if isinstance(table, dict) and "lat_mean_ns" in table:
                absent = [key for key in keys if key not in table]
                if absent:
                    table["missing"] = absent


def _section_cpu_cores(final: dict[str, Any], sections: list[dict[str, Any]], jobs: list[dict[str, Any]]) -> None:
    """fio's own CPU use per section, in cores, and the section's IOPS per fio core."""
    by_group: dict[object, list[dict[str, Any]]] = {}
    for job in jobs:
        by_group.setdefault(job.get("groupid", 0), []).append(job)
    for section in sections:
        entries = by_group.get(section.get("groupid", 0), [])
        cores = _fio_cpu_cores(entries, final.get("global options"))
        if not cores:
            continue
        cpu = section.setdefault("cpu", {})
        cpu["fio_cpu_cores"] = cores
        cpu["iops_per_fio_core"] = section_total_iops(section) / cores


def _host_sections(final: dict[str, Any]) -> list[dict[str, Any]]:
    """Client/server output: each server's own sections."""
    by_host: dict[tuple[str, int | None], list[dict[str, Any]]] = {}
    for job in host_jobs(final):
        by_host.setdefault((str(job.get("hostname", UNKNOWN)), job.get("port")), []).append(job)
    hosts: list[dict[str, Any]] = []
    for (name, port), entries in by_host.items():
        host: dict[str, Any] = {"name": name, "sections": fio_sections({"jobs": entries})}
        if port is not None:
            host["port"] = int(port)
        hosts.append(host)
    return hosts


def _record_from_group(group: list[dict[str, Any]], file_mtime: dt.datetime | None = None) -> RunRecord | None:
    final = group[-1]
    jobs = summary_jobs(final)
    sections = fio_sections({"jobs": jobs, "global options": final.get("global options", {})})
    if not sections:
        return None
    _host_percentiles(final, sections)
    _name_missing_percentiles(sections)
    samples: list[dict[str, Any]] = []
    if len(group) > 1:
        deriver = SectionSecondsDeriver()
        groupids: list[int | None] = []
        for doc in group:
            step = {"timestamp_ms": doc["timestamp_ms"], "jobs": summary_jobs(doc)}
            for interval in deriver.feed(step):
                samples.append(sample_row(interval))
                groupids.append(interval.groupid)
        assign_sections(sections, samples, groupids)
        for index, section in enumerate(sections):
            mine = [row for row in samples if row.get("section") == index]
            section_host_figures(section, mine, [None] * len(mine))
    _section_cpu_cores(final, sections, host_jobs(final) or jobs)
    runtime_s = max((job[d]["runtime"] for job in jobs for d in DIRECTIONS if d in job), default=0) / 1000
    elapsed = _elapsed(final)
    duration_s = float(max(elapsed or 0, runtime_s))
    options = _options(final)
    names = list(dict.fromkeys(job["jobname"] for job in (host_jobs(final) or jobs)))
    hostnames = list(dict.fromkeys(job["hostname"] for job in host_jobs(final) if job.get("hostname")))
    started, started_source = _started(final, duration_s, file_mtime)
    record = RunRecord(
        run={
            "id": "",
            "preset": IMPORT_PRESET,
            "title": ", ".join(names)[:200] or "fio run",
            "status": "imported",
            "started": started,
            "started_source": started_source,
            "duration_s": round(duration_s, 3),
            "tool": "fio",
            "tool_version": final["fio version"],
            "argv": [],
            "report": "",
        },
        host={
            "hostname": ", ".join(hostnames)[:200] if hostnames else UNKNOWN,
            "system": UNKNOWN,
            "kernel": UNKNOWN,
            "cpu_model": UNKNOWN,
        },
        target={
            "path": options.get("filename") or options.get("directory") or UNKNOWN,
            "filesystem": UNKNOWN,
            "device": ", ".join(final["devices"]) or UNKNOWN,
            "mount_options": UNKNOWN,
        },
        options=options,
        samples=samples,
        sections=sections,
    )
    if final.get("clients"):
        record.hosts = _host_sections(final)
    return record


# -- common finish -----------------------------------------------------------------


def _finish(record: RunRecord, path: Path, raw: bytes, index: int) -> RunRecord:
    """Id, source, cache check, and validation: what every imported record gets."""
    started = record.started
    if started is None or started.year < 2000:  # no clock in the file: its modification time, marked
        mtime = _mtime(path) or dt.datetime.now(dt.timezone.utc)
        duration_s = float(record.run.get("duration_s") or 0.0)
        record.run["started"] = _counted_back(mtime, duration_s).replace(microsecond=0)
        record.run["started_source"] = "file-mtime"
    digest = hashlib.sha256(raw + f"\0{index}".encode()).hexdigest()
    record.run["id"] = digest[:16]
    record.run["source"] = clean_text(str(path))
    for code, message in suspicious_results(record):
        record.add_warning(code, message)
    try:
        validated = validate_toml_dict(record.to_toml_dict(), str(path))
    except RecordError as error:
        raise ImportRefused(f"{path}: the imported run does not make a valid record ({error})") from None
    return validated
