"""Build a report and write it: one HTML file, or the same charts as SVG or PNG files.

The entry for the command line and the app alike. Failures are :class:`ReportError`
with a full sentence (what went wrong, with the file) for either to show.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Sequence

from iotui.core.report.chart_spec import ChartSpec
from iotui.core.report.charts import ChartsUnavailable, available, write_chart_file, INSTALL_HINT
from iotui.core.report.collector import ChartCollector
from iotui.core.report.html_page import page
from iotui.core.report.run_report import record_title, runs_body
from iotui.core.report.remedy_report import remedy_body
from iotui.core.report.sweep_report import sweep_body
from iotui.core.remedy.table import is_remedy_sweep
from iotui.core.compare.compare import Comparison
from iotui.core.records.record import RunRecord
from iotui.core.safe_files import UnsafeFileError, check_file_place, ensure_folder, write_file
from iotui.core.sweep.analysis import analyze
from iotui.core.sweep import SWEEP_SUFFIX
from iotui.core.sweep.record import SweepRecord

FILE_FORMATS = ("html", "svg", "png")


class ReportError(Exception):
    """A report that cannot be made or written; str() is a full sentence. ``refused``: the place
    that holds something other than a regular file (or a folder that is a link), for a caller
    that words it in its own terms."""

    def __init__(self, sentence: str, refused: UnsafeFileError | None = None) -> None:
        super().__init__(sentence)
        self.refused = refused


def require_charts() -> None:
    """Refuse before any work when the plotting library is missing."""
    if not available():
        raise ReportError(f"iotui report draws its charts with matplotlib, which is not installed here; add it with {INSTALL_HINT}.")


def runs_report(records: Sequence[RunRecord], comparison: Comparison | None, *, inline: bool = True) -> tuple[str, list[ChartSpec]]:
    """The page for run records (several: with their comparison) and the charts it holds."""
    charts = ChartCollector(inline=inline)
    try:
        body = runs_body(records, comparison, charts)
    except ChartsUnavailable as error:
        raise ReportError(str(error)) from None
    title = f"iotui: comparison of {len(records)} runs" if comparison is not None else f"iotui: {record_title(records[0])}"
    return page(title, body), charts.specs


def sweep_report(sweep: SweepRecord, *, inline: bool = True) -> tuple[str, list[ChartSpec]]:
    """The page for a sweep record and the charts it holds."""
    charts = ChartCollector(inline=inline)
    if is_remedy_sweep(sweep):  # an `iotui remedy` run: its one table and the verdict
        return page(f"iotui: remedies for {sweep.preset}", remedy_body(sweep)), charts.specs
    try:
        body = sweep_body(sweep, analyze(sweep.results(), sweep.axes), charts)
    except ChartsUnavailable as error:
        raise ReportError(str(error)) from None
    return page(f"iotui: sweep of {sweep.preset}", body), charts.specs


def default_html_path(record_path: Path) -> Path:
    """Beside the record: ``run.toml`` -> ``run.html``, ``x.sweep.toml`` -> ``x.sweep.html``."""
    name = record_path.name
    stem = name[: -len(".toml")] if name.endswith(".toml") else record_path.stem
    return record_path.with_name(stem + ".html")


def runs_html_path(records: Sequence[RunRecord], fallback_dir: Path) -> Path:
    """Beside the first record: its own name for one run, ``compare-<id>-<id>.html`` for several
    (so a comparison never overwrites a run's own report); ``fallback_dir`` when it has no file."""
    first = records[0].path
    if records[0].run.get("reference"):
        first = None  # a published reference's file is inside the installed package
    if len(records) == 1 and first is not None:
        return default_html_path(first)
    ids = "-".join(re.sub(r"[^A-Za-z0-9]+", "", record.id)[:8] or "run" for record in records[:6])
    return (first.parent if first is not None else fallback_dir) / f"{'compare' if len(records) > 1 else 'run'}-{ids}.html"


def default_charts_dir(record_path: Path) -> Path:
    name = record_path.name
    for suffix in (SWEEP_SUFFIX, ".toml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return record_path.with_name(name + "-charts")


def check_output_place(path: Path, file_format: str) -> None:
    """Refuse, before any work, an output that holds something iotui will not write over: for a page,
    anything but a regular file; for charts, a folder that is a symlink or not a folder."""
    try:
        if file_format == "html":
            check_file_place(path)
        elif os.path.lexists(path):
            ensure_folder(path)
    except UnsafeFileError as error:
        raise ReportError(f"{error}; nothing was written.", error) from None
    except OSError as error:
        raise ReportError(f"{path}: cannot be looked at ({error.strerror or error}).") from None


def write_html(text: str, path: Path) -> Path:
    """Write atomically (a reader never sees half a page)."""
    try:
        check_file_place(path)  # before making any folder for it
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, text.encode("utf-8"))
    except UnsafeFileError as error:
        raise ReportError(f"{error}; the report was not written.", error) from None
    except OSError as error:
        raise ReportError(f"{path}: cannot write the report ({error.strerror or error}).") from None
    return path


def write_chart_files(specs: Sequence[ChartSpec], folder: Path, file_format: str) -> list[Path]:
    """Each chart as ``<folder>/<chart name>.<svg|png>``; a folder that is a symlink, or a chart's
    name that holds anything but a regular file, is refused before any chart is drawn."""
    written = []
    try:
        ensure_folder(folder)
        paths = [folder / f"{spec.name}.{file_format}" for spec in specs]
        for path in paths:
            check_file_place(path)
        for spec, path in zip(specs, paths):
            write_chart_file(spec, path, file_format)
            written.append(path)
    except UnsafeFileError as error:
        done = f"the {len(written)} charts before it were written" if written else "no chart was written"
        raise ReportError(f"{error}; {done}.", error) from None
    except OSError as error:
        raise ReportError(f"{folder}: cannot write the charts ({error.strerror or error}).") from None
    except ChartsUnavailable as error:
        raise ReportError(str(error)) from None
    return written
