"""What the fault tests share: a world with a canary outside the target, private config and runs."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "SECRET-FILE"
    secret.write_text("the secret")
    paths = {
        "CANARY": outside / "canary",
        "SECRET": secret,
        "DIR": outside,
        "target": tmp_path / "target",
        "runs": tmp_path / "runs",
        "config": tmp_path / "config",
    }
    paths["target"].mkdir()
    (paths["config"] / "iotui" / "presets").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(paths["config"]))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("IOTUI_RUNS_DIR", str(paths["runs"]))
    return paths
