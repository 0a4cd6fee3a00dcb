"""The run record: one saved run, its sections and figures, as TOML or JSON.

Loading, validating and saving it is :mod:`iotui.core.records.files`.

The format is a contract other features read (compare, sweeps, import);
``docs/record-format.md`` documents every key. Records are dict-shaped on
purpose: they are data on disk first, and a table of expected types below is
the single place that says what a valid record holds.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from iotui.core.numbers import number
from iotui.core.records.direction_figures import (
    DirectionFigures,
    section_directions,
    section_figures,
    section_metric,
    section_total_iops,
)
from iotui.core.records.migrate import rename_run_keys, sections_from_legacy
from iotui.core.records.schema import (
    DIRECTIONS,
    KNOWN_TOP,
    SCHEMA_VERSION,
)


class RunRecord:
    """One run, as saved on disk (schema 2). See docs/record-format.md.

    The unit of figures is the **section** (fio's reporting group): ``sections``
    is a list of TOML-shaped dicts in fio's order, and :meth:`figures` their
    typed per-direction view. ``summary`` is the schema 1 view kept for readers
    of one-section runs: that section's directions and ``cpu`` (plus the run's
    ``pressure``), read-only; for a multi-section run it holds no figures, since
    nothing is summed across sections.
    """

    def __init__(
        self,
        run: dict[str, Any],
        host: dict[str, Any],
        target: dict[str, Any],
        options: dict[str, str] | None = None,
        summary: dict[str, Any] | None = None,
        samples: list[dict[str, Any]] | None = None,
        warnings: list[dict[str, Any]] | None = None,
        messages: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
        path: Path | None = None,
        *,
        sections: list[dict[str, Any]] | None = None,
        pauses: list[dict[str, Any]] | None = None,
        pressure: dict[str, Any] | None = None,
        hosts: list[dict[str, Any]] | None = None,
    ) -> None:
        self.run: dict[str, Any] = rename_run_keys(run)
        self.host = host
        self.target = target
        self.options: dict[str, str] = options if options is not None else {}
        self.samples: list[dict[str, Any]] = samples if samples is not None else []
        self.warnings: list[dict[str, Any]] = warnings if warnings is not None else []
        self.messages: list[dict[str, Any]] = messages if messages is not None else []
        self.extra: dict[str, Any] = extra if extra is not None else {}
        self.path = path
        self.sections: list[dict[str, Any]] = sections if sections is not None else []
        self.pauses: list[dict[str, Any]] = pauses if pauses is not None else []
        self.pressure: dict[str, Any] = pressure if pressure is not None else {}
        self.hosts: list[dict[str, Any]] = hosts if hosts is not None else []
        if summary:
            self.summary = summary

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RunRecord):
            return NotImplemented
        return self.to_toml_dict() == other.to_toml_dict() and self.path == other.path

    def __repr__(self) -> str:
        return f"RunRecord(id={self.id!r}, preset={self.preset!r}, sections={self.section_names()!r})"

    # -- convenient reads -------------------------------------------------
    @property
    def id(self) -> str:
        return str(self.run.get("id", ""))

    @property
    def status(self) -> str:
        return str(self.run.get("status", ""))

    @property
    def preset(self) -> str:
        return str(self.run.get("preset", ""))

    @property
    def tool(self) -> str:
        return str(self.run.get("tool", "fio"))

    @property
    def tool_version(self) -> str:
        return str(self.run.get("tool_version", ""))

    @property
    def argv(self) -> list[str]:
        return [str(arg) for arg in self.run.get("argv") or []]

    @property
    def report(self) -> str:
        return str(self.run.get("report", ""))

    @property
    def paused_s(self) -> float:
        """Total time paused (0 when never paused)."""
        return number(self.run.get("paused_s")) or 0.0

    @property
    def started(self) -> dt.datetime | None:
        started = self.run.get("started")
        return started if isinstance(started, dt.datetime) else None

    # -- sections ---------------------------------------------------------
    def section_names(self) -> list[str]:
        return [str(section.get("name", "")) for section in self.sections]

    @property
    def is_multi_section(self) -> bool:
        return len(self.sections) > 1

    @property
    def only_section(self) -> dict[str, Any] | None:
        """The one section of a one-section run; ``None`` when there are none or several."""
        return self.sections[0] if len(self.sections) == 1 else None

    def section_metric(self, index: int, direction: str, key: str) -> float | None:
        if not 0 <= index < len(self.sections):
            return None
        return section_metric(self.sections[index], direction, key)

    def figures(self, index: int | None = None) -> tuple[DirectionFigures, ...]:
        """The typed figures of a section's directions: section ``index``, or (None) a one-section run's only one.

        Empty where that section does not exist, and for ``None`` on a run of several sections.
        """
        if index is None:
            section = self.only_section
        else:
            section = self.sections[index] if 0 <= index < len(self.sections) else None
        return section_figures(section) if section is not None else ()

    def figures_of(self, direction: str, index: int | None = None) -> DirectionFigures | None:
        """One direction's typed figures (section ``index``, or a one-section run's); None where it did no I/O."""
        return next((figures for figures in self.figures(index) if figures.direction == direction), None)

    def section_samples(self, index: int) -> list[dict[str, Any]]:
        """The samples assigned to one section (a one-section run's unassigned samples too)."""
        if len(self.sections) == 1 and index == 0:
            return [s for s in self.samples if s.get("section", 0) == 0]
        return [s for s in self.samples if s.get("section") == index]

    # -- schema 1 view ----------------------------------------------------
    @property
    def summary(self) -> Mapping[str, Mapping[str, Any]]:
        """Schema 1's ``[summary]`` of a one-section run, to read (figures absent for several sections).

        Read-only: a figure is changed in its section (``sections[0]``), the record's one copy;
        setting ``summary`` as a whole replaces the sections.
        """
        view: dict[str, Mapping[str, Any]] = {}
        section = self.only_section
        if section is not None:
            for key, value in section.items():
                if isinstance(value, dict) and key not in ("options", "pressure", "steady", "cliff", "latency_target"):
                    view[key] = MappingProxyType(dict(value))
        if self.pressure:
            view["pressure"] = MappingProxyType(dict(self.pressure))
        return MappingProxyType(view)

    @summary.setter
    def summary(self, summary: Mapping[str, Any]) -> None:
        name = str(self.sections[0].get("name")) if len(self.sections) == 1 else (self.preset or "run")
        self.sections = sections_from_legacy(dict(summary), None, name)
        if isinstance(summary.get("pressure"), dict):
            self.pressure = dict(summary["pressure"])
            for section in self.sections:
                section.pop("pressure", None)
                section["pressure"] = dict(summary["pressure"])

    def directions(self) -> list[str]:
        """Directions that did I/O in a one-section run (none for several sections)."""
        section = self.only_section
        return section_directions(section) if section is not None else []

    def metric(self, direction: str, key: str) -> float | None:
        """A one-section run's figure; ``None`` for several sections (use :meth:`section_metric`)."""
        section = self.only_section
        return section_metric(section, direction, key) if section is not None else None

    def total_iops(self) -> float:
        section = self.only_section
        return section_total_iops(section) if section is not None else 0.0

    def add_warning(self, code: str, message: str) -> None:
        if not any(w.get("code") == code and w.get("message") == message for w in self.warnings):
            self.warnings.append({"code": code, "message": message})

    # -- (de)serialisation ------------------------------------------------
    def to_toml_dict(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"schema": SCHEMA_VERSION}
        doc["run"] = _drop_none(rename_run_keys(self.run))
        doc["host"] = _drop_none(self.host)
        doc["target"] = _drop_none(self.target)
        doc["options"] = {str(k): str(v) for k, v in self.options.items()}
        if self.pressure:
            doc["pressure"] = _drop_none(self.pressure)
        for key, value in self.extra.items():
            if key not in KNOWN_TOP and key != "jobs":
                doc[key] = value
        if self.pauses:
            doc["pauses"] = [_drop_none(pause) for pause in self.pauses]
        sections = self.sections
        legacy_rows = self.extra.get("jobs")
        if isinstance(legacy_rows, list) and legacy_rows:
            sections = sections_from_legacy({}, legacy_rows, self.preset or "run")
        doc["sections"] = [_drop_none(section) for section in sections]
        if self.samples:
            one = len(sections) == 1
            doc["samples"] = [
                _drop_none({"section": 0, **sample} if one and "section" not in sample else sample)
                for sample in self.samples
            ]
        if self.hosts:
            doc["hosts"] = [_drop_none(host) for host in self.hosts]
        if self.warnings:
            doc["warnings"] = [dict(w) for w in self.warnings]
        if self.messages:
            doc["messages"] = [dict(m) for m in self.messages]
        return doc

    def to_json_dict(self) -> dict[str, Any]:
        """The record as JSON: ``sections`` in fio's order; ``summary`` only for a one-section run."""
        doc = self.to_toml_dict()
        for section in doc["sections"]:
            if isinstance(section.get("steady"), dict):
                section["steady"].setdefault("after_s", None)  # JSON says "not reached" with null
        if len(doc["sections"]) == 1:
            section = doc["sections"][0]
            doc["summary"] = {
                key: value for key, value in section.items() if key in (*DIRECTIONS, "cpu") and isinstance(value, dict)
            }
        if self.path is not None:
            doc["path"] = str(self.path)
        return json.loads(json.dumps(doc, default=_json_default))


def _json_default(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"cannot encode {type(value).__name__}")


def _drop_none(value: Any) -> Any:
    """TOML has no null: an absent signal is an absent key (also inside nested tables and arrays)."""
    if isinstance(value, dict):
        cleaned: dict[str, Any] = {}
        for key, item in value.items():
            if item is None or (isinstance(item, float) and item != item):  # NaN is not a number to keep
                continue
            cleaned[key] = _drop_none(item)
        return cleaned
    if isinstance(value, list):
        return [_drop_none(item) for item in value if item is not None]
    return value
