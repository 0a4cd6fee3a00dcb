"""Throw-away users whose login shells are sh, bash, dash, zsh, fish and tcsh, and an sshd they can log in to.

sshd runs a remote command as ``LOGIN_SHELL -c COMMAND`` with the user's shell from the password
database (OpenSSH's session.c, do_child), and no sshd option chooses another: so the test logs in
as users made for it with ``useradd`` (only as root, as CI runs; each is removed with ``userdel``
after), over a private sshd on loopback whose key files they can read.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.private_sshd import HOSTS, PrivateSshd, _free_port, make_keys, missing_reason, spawn_sshd, wait_listening

LOGIN_SHELLS = ("sh", "bash", "dash", "zsh", "fish", "tcsh")


def shells_missing_reason() -> str | None:
    """Why the login-shell tests cannot run here (None: they can)."""
    if (reason := missing_reason()) is not None:
        return reason
    if os.geteuid() != 0 or shutil.which("useradd") is None:
        return "logging in with another login shell needs throw-away users, made with useradd as root (CI runs as root)"
    absent = [shell for shell in LOGIN_SHELLS if shutil.which(shell) is None]
    if absent:
        return f"{', '.join(absent)} not installed (scripts/bootstrap.sh --test installs them)"
    return None


@dataclass
class ShellHosts:
    """One ssh destination (``user@127.0.0.1``) per login shell, the sshd, and the users' homes."""

    sshd: PrivateSshd
    destinations: dict[str, str]
    homes: dict[str, Path]
    users: list[str]

    def stop(self) -> None:
        if self.sshd.process is not None:
            self.sshd.stop()
        for user in self.users:
            subprocess.run(["userdel", "-f", user], capture_output=True)
        for home in self.homes.values():
            shutil.rmtree(home.parent, ignore_errors=True)


def start_shell_hosts() -> ShellHosts:
    directory = Path(tempfile.mkdtemp(prefix="iotui-shells-sshd-"))
    hosts = ShellHosts(PrivateSshd(directory, 0, None), {}, {}, [])  # type: ignore[arg-type]
    try:
        make_keys(directory)
        # sshd reads a user's authorized keys as that user: the directory and that file are readable.
        os.chmod(directory, 0o755)
        os.chmod(directory / "authorized_keys", 0o644)
        for shell in LOGIN_SHELLS:
            user = f"iotui{os.getpid() % 100000}{shell}"
            base = Path(tempfile.mkdtemp(prefix=f"iotui-home-{shell}-"))
            os.chmod(base, 0o755)
            home = base / "home"
            subprocess.run(
                ["useradd", "-M", "-d", str(home), "-s", shutil.which(shell) or shell, "-p", "*", user],
                check=True, capture_output=True,
            )
            hosts.users.append(user)
            home.mkdir()
            shutil.chown(home, user, user)
            hosts.homes[shell] = home
            hosts.destinations[shell] = f"{user}@{HOSTS[0]}"
        port = _free_port()
        process = spawn_sshd(directory, port, HOSTS[:1])
        hosts.sshd = PrivateSshd(directory, port, process)
        wait_listening(process, HOSTS[0], port, directory / "sshd.log")
    except BaseException:
        hosts.stop()
        shutil.rmtree(directory, ignore_errors=True)
        raise
    return hosts
