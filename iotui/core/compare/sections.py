"""Comparing runs section by section: sections are matched by name and options, each judged alone.

A run with several sections (a block-size table, read then write) has no one
figure to compare. Each section of the baseline is matched with the section
of every other run that has the same name and the same options; each match is
compared like a one-section run (its own samples, its own warm-up), and its
rows are labelled with the section's name. A section only one run has is
listed, not judged.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Callable, Mapping

from iotui.core import format as fmt
from iotui.core.compare.comparison import Comparison
from iotui.core.interference import disturbed
from iotui.core.records.record import RunRecord

SectionKey = tuple[str, tuple[tuple[str, str], ...]]


def section_key(section: Mapping[str, object]) -> SectionKey:
    options = section.get("options")
    pairs = options.items() if isinstance(options, Mapping) else ()
    return str(section.get("name", "")), tuple(sorted((str(k), str(v)) for k, v in pairs))


def section_view(record: RunRecord, index: int | None) -> RunRecord:
    """The record as if it had only that section (and its samples); no section: no figures."""
    view = copy.copy(record)
    if index is None:
        view.sections, view.samples, view.pressure = [], [], {}
        return view
    section = record.sections[index]
    view.sections = [section]
    view.samples = record.section_samples(index)
    view.pressure = dict(section.get("pressure") or {})
    return view


def matched_sections(records: list[RunRecord]) -> list[tuple[SectionKey, list[int | None]]]:
    """Every distinct section (by name and options), in first-seen order, with its index in each run."""
    order: list[SectionKey] = []
    where: dict[SectionKey, list[int | None]] = {}
    for position, record in enumerate(records):
        for index, section in enumerate(record.sections):
            key = section_key(section)
            if key not in where:
                order.append(key)
                where[key] = [None] * len(records)
            if where[key][position] is None:
                where[key][position] = index
    return [(key, where[key]) for key in order]


def _labels(keys: list[SectionKey]) -> list[str]:
    """Section names; a name that stands for sections with different options gets them added."""
    names = [name for name, _ in keys]
    labels = []
    for name, options in keys:
        if names.count(name) > 1:
            labels.append(f"{name} [{', '.join(f'{k}={v}' for k, v in options)}]")
        else:
            labels.append(name)
    return labels


def compare_by_section(records: list[RunRecord], compare_flat: Callable[[list[RunRecord]], Comparison]) -> Comparison:
    """A comparison whose rows are each matched section's rows, labelled with the section."""
    matches = matched_sections(records)
    labels = _labels([key for key, _ in matches])
    per_section: list[tuple[str, Comparison]] = []
    rows = []
    for label, (_, indices) in zip(labels, matches):
        views = [section_view(record, index) for record, index in zip(records, indices)]
        comparison = compare_flat(views)
        per_section.append((label, comparison))
        for row in comparison.rows:
            rows.append(dataclasses.replace(row, metric=dataclasses.replace(row.metric, group=f"{label} · {row.metric.group}")))
    result = compare_flat(records)
    result.rows = rows
    result.sections = per_section
    unmatched = [label for label, (_, indices) in zip(labels, matches) if sum(i is not None for i in indices) < 2]
    if unmatched:
        result.notes.append(
            "Sections only one run has (listed, not judged): " + ", ".join(unmatched) + "."
        )
    return result


def pause_notes(labels: list[str], records: list[RunRecord]) -> list[str]:
    """A sentence for every paused run, so no verdict about one is silent."""
    notes = []
    for label, record in zip(labels, records):
        if record.paused_s:
            notes.append(
                f"Run {label} was {fmt.paused(record.paused_s)}: its figures leave the paused time out "
                "(see docs/numbers.md); judge its verdicts with that in mind."
            )
    return notes


def interference_notes(labels: list[str], records: list[RunRecord]) -> list[str]:
    """A sentence for every run in which another program's I/O shared the device (its seconds are left out)."""
    notes = []
    for label, record in zip(labels, records):
        seconds = sum(1 for sample in record.samples if disturbed(sample))
        if seconds:
            notes.append(
                f"Run {label} shared the device with another program's I/O for {seconds} s (its interference "
                "warning names it): those seconds are left out of its figures here."
            )
    return notes
