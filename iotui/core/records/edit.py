"""Change saved runs: a note and tags kept in the record itself, and deleting or pruning records.

A note or a tag is part of the run (``run.notes``, ``run.tags``), so it is
written into the TOML record (atomically, validated first) and the history
index picks it up on its next sync. Deleting removes the record and fio's
report beside it; pruning selects by age and preset, and the caller asks
before anything is removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import tomli_w

from iotui.core.records.files import load_record, validate_toml_dict
from iotui.core.safe_files import write_file
from iotui.core.records.schema import RecordError

TAG_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:+-]{0,39}$")


def parse_tags(text: str) -> list[str]:
    """Tags typed as words (spaces or commas between); RecordError naming one that is not a tag."""
    tags: list[str] = []
    for tag in re.split(r"[\s,]+", text.strip()):
        if not tag:
            continue
        if not TAG_PATTERN.match(tag):
            raise RecordError(
                f"{tag!r} is not a tag: use letters, digits and _ . : + - (at most 40, starting with a letter or digit)."
            )
        if tag not in tags:
            tags.append(tag)
    return tags


def annotate(path: Path, *, notes: str | None = None, tags: list[str] | None = None) -> None:
    """Set the run's note and/or tags in its record (an empty note or tag list removes the key)."""
    record = load_record(path)
    if notes is not None:
        if notes.strip():
            record.run["notes"] = notes.strip()
        else:
            record.run.pop("notes", None)
    if tags is not None:
        if tags:
            record.run["tags"] = list(tags)
        else:
            record.run.pop("tags", None)
    doc = record.to_toml_dict()
    validate_toml_dict(doc, str(path))
    try:
        write_file(Path(path), tomli_w.dumps(doc).encode("utf-8"))
    except OSError as error:
        raise RecordError(f"Cannot write {path} ({error.strerror or error}); check its permissions.") from None


@dataclass(frozen=True)
class Deleted:
    """What a delete removed, and the files it could not remove (with why)."""

    removed: list[Path]
    failed: list[tuple[Path, str]]


def companion_files(path: Path) -> list[Path]:
    """fio's JSON report written beside a record (same stem, ``.fio.json``)."""
    report = path.with_name(path.name[: -len(".toml")] + ".fio.json")
    return [report] if report.exists() else []


def delete_records(paths: Iterable[Path]) -> Deleted:
    """Remove each record and its report; a file that cannot be removed is reported, not raised."""
    removed: list[Path] = []
    failed: list[tuple[Path, str]] = []
    for path in paths:
        path = Path(path)
        for file in [path, *companion_files(path)]:
            try:
                file.unlink()
                removed.append(file)
            except FileNotFoundError:
                pass
            except OSError as error:
                failed.append((file, error.strerror or str(error)))
    return Deleted(removed, failed)


AGE_PATTERN = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhdw])$")
AGE_UNITS_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def parse_age(text: str) -> float:
    """``30d``, ``12h``, ``2w`` as seconds; ValueError with a sentence otherwise."""
    match = AGE_PATTERN.match(text.strip().lower())
    if not match:
        raise ValueError(f"{text!r} is not an age: write a number and a unit, s m h d or w (for example 30d).")
    return float(match.group(1)) * AGE_UNITS_S[match.group(2)]
