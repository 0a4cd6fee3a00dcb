"""A multi-host run's summary as ``iotui run --hosts`` and ``iotui show`` print it.

Kept apart from ``run_remote``: printing a saved record needs none of the run machinery, so
``iotui show`` starts without it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Mapping, TextIO

from iotui.commands.run_summary import direction_lines
from iotui.core import format as fmt
from iotui.core.records.direction_figures import cpu_figures, section_figures
from iotui.core.records.record import RunRecord
from iotui.core.remote.host_table import host_rows, host_state, slowest
from iotui.core.table import Column, Step, fit_table, labelled_path, pack, wrap

HOST_COLUMNS = (
    Column("host", min_width=12),
    Column("IOPS", "right"),
    Column("bandwidth", "right"),
    Column("p99", "right"),
    Column("state", min_width=10),
)
HOST_STEPS = (Step("cut", 0), Step("cut", 4))
"""Narrowing order of the hosts table (README "Tables that fit the terminal"): the host names are cut
(to 12 characters, keeping their start), then the state (to 10); IOPS, bandwidth and p99 always stay."""


# A figure and its unit ("35.0 ms", "98.8k IOPS") stay on one line when a sentence is broken.
_FIGURE_AND_UNIT = re.compile(r"(\d[\d.,]*[kMG]?) (ns|µs|ms|s|%|B/s|KiB/s|MiB/s|GiB/s|IOPS)\b")
_LABEL_AND_FIGURE = re.compile(r"\b(p\d+(?:\.\d+)?) (\d)")
_KEEP_TOGETHER = "\u00a0"


def _wrap(text: str, width: int | None, indent: str, first_indent: str) -> list[str]:
    """:func:`wrap`, never parting a figure from its unit."""
    joined = _FIGURE_AND_UNIT.sub(lambda found: f"{found[1]}{_KEEP_TOGETHER}{found[2]}", text)
    joined = _LABEL_AND_FIGURE.sub(lambda found: f"{found[1]}{_KEEP_TOGETHER}{found[2]}", joined)
    return [line.replace(_KEEP_TOGETHER, " ") for line in wrap(joined, width, indent, first_indent)]


def remote_summary_lines(record: RunRecord, saved: Path | None, width: int | None = None) -> list[str]:
    """A multi-host run's summary fitted to ``width`` (None: every column in full): per section the
    aggregate's table (as ``iotui run`` prints a section) and each host's figures, then the hosts'
    identities, levels and the warnings, sentences broken between words."""
    hosts = record.hosts
    sections = record.sections
    lines = [""]
    lines += _wrap(
        f"{record.preset}: {record.status} in {fmt.duration_s(record.run.get('duration_s'))} on "
        f"{len(hosts)} hosts ({record.target.get('path')}), {record.run.get('tool_version')}",
        width, "  ", "",
    )
    for index, section in enumerate(sections):
        # The section's options are what ran on each host (numjobs per host, not times the hosts).
        lines += _wrap(f"aggregate of {section.get('hosts', len(hosts))} hosts, each ran {fmt.section_heading(section)}",
                      width, "      ", "  ")
        lines += _direction_lines(section, width, "    ")
        lines += _host_table_lines(hosts, index, width, record.run)
    if not sections:
        for index in range(max((len(h.get("sections") or []) for h in hosts), default=0)):
            lines += _host_table_lines(hosts, index, width, record.run)
    identities = {(h.get("tool_version", "?"), h.get("filesystem", "?"), h.get("kernel", "?")) for h in hosts}
    if len(identities) > 1:
        for host in hosts:
            lines += _wrap(f"{host['name']}: {host.get('tool_version', '?')}, {host.get('filesystem', '?')}, "
                          f"kernel {host.get('kernel', '?')}", width, "    ", "  ")
    levels = [_host_level(host) for host in hosts if host.get("pressure")]
    if levels:
        lines += _wrap(f"responsiveness: {', '.join(levels)}", width, "    ", "  ")
    if "start_spread_ms" in record.run:
        lines.append(f"  start spread {record.run['start_spread_ms']:.0f} ms")
    for warning in record.warnings:
        lines += _wrap(f"warning [{warning['code']}]: {warning['message']}", width, "    ", "  ")
    if saved is not None:
        lines += labelled_path("saved:", saved, width, "  ")
    return lines


def print_remote_summary(record: RunRecord, saved: Path | None, out: TextIO | None = None,
                         width: int | None = None) -> None:
    print("\n".join(remote_summary_lines(record, saved, width)), file=out or sys.stdout)


def _host_level(host: dict) -> str:
    """`h2 sluggish (wakeup 35 ms)`: the host's worst level and what caused it."""
    pressure = host["pressure"]
    if "responsiveness" not in pressure:
        return f"{host['name']} not measured ({pressure.get('not_measured', '?')})"
    text = f"{host['name']} {pressure['responsiveness']}"
    if pressure.get("cause"):
        text += f" ({pressure['cause']} {pressure.get('cause_value', '?')} {pressure.get('cause_unit', '')})".replace(" )", ")")
    return text


def _host_table_lines(hosts: list[dict], index: int, width: int | None, run: dict | None = None) -> list[str]:
    """Each host's own figures in the section (fio's, per host), then the slowest named."""
    rows = host_rows(hosts, index)
    cells = [
        [row.name, fmt.iops(row.iops), fmt.bytes_per_s(row.bw_bytes), fmt.latency_ns(row.lat_p99_ns),
         host_state(host, run or {})]
        for row, host in zip(rows, hosts)
    ]
    indent = "    "
    inner = None if width is None else max(width - len(indent), 1)
    lines = [indent + line for line in fit_table(HOST_COLUMNS, cells, inner, HOST_STEPS)]
    found = slowest(rows)
    if found is not None:
        row, why = found
        lines += _wrap(f"slowest: {row.name} ({why}: {fmt.iops(row.iops)} IOPS, p99 {fmt.latency_ns(row.lat_p99_ns)})",
                      width, "      ", indent)
    return lines


def _direction_lines(section: Mapping[str, object], width: int | None, indent: str) -> list[str]:
    """The aggregate's figures per direction, the table ``iotui run`` prints for a section, then fio's CPU."""
    lines = direction_lines(section_figures(section), width, indent)
    cpu = cpu_figures(section)
    if cpu is not None and cpu.fio_cpu_cores is not None:
        lines += pack(["cpu", f"fio cores {cpu.fio_cpu_cores:.2f}", f"IOPS/fio core {fmt.iops(cpu.iops_per_fio_core)}"],
                      width, indent + "    ", indent)
    return lines
