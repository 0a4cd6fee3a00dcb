"""A host's probes through the remote launcher, with a local shell standing in for ssh.

The e2e tests run them over a real sshd (tests/e2e/test_multihost_probes.py); here the same
remote command runs under `sh`, so the argument positions, the private directory and its
removal are checked in a couple of seconds.
"""

from __future__ import annotations

import time

import pytest

from iotui.core.host.io_probe import PROBE_DIR_PREFIX
from iotui.core.remote.host_probes import HostProbes, HostProbeSet
from iotui.core.remote.transport import HostFacts

# ssh's words, then "--", the host and the remote command: this "ssh" runs the command here.
LOCAL_SSH = ["sh", "-c", 'eval "$3"', "local-ssh"]


def _facts(name: str, path: str, python3: bool) -> HostFacts:
    return HostFacts(name, "fio-3.33", "6.1", path, "ext4", "/dev/x", "/", 1 << 30, True, python3=python3)


def _wait(condition, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.05)
    return condition()


@pytest.mark.slow  # two reports of each probe: about 3 s
def test_both_probes_report_from_the_host_and_leave_nothing_behind(tmp_path):
    probes = HostProbes(LOCAL_SSH, "h1", str(tmp_path))
    probes.start()
    try:
        assert _wait(lambda: probes.wakeup.reports_received >= 2 and probes.io.reports_received >= 2)
        made = [path.name for path in tmp_path.iterdir()]
        assert len(made) == 1 and made[0].startswith(PROBE_DIR_PREFIX)
        assert sorted(p.name for p in (tmp_path / made[0]).iterdir()) == ["read.probe", "write.probe"]
        probes.take_baseline()
        assessment = probes.update()
        assert assessment is not None and assessment.level.value in ("ok", "sluggish", "unresponsive")
        assert probes.io.read_latest() is not None and probes.io.read_latest().write_p99_ms is not None
    finally:
        probes.stop()
    assert list(tmp_path.iterdir()) == []
    summary = probes.summary()
    assert summary is not None and "probe_p99_ms_max" in summary


def test_a_host_without_python3_is_named_and_none_with_the_probes_off(tmp_path):
    facts = {"h1": _facts("h1", str(tmp_path), True), "h2": _facts("h2", str(tmp_path), False)}
    probes = HostProbeSet.for_plan(["h1", "h2", "h3"], lambda host: LOCAL_SSH, facts, None)
    assert list(probes.probes) == ["h1"]
    assert probes.messages() == ["h2: no python3 there, so its responsiveness is not measured."]
    off = HostProbeSet.for_plan(["h1", "h2"], lambda host: LOCAL_SSH, facts, None, on=False)
    assert off.probes == {} and off.messages() == []
    entries = [{"name": "h1"}, {"name": "h2"}]
    probes.add_to(entries)  # h1 never started: no figures, so no level made up
    assert entries == [{"name": "h1"}, {"name": "h2"}]
