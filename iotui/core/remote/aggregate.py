"""Hosts' final fio reports -> each host's sections and the aggregate sections.

A section is fio's reporting group (``groupid``). A host's own sections are
exactly what a local run records (:func:`iotui.core.fio.sections.fio_sections`).
The aggregate of a section holds the jobs of every host in that group, which
ran at the same time (the start barrier): IOPS and bandwidth are the sums of
the hosts' own figures, counts and bytes are summed, latency is walked over
the merged json+ bins as fio walks them and the mean is weighted by the
completion counts. CPU is the sum of the hosts' fio cores (fio's usr_cpu +
sys_cpu of each job entry, in % of one core), with IOPS per fio core for each
host (in its own sections) and for the whole.
"""

from __future__ import annotations

import copy
from typing import Any

from iotui.core.fio.intervals import DIRECTIONS, snapshot_from_document
from iotui.core.fio.sections import fio_sections, group_entries, merged_direction, section_of_group
from iotui.core.runs.pauses import PauseLog, lost_together, unpaused_latency


def _ran_ms(job: dict) -> int:
    # The directions' runtimes: a job that never started may report the time
    # since boot as its job_runtime.
    return max(
        (int(job[d].get("runtime", 0) or 0) for d in DIRECTIONS if isinstance(job.get(d), dict)),
        default=0,
    )


def _fio_cores(entries: list[dict]) -> float:
    return sum(float(e.get("usr_cpu", 0.0) or 0.0) + float(e.get("sys_cpu", 0.0) or 0.0) for e in entries) / 100.0


def _iops(section: dict[str, Any]) -> float:
    return sum(float(section[d].get("iops", 0.0)) for d in DIRECTIONS if isinstance(section.get(d), dict))


def _add_cores(section: dict[str, Any], cores: float) -> None:
    cpu = section.setdefault("cpu", {})
    cpu["fio_cpu_cores"] = cores
    if cores > 0:
        cpu["iops_per_fio_core"] = _iops(section) / cores


def host_sections(doc: dict) -> list[dict[str, Any]]:
    """One host's sections, as a local run records them, with its fio cores."""
    sections = fio_sections(doc)
    entries_by_group = dict(group_entries(doc))
    for section in sections:
        _add_cores(section, _fio_cores(entries_by_group.get(int(section.get("groupid", 0)), [])))
    return sections


def aggregate_sections(
    docs: dict[str, dict],
    own_sections: dict[str, list[dict[str, Any]]] | None = None,
    pause_logs: dict[str, PauseLog] | None = None,
) -> list[dict[str, Any]]:
    """The sections of every host merged by groupid, each with ``hosts``: how many it holds.

    ``own_sections``: each host's sections as its record entry holds them (a paused host's
    leave its pauses out); ``pause_logs``: the hosts' pauses, for the aggregate's latency.
    """
    entries: dict[int, list[dict]] = {}
    own: dict[int, list[dict[str, Any]]] = {}
    for host, doc in docs.items():
        by_group = dict(group_entries(doc))
        sections = (own_sections or {}).get(host)
        for section in sections if sections is not None else host_sections(doc):
            groupid = int(section.get("groupid", 0))
            jobs = [job for job in by_group.get(groupid, []) if _ran_ms(job)]
            if not jobs:
                continue  # a section a stop came before
            entries.setdefault(groupid, []).extend(jobs)
            own.setdefault(groupid, []).append(section)
    sections = []
    for groupid, jobs in sorted(entries.items()):
        per_host = own[groupid]
        section = section_of_group(groupid, jobs)
        for direction in DIRECTIONS:
            doing = [s[direction] for s in per_host if isinstance(s.get(direction), dict)]
            if not doing:
                continue
            merged = merged_direction([job[direction] for job in jobs if isinstance(job.get(direction), dict)])
            merged["iops"] = sum(float(t.get("iops", 0.0)) for t in doing)
            merged["bw_bytes"] = sum(int(t.get("bw_bytes", 0)) for t in doing)
            section[direction] = merged
        section["duration_s"] = max(float(s.get("duration_s", 0.0)) for s in per_host)
        paused_s = max(float(s.get("paused_s", 0.0) or 0.0) for s in per_host)
        if paused_s > 0:
            _unpause_aggregate(section, per_host, jobs, [log for log in (pause_logs or {}).values()], paused_s)
        section["hosts"] = len(per_host)
        section["cpu"] = {}
        _add_cores(section, sum(float(s.get("cpu", {}).get("fio_cpu_cores", 0.0)) for s in per_host))
        sections.append(section)
    return sections


def _unpause_aggregate(
    section: dict[str, Any], per_host: list[dict[str, Any]], jobs: list[dict], logs: list[PauseLog], paused_s: float
) -> None:
    """A section the hosts were paused in: IOPS and bandwidth are already the sums of the hosts'
    unpaused figures; latency is walked over every host's bins less their paused intervals' bins;
    fio's own figures (the hosts' summed, the merged latency) stay under ``fio``."""
    section["paused_s"] = round(paused_s, 3)
    gid = int(section.get("groupid", 0))
    totals = snapshot_from_document({"jobs": jobs})
    for direction in DIRECTIONS:
        table = section.get(direction)
        if not isinstance(table, dict) or direction not in totals.directions:
            continue
        fio_own = copy.deepcopy(table)
        hosts_fio = [s[direction].get("fio", s[direction]) for s in per_host if isinstance(s.get(direction), dict)]
        fio_own["iops"] = sum(float(t.get("iops", 0.0)) for t in hosts_fio)
        fio_own["bw_bytes"] = sum(int(t.get("bw_bytes", 0)) for t in hosts_fio)
        table["fio"] = fio_own
        unpaused_latency(table, totals.directions[direction], lost_together(logs, gid, direction))


def version_warning(versions: dict[str, str]) -> str | None:
    """A sentence when the hosts run different fio versions (they still run)."""
    distinct = sorted(set(versions.values()))
    if len(distinct) <= 1:
        return None
    listing = ", ".join(f"{host} {version}" for host, version in versions.items())
    return f"The hosts run different fio versions ({listing}); their figures may not be comparable."
