"""The built wheel alone, in a fresh virtual environment (what ``pipx install`` does), lists every preset and runs one.

Offline: the wheel is built without build isolation and installed with ``--no-deps``;
its dependencies come from this test environment's site-packages through a plain
path in a ``.pth`` file, which puts those packages on the path without running the
editable install's finder, so iotui itself and its presets can only come from the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

from tests.conftest import requires_fio

REPO = Path(__file__).resolve().parents[2]
SHIPPED_PRESETS = sorted(path.stem for path in (REPO / "presets").glob("*.toml"))
pytestmark = [pytest.mark.slow, pytest.mark.fio, requires_fio]


def _run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """The wheel and the sdist, built from this checkout."""
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    result = _run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(REPO)])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return wheel, sdist


def test_the_wheel_and_the_sdist_carry_every_preset(built) -> None:
    wheel, sdist = built
    with zipfile.ZipFile(wheel) as archive:
        in_wheel = sorted(Path(name).stem for name in archive.namelist() if name.startswith("iotui/presets/") and name.endswith(".toml"))
        names = archive.namelist()
    assert in_wheel == SHIPPED_PRESETS and len(in_wheel) >= 18
    # The other data files the package reads at run time travel too.
    for data in ("iotui/ui/iotui.tcss", "iotui/web/templates/app_index.html", "iotui/core/fio/data/fio-3.33-options.json"):
        assert data in names
    with tarfile.open(sdist) as archive:
        in_sdist = sorted(Path(name).stem for name in archive.getnames() if "/presets/" in name and name.endswith(".toml"))
    assert in_sdist == SHIPPED_PRESETS


@pytest.fixture(scope="module")
def fresh_venv(built, tmp_path_factory) -> Path:
    """A new virtual environment with only the wheel installed; its bin directory."""
    wheel, _ = built
    root = tmp_path_factory.mktemp("fresh") / "venv"
    venv.EnvBuilder(with_pip=False).create(root)
    python = root / "bin" / "python"
    result = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", str(wheel)])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip())
    (site / "test-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return root / "bin"


def _env(tmp_path: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # no user presets
    return env


def test_a_fresh_install_lists_every_preset_from_the_wheel(fresh_venv: Path, tmp_path: Path) -> None:
    result = _run([str(fresh_venv / "iotui"), "presets", "--json"], cwd=tmp_path, env=_env(tmp_path))
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert sorted(row["name"] for row in rows) == SHIPPED_PRESETS
    # Each one read from the installed package, none from this checkout.
    assert all(Path(row["source"]).is_relative_to(fresh_venv.parent) for row in rows), [row["source"] for row in rows]
    text = _run([str(fresh_venv / "iotui"), "presets"], cwd=tmp_path, env=_env(tmp_path)).stdout
    assert all(f"{name} " in text for name in SHIPPED_PRESETS)


def test_a_user_preset_still_overrides_a_shipped_one_by_name(fresh_venv: Path, tmp_path: Path) -> None:
    user = tmp_path / "config" / "iotui" / "presets"
    user.mkdir(parents=True)
    mine = (REPO / "presets" / "quick.toml").read_text().replace('description = "', 'description = "MINE ', 1)
    (user / "quick.toml").write_text(mine)
    result = _run([str(fresh_venv / "iotui"), "presets", "--json"], cwd=tmp_path, env=_env(tmp_path))
    rows = {row["name"]: row for row in json.loads(result.stdout)}
    assert sorted(rows) == SHIPPED_PRESETS
    assert rows["quick"]["source"] == str(user / "quick.toml") and rows["quick"]["description"].startswith("MINE ")


def test_a_fresh_install_runs_quick(fresh_venv: Path, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.mkdir()
    runs = tmp_path / "runs"
    result = _run(
        [str(fresh_venv / "iotui"), "run", "quick", "--runtime", "2", "--size", "4M", "--baseline", "0",
         "--target", str(target), "--runs-dir", str(runs)],
        cwd=tmp_path, env=_env(tmp_path),
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (record,) = runs.glob("*.toml")
    assert list(target.iterdir()) == []
    # The installed command's report of it, with the optional charts' library beside it.
    pytest.importorskip("matplotlib")
    result = _run([str(fresh_venv / "iotui"), "report", str(record)], cwd=tmp_path, env=_env(tmp_path))
    assert result.returncode == 0, result.stderr[-2000:]
    assert "<svg" in record.with_suffix(".html").read_text()
