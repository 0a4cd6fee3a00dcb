"""Per-host rows of a multi-host record's section, and the slowest host named."""

from __future__ import annotations

from iotui.core.remote.host_table import host_rows, slowest


def _host(name: str, iops: float, p99: float, *, failed: float | None = None, read: float | None = None) -> dict:
    section: dict = {"name": "s", "write": {"iops": iops, "bw_bytes": iops * 4096, "lat_p99_ns": p99}}
    if read is not None:
        section["read"] = {"iops": read, "bw_bytes": read * 4096, "lat_p99_ns": p99 * 2}
    host = {"name": name, "sections": [section, {"name": "t"}]}
    if failed is not None:
        host["failed_at_s"] = failed
    return host


def test_each_host_s_own_figures_with_directions_together_and_the_higher_p99() -> None:
    rows = host_rows([_host("a", 100.0, 1000.0, read=50.0), _host("b", 90.0, 900.0)], 0)
    assert [(r.name, r.iops, r.lat_p99_ns) for r in rows] == [("a", 150.0, 2000.0), ("b", 90.0, 900.0)]
    assert host_rows([_host("a", 1.0, 1.0)], 1)[0].iops is None  # a section with no directions


def test_the_slowest_is_the_fewest_iops_or_at_one_held_rate_the_highest_p99() -> None:
    found = slowest(host_rows([_host("a", 100.0, 5000.0), _host("b", 80.0, 900.0), _host("c", 100.0, 800.0)], 0))
    assert found is not None and found[0].name == "b" and found[1] == "fewest IOPS"
    held = slowest(host_rows([_host("a", 100.0, 700.0), _host("b", 99.5, 900.0), _host("c", 100.0, 800.0)], 0))
    assert held is not None and held[0].name == "b" and held[1] == "highest p99"
    held = slowest(host_rows([_host("a", 100.0, 700.0), _host("b", 100.0, 600.0), _host("c", 100.0, 800.0)], 0))
    assert held is not None and held[0].name == "c"


def test_a_failed_host_is_never_the_slowest_and_one_host_has_none() -> None:
    rows = host_rows([_host("a", 100.0, 700.0), _host("b", 10.0, 900.0, failed=3.0), _host("c", 90.0, 800.0)], 0)
    found = slowest(rows)
    assert found is not None and found[0].name == "c"
    assert slowest(host_rows([_host("a", 100.0, 700.0)], 0)) is None
