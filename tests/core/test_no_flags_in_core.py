"""The core's sentences name no command-line flag: the command line and the app each add what to do
in their own terms (docs/architecture.md, "Errors and advice").

Read from the source: every string literal under iotui/core/ (f-strings' text parts included) that
holds ``--`` followed by a letter is a flag in a sentence, except where the literal is one of these,
each for its reason:

- documentation (a docstring, or an attribute's string after it): read by developers, never shown;
- one word of another program's command line: the whole literal is one option word, such as
  ``--thread`` or ``--name=`` (of fio, sysbench or ssh), and it stands in a tuple or list, is an
  argument of a call that is not an error's, or is compared with an argv;
- a shell script sent to a host over ssh (``*_SCRIPT``), which runs fio with fio's own options;
- a sentence that names another program's own option, listed below by module and option (the
  test also fails when one of these is no longer there, so the list cannot go stale).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import iotui
from tests.source_trees import parsed_module

CORE = Path(iotui.__file__).parent / "core"
FLAG = re.compile(r"(?<![\w-])--[A-Za-z][\w-]*")
OPTION_WORD = re.compile(r"--[A-Za-z][\w-]*=?")

# (module under core/, option): a sentence about another program's own option.
OTHER_PROGRAMS_OPTIONS = {
    ("fio/runner.py", "--version"): "says that `fio --version` (what iotui ran) did not answer",
    ("records/importer.py", "--output-format"): "tells how to make fio write the JSON that iotui imports",
    ("remedy/cgroups.py", "--scope"): "the remedy verdict's command that makes a cgroup weight last (systemd-run's)",
    ("sysbench/workload.py", "--file-fsync-freq"): "compares fio's fsync with sysbench's own option",
}


def _parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _is_documentation(node: ast.AST, parents: dict[int, ast.AST]) -> bool:
    return isinstance(parents.get(id(node)), ast.Expr)


def _is_argv_word(node: ast.Constant, whole: ast.AST, parents: dict[int, ast.AST]) -> bool:
    text = node.value
    if isinstance(whole, ast.JoinedStr):  # f"--name={...}": the text part opens the word
        if whole.values[0] is not node or not OPTION_WORD.fullmatch(text):
            return False
    elif not OPTION_WORD.fullmatch(text) and not re.fullmatch(r"--[A-Za-z][\w-]*=\S*", text):
        return False
    parent = parents.get(id(whole))
    if isinstance(parent, (ast.Tuple, ast.List, ast.Compare)):
        return True
    if isinstance(parent, ast.Call) and whole in parent.args:
        called = ast.unparse(parent.func)
        return not called.endswith("Error")
    return False


def _is_script(whole: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(whole))
    return isinstance(parent, ast.Assign) and all(
        isinstance(target, ast.Name) and target.id.endswith("_SCRIPT") for target in parent.targets
    )


def flags_in_sentences(core: Path = CORE) -> tuple[list[str], set[tuple[str, str]]]:
    """(each flag found in a core sentence, as 'module:line: text'; the listed exceptions met)."""
    found: list[str] = []
    met: set[tuple[str, str]] = set()
    for path in sorted(core.rglob("*.py")):
        module = path.relative_to(core).as_posix()
        tree = parsed_module(path)
        parents = _parents(tree)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
                continue
            flags = FLAG.findall(node.value)
            if not flags:
                continue
            whole = parents[id(node)] if isinstance(parents.get(id(node)), ast.JoinedStr) else node
            if _is_documentation(whole, parents) or _is_script(whole, parents):
                continue
            if _is_argv_word(node, whole, parents):
                continue
            for flag in flags:
                option = flag.split("=", 1)[0]
                if (module, option) in OTHER_PROGRAMS_OPTIONS:
                    met.add((module, option))
                else:
                    found.append(f"{module}:{node.lineno}: {flag} in {node.value.strip()[:80]!r}")
    return found, met


def test_no_core_sentence_names_a_command_line_flag() -> None:
    found, met = flags_in_sentences()
    assert found == [], "\n".join(found)
    assert met == set(OTHER_PROGRAMS_OPTIONS), set(OTHER_PROGRAMS_OPTIONS) - met


def test_the_scan_finds_a_flag_in_a_sentence_and_passes_an_argv_word(tmp_path) -> None:
    # The same reading on a made-up core: it must be able to fail.
    core = tmp_path / "core"
    core.mkdir()
    (core / "refusal.py").write_text(
        'class TargetError(Exception):\n'
        '    """Refused; says what to do with --target in a docstring, which is allowed."""\n'
        'def check(path):\n'
        '    argv = ["fio", "--thread", f"--filename={path}"]\n'
        '    raise TargetError(f"The target {path} does not exist; give one with --target.")\n'
        'ADVICE = {"size-unknown": "--size"}\n'
    )
    found, _ = flags_in_sentences(core)
    assert sorted(line.split(": ", 1)[1].split(" in ")[0] for line in found) == ["--size", "--target"]
