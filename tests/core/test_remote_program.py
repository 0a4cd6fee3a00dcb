"""The one form of a remote program: a fixed command every login shell reads alike, the program on stdin.

Each login shell here is the real one (scripts/bootstrap.sh --test installs dash, zsh, fish and
tcsh), run as sshd runs a remote command: ``SHELL -c COMMAND``, the program on its stdin.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from iotui.core.remote.lifeline_script import LIFELINE_SCRIPT, lifeline_program
from iotui.core.remote.remote_program import NEUTRAL_CHARACTERS, PAYLOAD_END, is_shell_neutral, remote_program

LOGIN_SHELLS = ("sh", "bash", "dash", "zsh", "fish", "tcsh")
# Prints each argument NUL-terminated, so any argument (newlines included) comes back whole.
PRINT_ARGS = "for arg do printf '%s\\0' \"$arg\"; done"
# The payloads: a value ending in a backslash flips fish's quoting of what follows.
FISH_PAYLOADS = ["--description=x\\", "--name=(touch {canary})x\\", "--rw=read"]


def _run(shell: str, program_args: list[str], script: str = PRINT_ARGS) -> subprocess.CompletedProcess[bytes]:
    program = remote_program("iotui-test", script, program_args)
    return subprocess.run([shell, "-c", program.command], input=program.payload, capture_output=True, timeout=20)


def _args_back(output: bytes) -> list[str]:
    return output.decode("utf-8", "surrogateescape").split("\0")[:-1]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",))), max_size=6))
def test_the_command_is_shell_neutral_whatever_the_arguments(args: list[str]) -> None:
    program = remote_program("iotui-lifeline", LIFELINE_SCRIPT, args)
    assert is_shell_neutral(program.command)
    assert set(program.command) <= NEUTRAL_CHARACTERS
    assert program.command == "exec sh -s iotui-lifeline"


def test_shell_neutral_refuses_what_a_shell_reads():
    for command in ("sh -c 'x'", "a\\b", "a  b", " a", "=sh", "~/x", "a;b", "a$b", "a(b)", "a*b", "-sh", "a\nb", "a{b}"):
        assert not is_shell_neutral(command), command
    assert is_shell_neutral("exec sh -s iotui-probe")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=20), max_size=5))
def test_sh_gets_every_argument_back_exactly(args: list[str]) -> None:
    done = _run("sh", args)
    assert done.returncode == 0, done.stderr
    assert _args_back(done.stdout) == args


@pytest.mark.parametrize("shell", LOGIN_SHELLS)
def test_every_login_shell_gives_the_same_arguments_and_runs_nothing_of_them(shell: str, tmp_path: Path) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed (scripts/bootstrap.sh --test installs it)")
    canary = tmp_path / "CANARY"
    args = [str(tmp_path), "", *(word.format(canary=canary) for word in FISH_PAYLOADS),
            "it's", "a\nb", "$(touch " + str(canary) + ")", "`touch " + str(canary) + "`", "~", "*", "!1", "%1", "{a,b}"]
    done = _run(shell, args)
    assert done.returncode == 0, done.stderr
    assert _args_back(done.stdout) == args
    assert not canary.exists()


def test_a_program_cut_short_runs_nothing(tmp_path: Path) -> None:
    canary = tmp_path / "CANARY"
    program = remote_program("iotui-test", f"touch {canary}", ["a"])
    cut = program.payload[: program.payload.index(PAYLOAD_END.encode())]
    subprocess.run(["sh", "-c", program.command], input=cut, capture_output=True, timeout=20)
    assert not canary.exists()
    subprocess.run(["sh", "-c", program.command], input=program.payload, capture_output=True, timeout=20)
    assert canary.exists()  # the whole program does run: the cut is what stopped it


@pytest.mark.parametrize("shell", ["sh", "bash"])
def test_lines_after_the_program_are_the_scripts_to_read_never_commands(shell: str) -> None:
    # As the lifeline speaks: the program, then (once it runs) a line; sh never runs what follows it.
    program = remote_program("iotui-test", "echo ready; IFS= read -r line; printf '%s\\n' \"$line\"", [])
    process = subprocess.Popen([shell, "-c", program.command], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(program.payload)
    process.stdin.flush()
    assert process.stdout.readline() == b"ready\n"
    process.stdin.write(b"go\necho ran\n")
    process.stdin.close()
    assert process.stdout.read() == b"go\n"
    assert process.wait(timeout=20) == 0


def test_the_lifeline_program_carries_its_target_hold_and_fio_arguments():
    assert subprocess.run(["sh", "-n", "-c", LIFELINE_SCRIPT]).returncode == 0
    args = ["--name=a b", "--filename=iotui.fio-test", "--rw=randread"]
    assert lifeline_program("/mnt/it's here", args) == remote_program(
        "iotui-lifeline", LIFELINE_SCRIPT, ["/mnt/it's here", "", *args]
    )
    assert lifeline_program(None, args, hold=True) == remote_program("iotui-lifeline", LIFELINE_SCRIPT, ["", "hold", *args])
