"""Shared fixtures: recorded fio output and helpers to read it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from iotui.core.fio.status import FioDocument, StatusSplitter
from tests.module_seconds import MODULE_SECONDS

FIXTURES = Path(__file__).parent / "fixtures"
FIO_FIXTURES = FIXTURES / "fio"


def fio_documents(name: str) -> list[dict]:
    """All complete documents in a recorded fio stdout capture."""
    splitter = StatusSplitter()
    data = (FIO_FIXTURES / name).read_bytes()
    items = splitter.feed(data) + splitter.close()
    return [item.doc for item in items if isinstance(item, FioDocument)]


def recorded_fio_outputs() -> list[str]:
    return sorted(path.name for path in FIO_FIXTURES.glob("*.txt"))


requires_fio = pytest.mark.skipif(
    shutil.which("fio") is None,
    reason="fio is not installed (bash .ci/run installs it from the OS packages)",
)



def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The longest modules first, each module's tests in their own order.

    The suite runs a module per worker (``--dist loadfile``), handed out in collection order: with
    the long modules started first and the many quick ones left to fill the end, no worker is left
    alone on a long module while the others idle (the longest-first rule for scheduling). A
    module's length is its measured seconds (``tests/module_seconds.py``); the unlisted ones
    follow, those with the most slow tests first."""
    slow_tests: dict[str, int] = {}
    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        module = item.nodeid.split("::", 1)[0]
        first_seen.setdefault(module, index)
        if item.get_closest_marker("slow") is not None:
            slow_tests[module] = slow_tests.get(module, 0) + 1

    def order(item: pytest.Item) -> tuple[int, int, int]:
        module = item.nodeid.split("::", 1)[0]
        return -MODULE_SECONDS.get(module, 0), -slow_tests.get(module, 0), first_seen[module]

    items.sort(key=order)

@pytest.fixture(autouse=True)
def private_runtime_dir(tmp_path_factory, monkeypatch):
    """Each test gets its own runtime directory, so its run lock is its own.

    Runs take the machine's run lock in ``$XDG_RUNTIME_DIR/iotui``; tests of
    several checkouts running at once must not refuse each other's runs.
    """
    directory = tmp_path_factory.mktemp("runtime")
    directory.chmod(0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(directory))
    return directory


@pytest.fixture(autouse=True)
def no_inherited_terminal_width(monkeypatch):
    """Commands print for a pipe, every column in full, unless a test sets ``COLUMNS`` itself.

    GNU readline, once loaded in the test process, writes ``COLUMNS`` and ``LINES`` into the C
    environment (not ``os.environ``), which children started with the parent's environment inherit,
    and a parallel worker's environment can carry them too: ``iotui history`` then fitted its table
    to 80 columns in one test and not in another.
    """
    for name in ("COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
        os.unsetenv(name)
