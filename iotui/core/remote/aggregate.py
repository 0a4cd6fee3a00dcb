"""Hosts' final fio reports -> each host's sections and the aggregate sections.

A section is fio's reporting group (``groupid``). A host's own figures are
fio's: with one job entry they are copied from its report. The aggregate of a
section holds the jobs of every host in that group, which ran at the same
time (the start barrier): IOPS and bandwidth are the sums of fio's figures,
latency is walked over the merged json+ bins as fio walks them, means are
weighted by the completion counts. CPU is the sum of the hosts' fio cores
(fio's usr_cpu + sys_cpu of each job, in % of one core), with IOPS per fio
core for each host and for all of them.
"""

from __future__ import annotations

from typing import Any

from iotui.core.fio.summary import direction_summaries

_SECTION_OPTION_KEYS = ("rw", "bs", "iodepth", "numjobs", "ioengine", "direct", "rate_iops")


def _jobs(doc: dict) -> list[dict]:
    return [job for job in doc.get("jobs") or [] if isinstance(job, dict)]


def _groups(doc: dict) -> list[tuple[int, list[dict]]]:
    groups: dict[int, list[dict]] = {}
    for job in _jobs(doc):
        try:
            groupid = int(job.get("groupid", 0) or 0)
        except (TypeError, ValueError):
            groupid = 0
        groups.setdefault(groupid, []).append(job)
    return sorted(groups.items())


def _ran_ms(job: dict) -> int:
    # The directions' runtimes: a job that never started may report the time
    # since boot as its job_runtime.
    return max(
        (int(job[d].get("runtime", 0) or 0) for d in ("read", "write", "trim") if isinstance(job.get(d), dict)),
        default=0,
    )


def _cpu(jobs: list[dict], iops: float) -> dict[str, Any]:
    user = sum(float(job.get("usr_cpu", 0.0) or 0.0) for job in jobs)
    system = sum(float(job.get("sys_cpu", 0.0) or 0.0) for job in jobs)
    cores = (user + system) / 100.0
    table: dict[str, Any] = {
        "fio_user_pct": user,
        "fio_system_pct": system,
        "fio_cpu_cores": cores,
    }
    if cores > 0:
        table["iops_per_fio_core"] = iops / cores
    return table


def _section(groupid: int, jobs: list[dict], cpu_jobs: list[dict] | None = None) -> dict[str, Any]:
    names = list(dict.fromkeys(str(job.get("jobname", "")) for job in jobs))
    section: dict[str, Any] = {
        "name": names[0] if names else f"group {groupid}",
        "jobs": names,
        "groupid": groupid,
        "duration_s": max((_ran_ms(job) for job in jobs), default=0) / 1000.0,
    }
    options = jobs[0].get("job options") or {} if jobs else {}
    kept = {key: str(options[key]) for key in _SECTION_OPTION_KEYS if key in options}
    if kept:
        section["options"] = kept
    figures = direction_summaries({"jobs": jobs})
    section.update(figures)
    iops = sum(table.get("iops", 0.0) for table in figures.values())
    section["cpu"] = _cpu(cpu_jobs if cpu_jobs is not None else jobs, iops)
    return section


def host_sections(doc: dict) -> list[dict[str, Any]]:
    """One host's sections, fio's own figures."""
    return [_section(groupid, jobs) for groupid, jobs in _groups(doc) if any(_ran_ms(job) for job in jobs)]


def aggregate_sections(docs: dict[str, dict]) -> list[dict[str, Any]]:
    """The sections of every host merged by groupid (each host's own IOPS per fio
    core is in its own sections)."""
    by_group: dict[int, list[dict]] = {}
    hosts_in: dict[int, int] = {}
    for doc in docs.values():
        for groupid, jobs in _groups(doc):
            if not any(_ran_ms(job) for job in jobs):
                continue  # a section a stop came before
            by_group.setdefault(groupid, []).extend(jobs)
            hosts_in[groupid] = hosts_in.get(groupid, 0) + 1
    sections = []
    for groupid, jobs in sorted(by_group.items()):
        section = _section(groupid, jobs)
        section["hosts"] = hosts_in.get(groupid, 0)
        sections.append(section)
    return sections


def version_warning(versions: dict[str, str]) -> str | None:
    """A sentence when the hosts run different fio versions (they still run)."""
    distinct = sorted(set(versions.values()))
    if len(distinct) <= 1:
        return None
    listing = ", ".join(f"{host} {version}" for host, version in versions.items())
    return f"The hosts run different fio versions ({listing}); their figures may not be comparable."
