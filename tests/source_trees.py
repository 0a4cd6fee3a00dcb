"""Python files parsed once per test process.

Several rule tests (the import graph, the core's package order, flags in sentences, the
architecture page, who calls what) read the syntax tree of every one of iotui's modules, and
some read it in each of their tests: parsing the package takes about 0.75 s of CPU each time.
Here each file is parsed once per process, keyed by its size and modification time, so a file
a test writes or changes is read again. The trees are shared: no caller may change one.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path


@functools.cache
def _parsed(path: str, size: int, mtime_ns: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"), filename=path)


def parsed_module(path: Path) -> ast.Module:
    """The syntax tree of the Python file at ``path`` (do not change it: it is shared)."""
    facts = path.stat()
    return _parsed(str(path), facts.st_size, facts.st_mtime_ns)
