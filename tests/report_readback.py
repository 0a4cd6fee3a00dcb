"""Read a report page back: its table cells' figures, and each chart's data from the SVG matplotlib wrote.

A line's vertices are SVG pixels; they become data again through the plotting
area (the path with id ``<chart>__axes``, its corners in pixels) and the axes'
data limits (``data-xlim``/``data-ylim`` on the chart's figure element). Nothing
here imports iotui's report code: what is read is only what the page holds.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from html.parser import HTMLParser

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
_FIGURE = re.compile(r'<figure data-chart="([^"]+)" data-xlim="([^"]+)" data-ylim="([^"]+)">(<svg.*?</svg>)', re.S)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


class _Cells(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.record: str | None = None
        self.records: list[tuple[str | None, str, object]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "section" and values.get("data-record") is not None:
            self.record = values["data-record"]
        if tag == "td" and values.get("data-path"):
            self.records.append((self.record, str(values["data-path"]), json.loads(str(values["data-value"]))))

    def handle_endtag(self, tag: str) -> None:
        if tag == "section":
            self.record = None


def table_figures(page: str) -> list[tuple[str | None, str, object]]:
    """(the record's place in the report or None, data-path, data-value) of every figure cell."""
    parser = _Cells()
    parser.feed(page)
    return parser.records


def json_at(document: object, path: str) -> object:
    """The value at a dotted path (list indexes as numbers) of a JSON document."""
    for part in path.split("."):
        document = document[int(part)] if isinstance(document, list) else document[part]  # type: ignore[index]
    return document


@dataclass
class Chart:
    name: str
    x_limits: tuple[float, float]
    y_limits: tuple[float, float]
    root: ET.Element

    def _element(self, suffix: str) -> ET.Element | None:
        for element in self.root.iter():
            if element.get("id") == f"{self.name}__{suffix}":
                return element
        return None

    def ids(self) -> list[str]:
        prefix = f"{self.name}__"
        return [str(e.get("id"))[len(prefix):] for e in self.root.iter() if str(e.get("id", "")).startswith(prefix)]

    def _box(self) -> tuple[float, float, float, float]:
        """left, right, top, bottom of the plotting area, in pixels."""
        element = self._element("axes")
        assert element is not None
        path = element.find(f"{SVG}path")
        assert path is not None
        numbers = [float(n) for n in _NUMBER.findall(str(path.get("d")))]
        xs, ys = numbers[0::2], numbers[1::2]
        return min(xs), max(xs), min(ys), max(ys)

    def pixels(self, suffix: str) -> list[tuple[float, float]]:
        element = self._element(suffix)
        assert element is not None, (suffix, self.ids())
        path = element.find(f"{SVG}path")
        if path is not None and element.find(f".//{SVG}use") is None:
            numbers = [float(n) for n in _NUMBER.findall(str(path.get("d")))]
            return list(zip(numbers[0::2], numbers[1::2]))
        return [(float(str(use.get("x"))), float(str(use.get("y")))) for use in element.iter(f"{SVG}use")]

    def data(self, suffix: str) -> list[tuple[float, float]]:
        """A line's (or marked points') vertices in data units."""
        left, right, top, bottom = self._box()
        (x0, x1), (y0, y1) = self.x_limits, self.y_limits
        return [
            (x0 + (px - left) / (right - left) * (x1 - x0), y0 + (bottom - py) / (bottom - top) * (y1 - y0))
            for px, py in self.pixels(suffix)
        ]

    def bar_top(self, key: str) -> float:
        """A bar's height in data units (its rectangle's top edge)."""
        left, right, top, bottom = self._box()
        y0, y1 = self.y_limits
        ys = [py for _, py in self.pixels(f"bar-{key}")]
        return y0 + (bottom - min(ys)) / (bottom - top) * (y1 - y0)

    def band(self) -> tuple[float, float]:
        left, right, top, bottom = self._box()
        y0, y1 = self.y_limits
        ys = [py for _, py in self.pixels("band")]
        return tuple(sorted(y0 + (bottom - py) / (bottom - top) * (y1 - y0) for py in (min(ys), max(ys))))  # type: ignore[return-value]


def charts(page: str) -> dict[str, Chart]:
    found = {}
    for name, xlim, ylim, svg in _FIGURE.findall(page):
        x0, x1 = (float(v) for v in xlim.split())
        y0, y1 = (float(v) for v in ylim.split())
        found[name] = Chart(name, (x0, x1), (y0, y1), ET.fromstring(svg))
    return found
