"""Fit a text table, or a paragraph, to a terminal's width without splitting a word.

Every table the command line prints goes through ``fit_table``: each table names, in order, the
steps that make it narrower (cut a free-text column down to a minimum, switch a column to its short
form, drop a column), and they are applied one by one until the table fits. ``width=None`` prints
every column in full (``--wide``, or output into a pipe). Never imports Textual.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Literal, Sequence

Cell = str | tuple[str, ...]
"""A cell's text, or its forms from the full one to the shortest (``("+7.6k (+80.2%) better [±5%]", ...)``)."""

ELLIPSIS = "…"
GAP = "  "


@dataclass(frozen=True)
class Column:
    """One column: its header (or header forms), alignment, and how far it may be cut."""

    header: Cell
    align: Literal["left", "right"] = "left"
    min_width: int = 0
    """The narrowest a ``cut`` step leaves it (its text ends in …)."""
    cut_keeps: Literal["start", "end"] = "start"
    """Which end of a cut text stays: a path keeps its end."""


@dataclass(frozen=True)
class Step:
    """One way to make a table narrower: ``cut`` a column to its minimum, ``shorten`` it to its next
    form, or ``drop`` it."""

    kind: Literal["cut", "shorten", "drop"]
    column: int


def cut(text: str, width: int, keeps: Literal["start", "end"] = "start") -> str:
    """``text`` in at most ``width`` characters, the cut marked with …."""
    if len(text) <= width:
        return text
    if width <= 1:
        return ELLIPSIS[:width]
    return text[: width - 1] + ELLIPSIS if keeps == "start" else ELLIPSIS + text[len(text) - width + 1:]


def _form(cell: Cell, index: int) -> str:
    if isinstance(cell, str):
        return cell
    return cell[min(index, len(cell) - 1)]


def fit_table(columns: Sequence[Column], rows: Sequence[Sequence[Cell]], width: int | None,
              steps: Sequence[Step] = (), *, header: bool = True) -> list[str]:
    """The table's lines (header first when ``header``), none wider than ``width`` where the steps allow."""
    count = len(columns)
    forms = [0] * count
    kept = [True] * count
    is_cut = [False] * count

    def texts(column: int) -> list[str]:
        cells = [columns[column].header] if header else []
        cells += [row[column] for row in rows]
        return [_form(cell, forms[column]) for cell in cells]

    def natural(column: int) -> int:
        return max((len(text) for text in texts(column)), default=0)

    def shown(column: int) -> int:
        full = natural(column)
        return min(full, columns[column].min_width) if is_cut[column] else full

    def total() -> int:
        widths = [shown(i) for i in range(count) if kept[i]]
        return sum(widths) + len(GAP) * max(len(widths) - 1, 0)

    if width is not None:
        for step in steps:
            if total() <= width:
                break
            if step.kind == "drop":
                kept[step.column] = False
            elif step.kind == "cut":
                is_cut[step.column] = True
            else:
                forms[step.column] += 1
    widths = [shown(i) for i in range(count)]
    if width is not None:
        # Give the room left back to the cut columns, in column order.
        spare = width - total()
        for i in range(count):
            if kept[i] and is_cut[i] and spare > 0:
                grown = min(natural(i), widths[i] + spare)
                spare -= grown - widths[i]
                widths[i] = grown
    # A column that is last on its line is not padded (no trailing blanks).
    last = max((i for i in range(count) if kept[i]), default=-1)
    lines = []
    table_rows = ([list(columns[i].header for i in range(count))] if header else []) + [list(row) for row in rows]
    for row in table_rows:
        cells = []
        for i in range(count):
            if not kept[i]:
                continue
            text = cut(_form(row[i], forms[i]), widths[i], columns[i].cut_keeps)
            if columns[i].align == "right":
                text = text.rjust(widths[i])
            elif i != last:
                text = text.ljust(widths[i])
            cells.append(text)
        line = GAP.join(cells).rstrip()
        lines.append(cut(line, width) if width is not None else line)
    return lines


def wrap(text: str, width: int | None, indent: str = "", first_indent: str | None = None) -> list[str]:
    """A paragraph in lines of at most ``width`` characters, broken between words (never inside one,
    a path or a hyphenated word included); one line when ``width`` is None."""
    first = indent if first_indent is None else first_indent
    if width is None:
        return [first + text]
    lines = textwrap.wrap(
        text, width=width, initial_indent=first, subsequent_indent=indent, break_long_words=False,
        break_on_hyphens=False,
    ) or [first.rstrip()]
    # A word longer than the whole line (a long path) keeps its end, marked with …, rather than run over.
    return [_cut_line(line, width) for line in lines]


def _cut_line(line: str, width: int) -> str:
    if len(line) <= width:
        return line
    body = line.lstrip(" ")
    lead = line[: len(line) - len(body)]
    if len(lead) >= width // 2:
        lead = ""
    return lead + cut(body, width - len(lead), "end")


def labelled_path(label: str, path: object, width: int | None, indent: str = "") -> list[str]:
    """``saved: PATH`` on one line, or the label and then the path on a line of its own where the
    two do not fit ``width``: a path the reader may copy is never cut."""
    line = f"{indent}{label} {path}"
    return [line] if width is None or len(line) <= width else [f"{indent}{label}", str(path)]


def pack(items: Sequence[str], width: int | None, indent: str = "", first_indent: str | None = None) -> list[str]:
    """Labelled figures (``usr 2.1%``, ``ctx/s 12.3k``) two spaces apart, a new line where the next one
    would pass ``width``: a figure never parted from its label. One line when ``width`` is None."""
    lines: list[str] = []
    line = ""
    for item in items:
        if not line:
            line = (indent if lines else (indent if first_indent is None else first_indent)) + item
        elif width is not None and len(line) + len(GAP) + len(item) > width:
            lines.append(line)
            line = indent + item
        else:
            line += GAP + item
    if line:
        lines.append(line)
    return [_cut_line(line, width) if width is not None else line for line in lines]
