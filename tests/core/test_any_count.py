"""iotui is typed past its edges: at most MAX_ANY uses of ``Any`` outside the modules that read and
write untyped TOML and JSON whole, which docs/architecture.md lists under "The edges".

Every occurrence of the word counts (the import line and comments too), so an alias that hides
``Any`` (``Table = dict[str, Any]``) still counts where it is written, and a module that names it
in a docstring is asked to say "any" instead.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import iotui

PACKAGE_DIR = Path(iotui.__file__).parent
ARCHITECTURE = PACKAGE_DIR.parent / "docs" / "architecture.md"
EDGES_HEADING = "## The edges: where untyped TOML and JSON are read and written"
ANY = re.compile(r"\bAny\b")
MAX_ANY = 150
# The part of the core whose reading of records is typed through core/records/direction_figures.py.
TYPED_RECORDS = ("core/records", "core/compare", "core/sweep", "core/report")
MAX_ANY_TYPED_RECORDS = 40


def edge_modules(text: str) -> list[str]:
    """The module paths (relative to iotui/) bulleted under the edges heading."""
    section = text.split(EDGES_HEADING + "\n", 1)[1].split("\n## ", 1)[0]
    return [line[2:].strip() for line in section.splitlines() if line.startswith("- ")]


def any_counts(edges: list[str]) -> dict[str, int]:
    """Uses of ``Any`` per module outside the edges (modules without any left out)."""
    counts = {}
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR).as_posix()
        if relative in edges:
            continue
        found = len(ANY.findall(path.read_text(encoding="utf-8")))
        if found:
            counts[relative] = found
    return counts


@pytest.fixture(scope="module")
def edges() -> list[str]:
    return edge_modules(ARCHITECTURE.read_text(encoding="utf-8"))


def test_every_edge_the_page_lists_is_a_module(edges: list[str]) -> None:
    assert len(edges) >= 10 and "core/records/record.py" in edges
    assert [edge for edge in edges if not (PACKAGE_DIR / edge).is_file()] == []


def test_the_count_sees_an_any_outside_the_edges(edges: list[str], tmp_path: Path) -> None:
    text = "from typing import Any\n\nTable = dict[str, Any]  # Any behind an alias is still Any\n"
    assert len(ANY.findall(text)) == 4 and len(ANY.findall("Anything, many, any")) == 0
    assert "core/fio/normalize.py" in edges and "core/fio/normalize.py" not in any_counts(edges)


def test_the_typed_record_readers_hold_few_any(edges: list[str]) -> None:
    counts = any_counts(edges)
    typed = {path: count for path, count in counts.items() if path.startswith(TYPED_RECORDS)}
    assert sum(typed.values()) <= MAX_ANY_TYPED_RECORDS, typed


def test_at_most_150_any_outside_the_edges(edges: list[str]) -> None:
    counts = any_counts(edges)
    worst = sorted(counts.items(), key=lambda item: -item[1])[:15]
    assert sum(counts.values()) <= MAX_ANY, f"{sum(counts.values())} uses of Any outside the edges; most in {worst}"
