"""The presets' names and descriptions as their files state them, read without checking them.

Home lists these at its first frame: reading fourteen small TOML files is quick,
while loading them as presets (every option resolved against fio's table and
checked by the policy) needs the policy's modules and takes longer. The checked
presets (``preset_files.list_presets``) replace these right after the first
frame, and only they are ever run; a file that fails its checks then leaves the
list with its sentence.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

from iotui.core.runs.preset_dirs import preset_files

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib


class PresetTitle(NamedTuple):
    """What the preset list shows of a preset before it is checked."""

    name: str
    title: str
    description: str
    source: Path


def _title(path: Path) -> PresetTitle | None:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None  # the checked load names what is wrong with it
    name, title, description = doc.get("name"), doc.get("title"), doc.get("description")
    if not isinstance(name, str) or not isinstance(description, str):
        return None
    return PresetTitle(name, title if isinstance(title, str) and title else name, description, path)


def list_preset_titles(dirs: list[Path]) -> list[PresetTitle]:
    """Every preset file's name and description, by name (a later directory overrides)."""
    found: dict[str, PresetTitle] = {}
    for path in preset_files(dirs):
        title = _title(path)
        if title is None:
            found.pop(path.stem, None)  # as list_presets: a broken later file hides the earlier one
            continue
        found[title.name] = title
    return sorted(found.values(), key=lambda title: title.name)
