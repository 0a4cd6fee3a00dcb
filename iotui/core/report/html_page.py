"""The report's HTML: escaping, tables whose cells carry their full-precision figure, the page.

Every text that came from a record goes through :func:`esc` (``html.escape``,
quotes too). A figure's cell shows it as iotui writes it (``21.4k``, ``872µs``)
and carries the number itself in ``data-value`` (as ``iotui show --json``
prints it) and where it is in that JSON in ``data-path``. The page has no
script and loads nothing: styles and charts (inline SVG) are in the file.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Sequence

from iotui.core.numbers import is_number
from iotui.core.report.charts import DrawnChart

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1100px;
       padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
h3 { font-size: 1.05rem; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; font-size: 0.9rem; }
th, td { border: 1px solid #ddd; padding: 0.25rem 0.5rem; text-align: left; vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
th { background: #f5f5f5; }
figure { margin: 1rem 0; } figure svg { max-width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: #555; }
.warning { background: #fff8e1; border-left: 4px solid #ffb300; padding: 0.3rem 0.6rem; margin: 0.3rem 0; }
.note { color: #555; font-size: 0.9rem; }
.level-ok { color: #2e7d32; } .level-sluggish { color: #b26a00; } .level-unresponsive { color: #c62828; }
"""


def esc(value: object) -> str:
    """A value of any type as HTML text, quotes included (safe in an attribute too)."""
    return html.escape(str(value), quote=True)


@dataclass(frozen=True)
class Cell:
    """A table cell: its text, and for a figure its value as JSON and where that value lives."""

    text: str
    value: float | str | None = None  # written as JSON in data-value
    path: str = ""
    numeric: bool = False


def figure_cell(text: str, value: float | str | None, path: str) -> Cell:
    return Cell(text, value, path, numeric=is_number(value))


def _cell_html(cell: Cell) -> str:
    attributes = ' class="num"' if cell.numeric else ""
    if cell.path:
        attributes += f' data-path="{esc(cell.path)}" data-value="{esc(json.dumps(cell.value, ensure_ascii=False))}"'
    return f"<td{attributes}>{esc(cell.text)}</td>"


def table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], *, kind: str, attributes: str = "") -> str:
    """A table; ``kind`` names it for a reader (and a test) as ``data-table``."""
    head = "".join(f"<th>{esc(header)}</th>" for header in headers)
    body = "".join("<tr>" + "".join(_cell_html(cell) for cell in row) + "</tr>" for row in rows)
    return f'<table data-table="{esc(kind)}"{attributes}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def facts(title: str, pairs: Sequence[tuple[str, object]], kind: str) -> str:
    """A two-column table of facts (host, target), every value escaped."""
    rows = [[Cell(key), Cell(_plain(value))] for key, value in pairs if value not in (None, "", [], {})]
    if not rows:
        return ""
    return f"<h3>{esc(title)}</h3>" + table(["fact", "value"], rows, kind=kind)


def _plain(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key}={_plain(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_plain(item) for item in value)
    return str(value)


def warnings_html(warnings: Sequence[tuple[str, str]]) -> str:
    """Every warning: (where it comes from, its code and message)."""
    if not warnings:
        return '<p class="note">No warnings.</p>'
    return "".join(f'<div class="warning" data-warning>{esc(where)}{esc(text)}</div>' for where, text in warnings)


def chart_html(chart: DrawnChart, caption: str = "") -> str:
    """A drawn chart inline, with the data limits of its axes (to read its lines back) and a caption."""
    x0, x1 = chart.x_limits
    y0, y1 = chart.y_limits
    caption_html = f"<figcaption>{caption}</figcaption>" if caption else ""
    return (
        f'<figure data-chart="{esc(chart.spec.name)}" data-xlim="{x0!r} {x1!r}" data-ylim="{y0!r} {y1!r}">'
        f"{chart.svg}{caption_html}</figure>"
    )


def page(title: str, body: str) -> str:
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{esc(title)}</title><style>{STYLE}</style></head>"
        f"<body>{body}</body></html>\n"
    )
