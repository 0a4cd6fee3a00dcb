"""The sentence that names the host signals a machine does not give, from the real sampler."""

from __future__ import annotations

import shutil
from pathlib import Path

from iotui.core.host.counters import HostSample, HostSampler
from iotui.core.host.signals import missing_signals, missing_signals_sentence
from iotui.core.runs.events import LogLine
from iotui.core.runs.plan import RunPlan
from iotui.core.runs.recorder import RunRecorder

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "proc"


def _proc_with_only_stat(root: Path, snapshot: str) -> None:
    """A /proc as on a machine without PSI and block devices: only the CPU counters."""
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    shutil.copy(FIXTURES / snapshot / "stat", root / "stat")


def test_a_machine_without_psi_or_device_counters_is_told_once(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    events: list[object] = []
    sampler = HostSampler(["nvme0n1"], proc_root=proc, sys_root=tmp_path / "no-sys")
    plan = RunPlan(preset_name="quick", argv=["fio"], options={}, target_path=tmp_path, test_file=None, target={})
    recorder = RunRecorder(
        plan, runs_dir=None, on_event=events.append, sampler=sampler, probe=None, monitor=None, host_interval_s=1.0
    )
    _proc_with_only_stat(proc, "t0")
    recorder._start_watch()  # primes the counters
    _proc_with_only_stat(proc, "t1")
    recorder._sample_host()
    recorder._sample_host()
    lines = [event.text for event in events if isinstance(event, LogLine)]
    assert len(lines) == 1, lines  # said once, not every second
    assert "PSI (pressure stall information)" in lines[0] and "device counters" in lines[0]
    assert "CPU counters" not in lines[0]  # /proc/stat was there: the CPU figures exist


def test_every_group_missing_and_none_missing() -> None:
    assert missing_signals(HostSample()) == [
        "CPU counters", "PSI (pressure stall information)", "device counters for the target",
    ]
    assert missing_signals(HostSample(cpu_user_pct=1.0, psi_io_some_pct=0.0, device_read_iops=0.0)) == []
    assert missing_signals_sentence([]) is None


def test_the_sentence_names_linux_where_the_figures_are_elsewhere() -> None:
    sentence = missing_signals_sentence(["PSI (pressure stall information)", "device counters for the target"], "Darwin")
    assert sentence == (
        "This machine (Darwin) gives no PSI (pressure stall information) and no device counters for the target: "
        "those figures are left out of the live view and the record. Linux gives every figure."
    )
