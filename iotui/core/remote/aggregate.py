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
from collections.abc import Mapping

from iotui.core.fio.intervals import DIRECTIONS, snapshot_from_document
from iotui.core.fio.sections import fio_sections, group_entries, merged_direction, section_of_group
from iotui.core.runs.pauses import PauseLog, lost_together, unpaused_latency


def _table(parent: Mapping[str, object], key: str) -> dict[str, object] | None:
    """``parent[key]`` where it is a table (a direction, ``cpu``, ``fio``), else None."""
    value = parent.get(key)
    return value if isinstance(value, dict) else None


def _float(table: Mapping[str, object], key: str) -> float:
    """A figure of fio's or of a section as a float; absent (or not a number) is 0."""
    value = table.get(key)
    return float(value) if isinstance(value, (int, float)) else 0.0


def _int(table: Mapping[str, object], key: str) -> int:
    value = table.get(key)
    return int(value) if isinstance(value, (int, float)) else 0


def _ran_ms(job: Mapping[str, object]) -> int:
    # The directions' runtimes: a job that never started may report the time
    # since boot as its job_runtime.
    return max((_int(table, "runtime") for d in DIRECTIONS if (table := _table(job, d)) is not None), default=0)


def _fio_cores(entries: list[dict[str, object]]) -> float:
    return sum(_float(e, "usr_cpu") + _float(e, "sys_cpu") for e in entries) / 100.0


def _iops(section: Mapping[str, object]) -> float:
    return sum(_float(table, "iops") for d in DIRECTIONS if (table := _table(section, d)) is not None)


def _add_cores(section: dict[str, object], cores: float) -> None:
    cpu = _table(section, "cpu")
    if cpu is None:
        cpu = section["cpu"] = {}
    cpu["fio_cpu_cores"] = cores
    if cores > 0:
        cpu["iops_per_fio_core"] = _iops(section) / cores


def host_sections(doc: dict[str, object]) -> list[dict[str, object]]:
    """One host's sections, as a local run records them, with its fio cores."""
    sections: list[dict[str, object]] = list(fio_sections(doc))
    entries_by_group = dict(group_entries(doc))
    for section in sections:
        _add_cores(section, _fio_cores(entries_by_group.get(_int(section, "groupid"), [])))
    return sections


def _options_on_each_host(per_host: list[dict[str, object]]) -> dict[str, str]:
    """What ran on each host (its section's options); a value the hosts differ in, joined by "/".

    fio ran ``numjobs`` jobs on each host, not that times the hosts: the section's ``hosts``
    says how many hosts ran it.
    """
    seen: dict[str, list[str]] = {}
    for host_section in per_host:
        options = _table(host_section, "options") or {}
        for key, value in options.items():
            if str(value) not in seen.setdefault(key, []):
                seen[key].append(str(value))
    return {key: "/".join(values) for key, values in seen.items()}


def aggregate_sections(
    docs: Mapping[str, dict[str, object]],
    own_sections: Mapping[str, list[dict[str, object]]] | None = None,
    pause_logs: Mapping[str, PauseLog] | None = None,
) -> list[dict[str, object]]:
    """The sections of every host merged by groupid, each with ``hosts``: how many it holds.

    ``own_sections``: each host's sections as its record entry holds them (a paused host's
    leave its pauses out); ``pause_logs``: the hosts' pauses, for the aggregate's latency.
    """
    entries: dict[int, list[dict[str, object]]] = {}
    own: dict[int, list[dict[str, object]]] = {}
    for host, doc in docs.items():
        by_group = dict(group_entries(doc))
        sections = (own_sections or {}).get(host)
        for host_section in sections if sections is not None else host_sections(doc):
            groupid = _int(host_section, "groupid")
            jobs = [job for job in by_group.get(groupid, []) if _ran_ms(job)]
            if not jobs:
                continue  # a section a stop came before
            entries.setdefault(groupid, []).extend(jobs)
            own.setdefault(groupid, []).append(host_section)
    aggregate: list[dict[str, object]] = []
    for groupid, jobs in sorted(entries.items()):
        per_host = own[groupid]
        section: dict[str, object] = section_of_group(groupid, jobs)
        section.pop("options", None)  # from the hosts' jobs together: numjobs would count hosts
        options = _options_on_each_host(per_host)
        if options:
            section["options"] = options
        for direction in DIRECTIONS:
            doing = [table for s in per_host if (table := _table(s, direction)) is not None]
            if not doing:
                continue
            merged = merged_direction([table for job in jobs if (table := _table(job, direction)) is not None])
            merged["iops"] = sum(_float(t, "iops") for t in doing)
            merged["bw_bytes"] = sum(_int(t, "bw_bytes") for t in doing)
            section[direction] = merged
        section["duration_s"] = max(_float(s, "duration_s") for s in per_host)
        paused_s = max(_float(s, "paused_s") for s in per_host)
        if paused_s > 0:
            _unpause_aggregate(section, per_host, jobs, list((pause_logs or {}).values()), paused_s)
        section["hosts"] = len(per_host)
        section["cpu"] = {}
        _add_cores(section, sum(_float(_table(s, "cpu") or {}, "fio_cpu_cores") for s in per_host))
        aggregate.append(section)
    return aggregate


def _unpause_aggregate(
    section: dict[str, object], per_host: list[dict[str, object]], jobs: list[dict[str, object]], logs: list[PauseLog],
    paused_s: float,
) -> None:
    """A section the hosts were paused in: IOPS and bandwidth are already the sums of the hosts'
    unpaused figures; latency is walked over every host's bins less their paused intervals' bins;
    fio's own figures (the hosts' summed, the merged latency) stay under ``fio``."""
    section["paused_s"] = round(paused_s, 3)
    gid = _int(section, "groupid")
    totals = snapshot_from_document({"jobs": jobs})
    for direction in DIRECTIONS:
        table = _table(section, direction)
        if table is None or direction not in totals.directions:
            continue
        fio_own = copy.deepcopy(table)
        hosts_fio = [_table(t, "fio") or t for s in per_host if (t := _table(s, direction)) is not None]
        fio_own["iops"] = sum(_float(t, "iops") for t in hosts_fio)
        fio_own["bw_bytes"] = sum(_int(t, "bw_bytes") for t in hosts_fio)
        table["fio"] = fio_own
        unpaused_latency(table, totals.directions[direction], lost_together(logs, gid, direction))


def version_warning(versions: dict[str, str]) -> str | None:
    """A sentence when the hosts run different fio versions (they still run)."""
    distinct = sorted(set(versions.values()))
    if len(distinct) <= 1:
        return None
    listing = ", ".join(f"{host} {version}" for host, version in versions.items())
    return f"The hosts run different fio versions ({listing}); their figures may not be comparable."
