"""The rule tests' shared parse: once per file, and again when the file changes."""

from __future__ import annotations

import ast
import os

from tests.source_trees import parsed_module


def test_a_file_is_parsed_once_and_again_after_it_changes(tmp_path) -> None:
    path = tmp_path / "module.py"
    path.write_text("first = 1\n", encoding="utf-8")
    tree = parsed_module(path)
    assert parsed_module(path) is tree
    path.write_text("second = 22\n", encoding="utf-8")
    changed = parsed_module(path)
    assert isinstance(changed.body[0], ast.Assign)
    assert [target.id for target in changed.body[0].targets] == ["second"]


def test_a_change_of_the_same_size_is_seen_by_its_modification_time(tmp_path) -> None:
    path = tmp_path / "module.py"
    path.write_text("a = 1\n", encoding="utf-8")
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    parsed_module(path)
    path.write_text("b = 2\n", encoding="utf-8")
    os.utime(path, ns=(2_000_000_000, 2_000_000_000))
    assert [target.id for target in parsed_module(path).body[0].targets] == ["b"]
