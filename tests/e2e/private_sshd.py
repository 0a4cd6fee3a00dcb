"""A private sshd on 127.0.0.1-3 for the multi-host tests.

Throwaway host and user keys made with ssh-keygen in a temp directory, a
private sshd_config (loopback only, a high port, keys only), ``sshd -f CONFIG
-D`` as a child process, stopped and removed afterwards. The system sshd is
never used.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
HOSTS = ("127.0.0.1", "127.0.0.2", "127.0.0.3")


def missing_reason() -> str | None:
    if not os.path.exists(SSHD) or not shutil.which("ssh") or not shutil.which("ssh-keygen"):
        return "openssh-server and openssh-client are not installed (scripts/bootstrap.sh --test installs them)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class PrivateSshd:
    directory: Path
    port: int
    process: subprocess.Popen

    @property
    def ssh_command(self) -> str:
        """What IOTUI_SSH gets: the throwaway key, the port, no known_hosts of the user."""
        key = self.directory / "user_key"
        return " ".join(
            shlex.quote(word)
            for word in (
                "ssh", "-p", str(self.port), "-i", str(key),
                "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
                "-o", f"UserKnownHostsFile={os.devnull}", "-o", "LogLevel=ERROR",
                "-o", "ConnectTimeout=10",
            )
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


def make_keys(directory: Path) -> None:
    """Throwaway host and user keys, the user's key the one authorised."""
    for name in ("host_key", "user_key"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "iotui-test", "-f", str(directory / name)],
            check=True, stdin=subprocess.DEVNULL,
        )
    shutil.copy(directory / "user_key.pub", directory / "authorized_keys")


def spawn_sshd(directory: Path, port: int, hosts: tuple[str, ...] | list[str], name: str = "sshd") -> subprocess.Popen:
    """One sshd on ``hosts`` (sshd listens on at most 16 addresses) with the keys of ``directory``."""
    config = directory / f"{name}_config"
    config.write_text(
        "\n".join(
            [f"Port {port}"]
            + [f"ListenAddress {host}" for host in hosts]
            + [
                f"HostKey {directory / 'host_key'}",
                f"AuthorizedKeysFile {directory / 'authorized_keys'}",
                f"PidFile {directory / (name + '.pid')}",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                "StrictModes no",
                "UsePAM no",
                "AllowTcpForwarding no",
                "X11Forwarding no",
                "PermitTunnel no",
                "Subsystem sftp internal-sftp",
                # bash run by sshd reads the user's ~/.bashrc (Debian's SSH_SOURCE_BASHRC) unless it
                # is a nested shell: the loopback hosts log in as the developer, whose rc file is not
                # the suite's (one that runs pyenv took 0.14 s of CPU a session; one that prints
                # would change what every host answers). Login shells' own start-up is tested with
                # users made for it (login_shells.py), whose homes are empty.
                "SetEnv SHLVL=1",
            ]
        )
        + "\n"
    )
    if os.geteuid() == 0:
        # sshd's privilege-separation directory (the package makes it at boot).
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    return subprocess.Popen(
        [SSHD, "-f", str(config), "-D", "-e"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=open(directory / f"{name}.log", "wb"),
    )


def wait_listening(process: subprocess.Popen, host: str, port: int, log: Path, timeout_s: float = 15) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the private sshd did not start: {log.read_text(errors='replace')}")
        try:
            with socket.create_connection((host, port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"the private sshd did not listen on {host} within {timeout_s:.0f} s")


def start_private_sshd() -> PrivateSshd:
    directory = Path(tempfile.mkdtemp(prefix="iotui-sshd-"))
    try:
        make_keys(directory)
        port = _free_port()
        process = spawn_sshd(directory, port, HOSTS)
    except BaseException:
        shutil.rmtree(directory, ignore_errors=True)
        raise
    sshd = PrivateSshd(directory, port, process)
    try:
        wait_listening(process, HOSTS[-1], port, directory / "sshd.log")
    except RuntimeError:
        sshd.stop()
        raise
    return sshd
