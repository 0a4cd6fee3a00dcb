"""The pre-flight check of a host, run by a local shell in place of ssh (no sshd needed)."""

from __future__ import annotations

import os
import shutil

import pytest

from iotui.core.remote.plan import check_host_target
from iotui.core.remote.connections import preflight
from iotui.core.remote.transport import RemoteError

LOCAL_SHELL = ["sh", "-c", 'exec sh -c "$3"', "local"]


def _shell_without_fio(tmp_path) -> list[str]:
    """A 'host' whose PATH has the usual tools but no fio."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("sh", "uname", "df", "awk", "tr", "od"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    return ["env", f"PATH={bin_dir}", *LOCAL_SHELL]


async def test_a_host_with_fio_and_a_target_reports_its_facts(tmp_path):
    facts = await preflight(LOCAL_SHELL, "local", str(tmp_path))
    assert facts.tool_version.startswith("fio-")
    assert facts.kernel == os.uname().release
    assert facts.path == str(tmp_path.resolve()) and facts.writable
    assert facts.filesystem and facts.free_bytes and facts.free_bytes > 0
    # The host's MemAvailable, as /proc/meminfo says it here (the memory check of a run's buffers).
    meminfo = dict(line.split(":", 1) for line in open("/proc/meminfo").read().splitlines())
    assert facts.mem_available_bytes is not None
    assert abs(facts.mem_available_bytes - int(meminfo["MemAvailable"].split()[0]) * 1024) < 1 << 30


@pytest.mark.fio
async def test_a_host_without_fio_is_refused_naming_it(tmp_path):
    with pytest.raises(RemoteError) as refused:
        await preflight(_shell_without_fio(tmp_path), "nfs-client-2", str(tmp_path))
    assert refused.value.code == "fio-missing" and refused.value.host == "nfs-client-2"
    assert str(refused.value).startswith("nfs-client-2: fio is not there") and "not found" in str(refused.value)


async def test_a_missing_target_is_refused_naming_the_host(tmp_path):
    with pytest.raises(RemoteError, match=r"^h9: the target .*/nowhere does not exist"):
        await preflight(LOCAL_SHELL, "h9", str(tmp_path / "nowhere"))


async def test_a_full_target_is_refused_before_anything_starts(tmp_path):
    facts = await preflight(LOCAL_SHELL, "h1", str(tmp_path))
    with pytest.raises(RemoteError, match=r"^h1: not enough free space"):
        check_host_target(facts, needs_bytes=facts.free_bytes, allow_cache=False)
    facts.filesystem = "tmpfs"
    with pytest.raises(RemoteError, match=r"^h1: .* tmpfs, which is memory"):
        check_host_target(facts, needs_bytes=1 << 20, allow_cache=False)
    assert check_host_target(facts, needs_bytes=1 << 20, allow_cache=True) == []


async def test_an_unreachable_host_is_refused_with_ssh_s_message(tmp_path):
    failing_ssh = ["sh", "-c", 'echo "ssh: connect to host $2 port 22: Connection refused" >&2; exit 255', "ssh"]
    with pytest.raises(RemoteError, match=r"^gone: ssh cannot reach it: ssh: connect to host gone port 22: Connection refused"):
        await preflight(failing_ssh, "gone", None)


async def test_the_pre_flight_reports_free_inodes_and_a_run_with_more_files_is_refused(tmp_path):
    facts = await preflight(LOCAL_SHELL, "h1", str(tmp_path))
    status = os.statvfs(tmp_path)
    if not status.f_files:
        assert facts.free_inodes is None  # a filesystem that counts no inodes: no check
        return
    # df -Pi reports f_ffree; a few files may come and go between the two readings.
    assert facts.free_inodes is not None and abs(facts.free_inodes - status.f_ffree) < 1000
    facts.free_inodes = 500  # a small-inode filesystem, as a host would report it
    with pytest.raises(RemoteError, match=r"^h1: Not enough free inodes .*creates 500 files \(nrfiles .* 500 inodes"):
        check_host_target(facts, needs_bytes=1 << 20, allow_cache=False,
                          needs_files=500, files_how="nrfiles 500 x numjobs 1")
    assert check_host_target(facts, needs_bytes=1 << 20, allow_cache=False, needs_files=10, files_how="x") == []
