"""Every fio run keeps its seconds one way: a local run, each host and the hosts' aggregate."""

from __future__ import annotations

import ast
from pathlib import Path

import iotui
from iotui.core.fio.section_seconds import SectionSecondsDeriver
from iotui.core.fio.sections import fio_sections
from iotui.core.runs.second_rows import SecondRows
from tests.conftest import fio_documents
from tests.source_trees import parsed_module

CORE = Path(iotui.__file__).parent / "core"


def _ios(doc: dict, groupid: int, direction: str) -> int:
    return sum(job[direction]["total_ios"] for job in doc["jobs"] if job["groupid"] == groupid)


def test_each_row_is_filed_under_its_own_group_and_the_rows_add_up_to_fio() -> None:
    docs = fio_documents("two-sections-json+.txt")  # group 0 reads, then group 1 writes
    deriver, seconds = SectionSecondsDeriver(), SecondRows()
    for doc in docs:
        seconds.take(doc, deriver.feed(doc), whole=deriver.whole)
    sections = fio_sections(docs[-1])
    seconds.file_under(sections, docs[-1])
    assert [section["groupid"] for section in sections] == [0, 1]
    # The second both sections share is two rows at one time, one per section, never one row with both.
    times = [row["t_s"] for row in seconds.rows]
    shared = [row for row in seconds.rows if times.count(row["t_s"]) == 2]
    assert [row["section"] for row in shared] == [0, 1]
    for row in seconds.rows:
        own = "read" if row["section"] == 0 else "write"
        other = "write" if own == "read" else "read"
        assert f"{own}_iops" in row and f"{other}_iops" not in row
    for index, (groupid, direction) in enumerate(((0, "read"), (1, "write"))):
        mine = [row for row in seconds.rows if row["section"] == index]
        ios = sum(row[f"{direction}_iops"] * row["dt_s"] for row in mine)
        assert abs(ios - _ios(docs[-1], groupid, direction)) <= len(mine)  # each row's dt_s is rounded to 1 ms


def test_a_hosts_rows_carry_its_arrival_time_and_no_empty_figures() -> None:
    docs = fio_documents("two-sections-json+.txt")
    deriver, seconds = SectionSecondsDeriver(), SecondRows(drop_empty=True)
    arrivals = [10.0 + index for index in range(len(docs))]
    for doc, at_s in zip(docs, arrivals):
        seconds.take(doc, deriver.feed(doc), whole=deriver.whole, t_s=at_s)
    assert {row["t_s"] for row in seconds.rows} <= set(arrivals)
    assert all(value is not None for row in seconds.rows for value in row.values())


def _calls(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(parsed_module(path)):
        if isinstance(node, ast.Call):
            func = node.func
            names.add(func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else "")
    return names


def test_local_and_remote_runs_make_their_rows_in_one_module() -> None:
    """Rows, their sections and their pauses are made in core/runs/second_rows.py alone for runs
    (an imported report, which has neither pauses nor a host, files its own at the records level)."""
    row_makers = {"sample_row", "assign_sections", "unpause_sections"}
    runs = [*sorted((CORE / "runs").glob("*.py")), *sorted((CORE / "remote").glob("*.py"))]
    makers = {path.relative_to(CORE).as_posix() for path in runs if _calls(path) & row_makers}
    assert makers == {"runs/second_rows.py"}
    users = {path.relative_to(CORE).as_posix() for path in runs if "SecondRows" in _calls(path)}
    assert users == {"runs/session.py", "remote/record.py", "remote/session.py"}
