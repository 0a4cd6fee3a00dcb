"""The Results panels and the command line's summaries show fio's own figures, read through the
typed view of a section (core/records/direction_figures.py), never a raw record dict.

The record is fio 3.33's json+ output of a 200 IOPS random read/write job
(tests/fixtures/fio/randrw-rate200-json+.txt); every expected figure is read from fio's document.
"""

from __future__ import annotations

import io

from rich.console import Console

from iotui.commands.run import print_summary
from iotui.commands.remote_summary import _direction_lines
from iotui.core import format as fmt
from iotui.core.records.direction_figures import CpuFigures, cpu_figures
from iotui.core.records.importer import import_fio_file
from iotui.ui.widgets.cpu_summary import cpu_table
from iotui.ui.widgets.direction_summary import direction_table
from iotui.ui.widgets.section_table import section_row
from tests.conftest import FIO_FIXTURES, FIXTURES, fio_documents

NAME = "randrw-rate200-json+.txt"


def _drawn(renderable: object) -> str:
    console = Console(width=100, record=True, color_system=None, force_terminal=False)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


def _fio_job() -> dict:
    return fio_documents(NAME)[-1]["jobs"][0]


def _p99_ns(table: dict) -> float:
    """fio's completion latency p99 (the record's latency is fio's clat)."""
    return table["clat_ns"]["percentile"]["99.000000"]


def test_the_summary_lines_show_fios_figures_per_direction_and_the_cpu_cost() -> None:
    [record] = import_fio_file(FIO_FIXTURES / NAME)
    fio = _fio_job()
    out = io.StringIO()
    print_summary(record, None, out)
    lines = {line.split()[0]: line for line in out.getvalue().splitlines() if line.startswith("  ")}
    assert lines["dir"].split() == ["dir", "IOPS", "bandwidth", "lat", "mean", "p50", "p99", "p99.9", "max"]
    for direction in ("read", "write"):
        cells = lines[direction].split()
        assert cells[1] == fmt.iops(fio[direction]["iops"])
        assert cells[2] == fmt.bytes_per_s(fio[direction]["bw_bytes"])
        assert cells[5] == fmt.latency_ns(_p99_ns(fio[direction]))
        assert cells[7] == fmt.latency_ns(fio[direction]["clat_ns"]["max"])
    cores = (fio["usr_cpu"] + fio["sys_cpu"]) / 100
    iops = fio["read"]["iops"] + fio["write"]["iops"]
    assert f"IOPS/fio core {fmt.iops(iops / cores)}" in lines["cpu"]
    # An import has no host CPU figures: fio's own usr_cpu and sys_cpu are shown, named as fio's.
    assert f"fio usr {fio['usr_cpu']:g}%  fio sys {fio['sys_cpu']:g}%" in lines["cpu"]
    assert "usr -" not in lines["cpu"]


def test_the_section_row_and_the_direction_panel_show_fios_figures() -> None:
    [record] = import_fio_file(FIO_FIXTURES / NAME)
    fio = _fio_job()
    row = section_row(record.sections[0])
    assert row[3] == fmt.iops(fio["read"]["iops"]) and row[4] == fmt.iops(fio["write"]["iops"])
    assert row[7] == f"{fmt.latency_ns(_p99_ns(fio['read']))} / {fmt.latency_ns(_p99_ns(fio['write']))}"
    drawn = _drawn(direction_table(record.sections[0]))
    p99_line = next(line for line in drawn.splitlines() if line.strip().startswith("lat p99 "))
    assert p99_line.split()[2:] == [fmt.latency_ns(_p99_ns(fio["read"])), fmt.latency_ns(_p99_ns(fio["write"]))]


def test_the_cpu_panel_reads_the_cpu_table_as_figures_and_a_bool_is_none() -> None:
    section: dict[str, object] = {"cpu": {"user_pct": 12.5, "system_pct": True, "fio_user_pct": 1.5, "iops_per_busy_core": 4000}}
    cpu = cpu_figures(section)
    assert cpu == CpuFigures(user_pct=12.5, fio_user_pct=1.5, iops_per_busy_core=4000.0) and cpu.has_fio_split
    assert cpu_figures({"cpu": {}}) is None and cpu_figures({"cpu": "busy"}) is None and cpu_figures({}) is None
    drawn = " ".join(_drawn(cpu_table(section)).split())
    assert "CPU usr 12.5% CPU sys -" in drawn and "IOPS/busy core 4.0k fio usr/sys 1.5%/-" in drawn
    assert "fio usr/sys" not in _drawn(cpu_table({"cpu": {"user_pct": 12.5}}))


def test_the_hosts_summary_shows_fios_mixed_direction() -> None:
    # unified_rw_reporting: fio reports one "mixed" direction; the aggregate printed nothing for it.
    [record] = import_fio_file(FIXTURES / "import" / "fio-3.33" / "mixed-terse-v5.txt")
    header, mixed, *_ = _direction_lines(record.sections[0], None, "    ")
    assert header.split()[:2] == ["dir", "IOPS"] and mixed.split()[:2] == ["mixed", "5.5k"]


def test_an_aggregate_row_shows_what_ran_on_each_host_and_on_how_many() -> None:
    """The aggregate of 16 jobs at 4k on each of 2 hosts: 4k, 1 x 16, on 2 hosts (not 1 x 2)."""
    from iotui.core.remote.aggregate import aggregate_sections

    # As fio reports options given before --name, with group_reporting: one entry per host.
    host = {"jobname": "q", "groupid": 0, "job options": {},
            "read": {"io_bytes": 4096, "iops": 1.0, "bw_bytes": 4096, "runtime": 1000, "total_ios": 1}}
    options = {"bs": "4k", "numjobs": "16", "iodepth": "1"}
    docs = {name: {"global options": options, "jobs": [dict(host)]} for name in ("h1", "h2")}
    (aggregate,) = aggregate_sections(docs)
    row = section_row(aggregate)
    assert row[0] == "q on 2 hosts" and row[1] == "4k" and row[2] == "1 × 16"
