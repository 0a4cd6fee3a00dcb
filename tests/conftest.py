"""Shared fixtures: recorded fio output and helpers to read it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from iotui.core.fio.status import FioDocument, StatusSplitter

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
