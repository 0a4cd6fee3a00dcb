"""The desktop benchmark table on Results: MiB/s and IOPS per test and direction, mean and p99 beside,
a bar per row scaled to the best row, and whether each row settled."""

from __future__ import annotations

from rich.console import JustifyMethod
from rich.table import Table
from textual.widgets import Static

from iotui.core import format as fmt
from iotui.core.records.desktop_table import bar, best_bw, desktop_rows
from iotui.core.records.record import RunRecord


def desktop_table(record: RunRecord) -> Table:
    rows = desktop_rows(record.sections)
    best = best_bw(rows)
    table = Table(box=None, pad_edge=False, expand=False)
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("test", "left"), ("", "left"), ("MiB/s", "right"), ("IOPS", "right"),
        ("mean", "right"), ("p99", "right"), ("", "left"), ("", "left"),
    )
    for header, justify in columns:
        table.add_column(header, justify=justify, no_wrap=True)
    previous_test = None
    for row in rows:
        table.add_row(
            row.test if row.test != previous_test else "",
            row.direction,
            fmt.mib_per_s(row.bw_bytes),
            fmt.count(row.iops),
            fmt.latency_ns(row.lat_mean_ns),
            fmt.latency_ns(row.lat_p99_ns),
            f"[cyan]{bar(row.bw_bytes, best)}[/]" if row.direction == "read" else f"[magenta]{bar(row.bw_bytes, best)}[/]",
            f"[dim]{row.steady or ''}[/]",
        )
        previous_test = row.test
    return table


class DesktopTable(Static):
    """One record's desktop table (shown only for records whose sections are desktop tests)."""

    def __init__(self, record: RunRecord, *, id: str | None = None) -> None:
        super().__init__(desktop_table(record), id=id)


def desktop_compare_table(first: RunRecord, second: RunRecord, labels: tuple[str, str] = ("a", "b")) -> Table:
    """Two desktop runs side by side: MiB/s of each, the change, and each p99."""
    rows_a = {(row.test, row.direction): row for row in desktop_rows(first.sections)}
    rows_b = {(row.test, row.direction): row for row in desktop_rows(second.sections)}
    table = Table(box=None, pad_edge=False, expand=False, title="desktop table", title_justify="left")
    label_a, label_b = labels
    pair_columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("test", "left"), ("", "left"), (f"{label_a} MiB/s", "right"), (f"{label_b} MiB/s", "right"),
        ("change", "right"), (f"{label_a} p99", "right"), (f"{label_b} p99", "right"),
    )
    for header, justify in pair_columns:
        table.add_column(header, justify=justify, no_wrap=True)
    for key in list(rows_a) + [key for key in rows_b if key not in rows_a]:
        a, b = rows_a.get(key), rows_b.get(key)
        bw_a = a.bw_bytes if a else None
        bw_b = b.bw_bytes if b else None
        change = f"{100.0 * (bw_b - bw_a) / bw_a:+.1f}%" if bw_a and bw_b is not None else fmt.NO_VALUE
        table.add_row(
            key[0], key[1], fmt.mib_per_s(bw_a), fmt.mib_per_s(bw_b), change,
            fmt.latency_ns(a.lat_p99_ns if a else None), fmt.latency_ns(b.lat_p99_ns if b else None),
        )
    return table
