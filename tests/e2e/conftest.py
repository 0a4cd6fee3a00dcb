"""Fixtures shared by the end-to-end tests."""

from __future__ import annotations

import pytest

from tests.e2e.private_sshd import start_private_sshd


@pytest.fixture(scope="module")
def sshd():
    """A private sshd on the loopback hosts, one per test module (they skip where it cannot run)."""
    server = start_private_sshd()
    yield server
    server.stop()
