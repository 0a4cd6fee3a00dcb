"""Home's preset titles are read from each file's root table alone: the same values tomllib gives."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from iotui.core.presets.titles import _root_table, list_preset_titles

SHIPPED = Path(__file__).parents[2] / "presets"

ROOT_TABLES = [
    # plain strings, comments and blank lines, then tables
    'name = "a"\n# a comment\n\ntitle = "A" # trailing\ndescription = "d"\n[options]\nbs = "4k"\n',
    # escaped quotes and backslashes
    'name = "a"\ndescription = "say \\"hi\\" \\\\ there"\n[options]\n',
    # other escapes (\t, \u00e9) are left to tomllib
    'name = "a"\ndescription = "tab\\there \\u00e9"\n[[jobs]]\nname = "j"\n',
    # a multi-line string with a line that starts with "[": the prefix ends inside it
    'name = "a"\ndescription = """first\n[not a table]\nlast"""\n[options]\nbs = "4k"\n',
    # literal strings, numbers and arrays at the root
    "name = 'a'\ndescription = 'd'\nrepeat = 3\ntags = [\"x\", \"y\"]\n[options]\n",
    # no table at all
    'name = "a"\ndescription = "d"\n',
    # quoted keys and spaces around the table header
    '"name" = "a"\ndescription = "d"\n  [options]\n',
]


@pytest.mark.parametrize("text", ROOT_TABLES)
def test_the_root_table_has_the_values_tomllib_gives(text: str) -> None:
    def root(table: dict) -> dict:
        return {key: value for key, value in table.items() if key not in ("options", "jobs")}

    # The whole file parsed where the prefix could not be (its tables come along then).
    assert root(_root_table(text)) == root(tomllib.loads(text))


def test_a_duplicate_key_is_an_error_as_in_tomllib() -> None:
    with pytest.raises(tomllib.TOMLDecodeError):
        _root_table('name = "a"\nname = "b"\n[options]\n')


def test_every_shipped_preset_lists_the_title_and_description_its_file_states(tmp_path: Path) -> None:
    titles = {title.name: title for title in list_preset_titles([SHIPPED])}
    assert len(titles) == len(list(SHIPPED.glob("*.toml")))
    for path in SHIPPED.glob("*.toml"):
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
        title = titles[doc["name"]]
        assert (title.title, title.description) == (doc.get("title") or doc["name"], doc["description"])
