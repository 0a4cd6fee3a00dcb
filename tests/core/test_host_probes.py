"""A host's probes through the remote launcher, with a local shell standing in for ssh.

The e2e tests run them over a real sshd (tests/e2e/test_multihost_probes.py); here the same
remote command runs under `sh`, so the argument positions, the private directory and its
removal are checked in a couple of seconds.
"""

from __future__ import annotations

import time

import pytest

from iotui.core.host.io_probe import PROBE_DIR_PREFIX, START_FILE_NAMES
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
        assert sorted(p.name for p in (tmp_path / made[0]).iterdir()) == sorted(
            ["read.probe", "write.probe", *START_FILE_NAMES])
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


# An "ssh" whose remote command never runs: the session is up (it reads its stdin to the end) but no
# probe child ever reports, as on a host too loaded to start one before the release.
MUTE_SSH = ["sh", "-c", "exec cat >/dev/null", "mute-ssh"]


@pytest.mark.slow  # the wait for the reports at rest: about 3 s
async def test_the_release_waits_for_each_hosts_figures_at_rest_and_names_a_host_without_them(tmp_path):
    (tmp_path / "h1").mkdir()
    (tmp_path / "h2").mkdir()
    probes = HostProbeSet({"h1": HostProbes(LOCAL_SSH, "h1", str(tmp_path / "h1")),
                           "h2": HostProbes(MUTE_SSH, "h2", str(tmp_path / "h2"))}, [])
    said: list[str] = []
    events: list[object] = []
    probes.start(said.append, events.append)
    try:
        assert probes.pending() == ["h1", "h2"]  # nothing at rest yet on either
        started = time.monotonic()
        assert await probes.wait_at_rest(lambda: False, wait_s=3.0)
        waited_s = time.monotonic() - started
        h1, h2 = probes.probes["h1"], probes.probes["h2"]
        # h1's three figures at rest came before the release: each judged against its own.
        assert h1.not_measured is None and h1.monitor is not None
        assert h1.monitor.baseline is not None and h1.monitor.baseline.p99_ms > 0
        assert h1.monitor.io_baseline is not None
        assert h1.monitor.io_baseline.read_p99_ms is not None and h1.monitor.io_baseline.write_p99_ms > 0
        # h2 never reported: the wait ended at its bound, and h2 is said to be not measured.
        assert 3.0 <= waited_s < 4.5
        assert h2.not_measured == ("the wake-up probe, the I/O probe's reads and the I/O probe's writes: "
                                   "nothing at rest came within 3 s of the hosts being ready")
        assert said == [f"h2: {h2.not_measured}, so its responsiveness is not measured."]
        assert [(e.host, e.assessment, e.not_measured) for e in events] == [("h2", None, h2.not_measured)]
        probes.tick(events.append, released=True, now_s=time.monotonic())
        assert [e.host for e in events[1:]] == ["h1"]  # only h1 is judged
    finally:
        probes.stop()
    entries: list[dict[str, object]] = [{"name": "h1"}, {"name": "h2"}]
    probes.add_to(entries)
    h1_pressure = entries[0]["pressure"]
    assert isinstance(h1_pressure, dict) and h1_pressure["responsiveness"] in ("ok", "sluggish", "unresponsive")
    for key in ("probe_baseline_p99_ms", "io_probe_baseline_p99_ms", "io_probe_write_baseline_p99_ms"):
        assert key in h1_pressure
    assert "not_measured" not in h1_pressure
    # Never judged against zero: no level at all, the reason instead.
    assert entries[1]["pressure"] == {"not_measured": h2.not_measured}


def test_a_figure_without_one_at_rest_is_left_out_of_the_judging(monkeypatch):
    from iotui.core.host.io_probe import IoProbeStats
    from iotui.core.host.wakeup_probe import ProbeStats

    probes = HostProbes(LOCAL_SSH, "h1", "/nonexistent")
    calm = ProbeStats(1.0, 2.0, 3.0, 100)
    # At rest: the wake-up probe and the reads reported, the first write was still in flight.
    monkeypatch.setattr(probes.wakeup, "baseline", lambda last_reports=3: calm)
    monkeypatch.setattr(probes.io, "baseline", lambda last_reports=3: IoProbeStats(0.5, None, 4.0, 0.0))
    probes.take_baseline(3.0)
    assert probes.measured
    assert probes.not_measured is not None and probes.not_measured.startswith("the I/O probe's writes: ")
    # Writes of 400 ms, four seconds running: judged against zero they would raise the level.
    monkeypatch.setattr(probes.wakeup, "read_latest", lambda now_s=None: calm)
    monkeypatch.setattr(probes.io, "read_latest", lambda now_s=None: IoProbeStats(0.5, 400.0, 4.0, 4.0))
    for _ in range(4):
        assessment = probes.update()
    assert assessment is not None and assessment.level.value == "ok"
    summary = probes.summary()
    assert summary is not None and summary["responsiveness"] == "ok"
    assert "io_probe_write_baseline_p99_ms" not in summary and summary["not_measured"] == probes.not_measured


def test_the_summary_names_each_hosts_level_and_a_host_not_measured():
    import io

    from iotui.commands.remote_summary import print_remote_summary
    from iotui.core.records.record import RunRecord

    record = RunRecord(run={"status": "completed", "preset": "quick", "duration_s": 3.0}, host={}, target={"path": "/srv"})
    record.hosts = [
        {"name": "h1", "sections": [], "pressure": {"responsiveness": "sluggish", "cause": "wakeup",
                                                    "cause_value": 35.0, "cause_unit": "ms"}},
        {"name": "h2", "sections": [], "pressure": {"not_measured": "the wake-up probe: it ended before reporting"}},
        {"name": "h3", "sections": []},
    ]
    out = io.StringIO()
    print_remote_summary(record, None, out)
    line = next(text for text in out.getvalue().splitlines() if "responsiveness:" in text)
    assert line.strip() == ("responsiveness: h1 sluggish (wakeup 35.0 ms), "
                            "h2 not measured (the wake-up probe: it ended before reporting)")
