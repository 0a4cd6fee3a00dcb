"""A multi-host record seen host by host: the aggregate, then one run per host.

Compare and export take these as ordinary runs, so a multi-host record is
compared and exported per host and in aggregate without either knowing hosts.
"""

from __future__ import annotations

import copy

from iotui.core.records.record import RunRecord


def _title(record: RunRecord) -> str:
    return str(record.run.get("title") or record.preset or "run")


def host_records(record: RunRecord) -> list[RunRecord]:
    """One RunRecord per host entry: its own sections and samples, its facts in [target]."""
    views: list[RunRecord] = []
    for host in record.hosts:
        name = str(host.get("name", "?"))
        run = copy.deepcopy(record.run)
        run["title"] = f"{_title(record)} · {name}"
        if host.get("tool_version"):
            run["tool_version"] = str(host["tool_version"])
        if "exit_status" in host:
            run["exit_code"] = int(host["exit_status"])
        target = dict(record.target)
        if host.get("filesystem"):
            target["filesystem"] = str(host["filesystem"])
        target["device"] = name
        view = RunRecord(
            run=run,
            host={**record.host, "hostname": name, "kernel": str(host.get("kernel") or record.host.get("kernel", ""))},
            target=target,
            options=dict(record.options),
            samples=[dict(sample) for sample in host.get("samples", [])],
            sections=[copy.deepcopy(section) for section in host.get("sections", [])],
            path=record.path,
        )
        if "failed_at_s" in host:
            view.add_warning("host-failed", f"{name} failed at {host['failed_at_s']:.1f} s.")
        views.append(view)
    return views


def per_host(records: list[RunRecord]) -> list[RunRecord]:
    """Each multi-host record as its aggregate followed by its hosts; others unchanged."""
    expanded: list[RunRecord] = []
    for record in records:
        if not record.hosts:
            expanded.append(record)
            continue
        aggregate = RunRecord(
            run={**record.run, "title": f"{_title(record)} · all {len(record.hosts)} hosts"},
            host={**record.host, "hostname": f"all {len(record.hosts)} hosts"},
            target=record.target,
            options=record.options,
            samples=record.samples,
            warnings=record.warnings,
            sections=record.sections,
            pressure=record.pressure,
            path=record.path,
        )
        expanded.append(aggregate)
        expanded += host_records(record)
    return expanded
