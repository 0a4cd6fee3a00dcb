"""The presets' names and descriptions as their files state them, read without checking them.

Home lists these at its first frame: reading fourteen small TOML files is quick,
while loading them as presets (every option resolved against fio's table and
checked by the policy) needs the policy's modules and takes longer. The checked
presets (``preset_files.list_presets``) replace these right after the first
frame, and only they are ever run; a file that fails its checks then leaves the
list with its sentence.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType
from typing import NamedTuple

from iotui.core.input_files import InputFileError, read_input_file
from iotui.core.presets.dirs import preset_files


class PresetTitle(NamedTuple):
    """What the preset list shows of a preset before it is checked."""

    name: str
    title: str
    description: str
    source: Path


# The first table header ([options], [[jobs]], ...) at the start of a line.
_TABLE_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
# The root table's usual lines: blank, a comment, or key = "a basic string" with no escapes
# but \" and \\. Anything else is left to tomllib.
_PLAIN_LINE = re.compile(r'[ \t]*(?:#.*|([A-Za-z0-9_-]+)[ \t]*=[ \t]*"((?:[^"\\\x00-\x1f\x7f]|\\["\\])*)"[ \t]*(?:#.*)?)?')
_ESCAPE = re.compile(r"\\([\"\\])")


def _plain_root_table(prefix: str) -> dict[str, str] | None:
    """The root table when every line is plain (see _PLAIN_LINE), else None.

    Home lists the titles before its first frame; tomllib's import alone (its
    regular expressions) costs more than reading every preset's few plain lines.
    """
    table: dict[str, str] = {}
    for line in prefix.splitlines():
        match = _PLAIN_LINE.fullmatch(line)
        if match is None:
            return None
        key, value = match.groups()
        if key is not None:
            if key in table:
                return None  # a duplicate key is an error: tomllib's message says so
            table[key] = _ESCAPE.sub(r"\1", value)
    return table


def _tomllib() -> ModuleType:
    """The TOML reader, imported only for a root table beyond plain strings."""
    from iotui.core.toml_reader import tomllib

    return tomllib


def _root_table(text: str) -> dict:
    """The file's top-level keys, parsed from the text before its first table header.

    TOML puts every top-level key before the first table header, so that prefix is the
    whole root table, and parsing it alone skips the (larger) rest of the file. A "["
    at the start of a line inside a multi-line string ends the prefix inside that
    string, which does not parse: then the whole file is parsed instead (its tables
    come along; only the top-level keys are read).
    """
    header = _TABLE_HEADER.search(text)
    prefix = text if header is None else text[: header.start()]
    plain = _plain_root_table(prefix)
    if plain is not None:
        return plain
    tomllib = _tomllib()
    if header is not None:
        try:
            return tomllib.loads(prefix)
        except tomllib.TOMLDecodeError:
            pass
    return tomllib.loads(text)


def _title(path: Path) -> PresetTitle | None:
    try:
        doc = _root_table(read_input_file(path, "preset").decode("utf-8"))
    except (InputFileError, UnicodeDecodeError, ValueError, RecursionError):  # TOMLDecodeError is a ValueError
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
