"""Issue 34, item 1: a host whose login shell is fish (or tcsh, zsh...) runs nothing from a run's words.

sshd runs ssh's remote command as ``LOGIN_SHELL -c COMMAND``. A command quoted for sh let fish read
a value ending in ``\\`` as escaping the closing quote, and the next value's ``(touch CANARY)`` ran
on the host before fio started. Each case of the issue runs here against real login shells (sh,
bash, dash, zsh, fish and tcsh users of a loopback sshd): the canary must not appear, and each
host's fio must get the same words (its job names and descriptions, as fio reports them).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests.e2e.login_shells import ShellHosts, shells_missing_reason, start_shell_hosts

pytestmark = [
    pytest.mark.fio, pytest.mark.sshd, pytest.mark.slow,
    pytest.mark.skipif(shells_missing_reason() is not None, reason=shells_missing_reason() or ""),
]

CANARY = "CANARY"


@pytest.fixture(scope="module")
def shell_hosts():
    hosts = start_shell_hosts()
    yield hosts
    hosts.stop()


@pytest.fixture
def shared_target():
    """A target every test user can write in (each lifeline makes its own private directory there)."""
    directory = Path(tempfile.mkdtemp(prefix="iotui-shells-target-"))
    os.chmod(directory, 0o1777)
    yield directory
    subprocess.run(["rm", "-rf", str(directory)], check=False)


def _run(hosts: ShellHosts, target: Path, runs: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "IOTUI_SSH": hosts.sshd.ssh_command, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "-m", "iotui", *args, "--hosts", ",".join(hosts.destinations.values()),
         "--target", str(target), "--runtime", "1", "--size", "1M", "--baseline", "0", "--runs-dir", str(runs)],
        capture_output=True, text=True, timeout=240, env=env,
    )


def _canaries(hosts: ShellHosts, target: Path) -> list[Path]:
    places = [*hosts.homes.values(), target, Path.cwd()]
    return [place / CANARY for place in places if (place / CANARY).exists()]


def _host_jobs(runs: Path) -> dict[str, list[str]]:
    """Each host's job names as its fio reported them, from the saved record."""
    (path,) = runs.glob("*.toml")
    shown = subprocess.run([sys.executable, "-m", "iotui", "show", "--json", str(path)], capture_output=True, text=True)
    record = json.loads(shown.stdout)
    return {host["name"]: [job for section in host["sections"] for job in section["jobs"]] for host in record["hosts"]}


def _same_jobs_on_every_host(hosts: ShellHosts, runs: Path, names: list[str]) -> None:
    jobs = _host_jobs(runs)
    assert sorted(jobs) == sorted(hosts.destinations.values())
    for host, reported in jobs.items():
        assert reported == names, f"{host}'s fio got other job names: {reported}"


def _check(hosts: ShellHosts, target: Path, runs: Path, done: subprocess.CompletedProcess[str]) -> None:
    assert not _canaries(hosts, target), "a login shell ran a command from the run's words"
    assert "Traceback" not in done.stderr and "\x1b" not in done.stdout + done.stderr
    assert done.returncode == 0, done.stderr[-2000:]
    assert not [entry for entry in target.iterdir()], "a host left files in the target"


def test_set_values_ending_in_a_backslash_run_nothing_on_any_login_shell(shell_hosts, shared_target, tmp_path):
    runs = tmp_path / "runs"
    done = _run(shell_hosts, shared_target, runs, "run", "quick",
                "--set", "description=x\\", "--set", f"name=(touch {CANARY})x\\")
    _check(shell_hosts, shared_target, runs, done)
    # Every host's fio got the job name whole, backslash and parentheses as written.
    _same_jobs_on_every_host(shell_hosts, runs, [f"(touch {CANARY})x\\"])


def test_a_job_files_descriptions_and_section_names_run_nothing_on_any_login_shell(shell_hosts, shared_target, tmp_path):
    job = tmp_path / "smuggle.fio"
    job.write_text(
        "[global]\nrw=read\nbs=4k\nioengine=psync\n"
        "[x\\]\ndescription=x\\\n"
        f"[(touch {CANARY})y\\]\ndescription=(touch {CANARY})z\\\nstonewall\n"
    )
    runs = tmp_path / "runs"
    done = _run(shell_hosts, shared_target, runs, "run", "--job-file", str(job))
    _check(shell_hosts, shared_target, runs, done)
    _same_jobs_on_every_host(shell_hosts, runs, ["x\\", f"(touch {CANARY})y\\"])


def test_a_presets_two_descriptions_run_nothing_on_any_login_shell(shell_hosts, shared_target, tmp_path):
    preset = tmp_path / "smuggle.toml"
    preset.write_text(
        'name = "smuggle"\ndescription = "two jobs"\n[options]\nrw = "read"\nbs = "4k"\nioengine = "psync"\n'
        '[[jobs]]\nname = "one"\ndescription = "x\\\\"\n'
        f'[[jobs]]\nname = "two"\ndescription = "(touch {CANARY})y\\\\"\nstonewall = ""\n'
    )
    runs = tmp_path / "runs"
    done = _run(shell_hosts, shared_target, runs, "run", str(preset))
    _check(shell_hosts, shared_target, runs, done)
    _same_jobs_on_every_host(shell_hosts, runs, ["one", "two"])
