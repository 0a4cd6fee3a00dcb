"""Job names fio treats specially, and C1 controls, are refused on every channel; a run of nothing is never completed.

fio reads a job whose name starts with "global" as its [global] section (``strncmp(name,
"global", 6)``, on the command line and in a job file): fio 3.33 then runs nothing, prints
nothing and exits 0. A C1 control (U+0085) in a name is as much a control as a C0 one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui import cli
from iotui.core.fio.runner import FioRunner
from iotui.core.presets.files import find_preset, shipped_presets_dir
from iotui.core.presets.overrides import with_overrides
from iotui.core.runs.session import NOTHING_RAN, RunSession
from iotui.core.runs.plan import make_plan
from tests.conftest import requires_fio


def _run_cli(world: dict[str, Path], capsys, *extra: str) -> tuple[int, str]:
    code = cli.main([
        "run", "quick", "--target", str(world["target"]), "--runtime", "1", "--size", "1M", "--baseline", "0",
        "--runs-dir", str(world["runs"]), *extra,
    ])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("name", ["global", "globalx", "a\u0085b", "a\u009b2Jb"])
def test_set_name_refuses_global_and_c1_controls_before_fio_runs(world, capsys, name: str) -> None:
    code, output = _run_cli(world, capsys, "--set", f"name={name}")
    assert code != 0 and "refused" in output and "Traceback" not in output
    assert not any(0x80 <= ord(character) <= 0x9f for character in output)  # shown escaped, never raw
    assert not world["runs"].exists() or not list(world["runs"].iterdir())  # the canary: no record
    assert list(world["target"].iterdir()) == []


def test_description_with_a_c1_control_is_refused(world, capsys) -> None:
    code, output = _run_cli(world, capsys, "--set", "description=a\u0085b")
    assert code != 0 and "control character" in output and "\u0085" not in output
    assert not world["runs"].exists() or not list(world["runs"].iterdir())


@pytest.mark.parametrize("body", ["[job]\nname=global\nrw=read\nsize=64k\n", "[job]\nname=a\u0085b\nrw=read\n"])
def test_a_job_file_renaming_its_job_to_global_or_a_c1_name_is_refused(world, capsys, body: str) -> None:
    job = world["DIR"] / "named.fio"
    job.write_text(body)
    code = cli.main(["run", "--job-file", str(job), "--target", str(world["target"]), "--baseline", "0",
                     "--runs-dir", str(world["runs"])])
    out, err = capsys.readouterr()
    assert code != 0 and "named.fio, line 2" in err and "Traceback" not in out + err
    assert not world["runs"].exists() or not list(world["runs"].iterdir())


@pytest.mark.parametrize("preset", [
    'name = "global"\ndescription = "d"\n[options]\nrw = "read"\n',
    'name = "mine"\ndescription = "d"\n[options]\nrw = "read"\n[[jobs]]\nname = "globalA"\n',
])
def test_a_preset_whose_job_is_named_global_is_refused_by_name(world, capsys, preset: str) -> None:
    (world["config"] / "iotui" / "presets" / "evil.toml").write_text(preset)
    assert cli.main(["presets"]) == 0
    out, err = capsys.readouterr()
    assert "evil.toml" in err and "[global] section" in err and "quick" in out


@requires_fio
@pytest.mark.fio
async def test_a_run_in_which_real_fio_ran_nothing_is_failed_with_a_sentence(world) -> None:
    # The policy refuses --name=global on every channel; the runner puts it back, so real fio gets it.
    preset = with_overrides(find_preset("quick", [shipped_presets_dir()]), size="64k", runtime_s=1)
    plan = make_plan(preset, world["target"], fio_binary="fio")

    def as_global(argv: list[str]) -> FioRunner:
        return FioRunner(["--name=global" if part.startswith("--name=") else part for part in argv])

    assert any(part.startswith("--name=") for part in plan.argv)
    session = RunSession(plan, fio_version="fio", runs_dir=world["runs"], runner_factory=as_global)
    record = await session.run()
    assert record.status == "failed"
    assert [w["message"] for w in record.warnings if w["code"] == "failed"] == [NOTHING_RAN]
    assert record.path is not None and record.path.exists() and record.sections == []
    assert list(world["target"].iterdir()) == []  # the private directory is gone
