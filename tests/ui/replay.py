"""Replaying recorded fio documents through the app, with fixed targets, presets and host figures.

`ReplayServices` is what the Pilot tests, the snapshot tests, the screenshots'
dry runs and the UI benchmark hand to `IotuiApp` instead of the real services:
the same screens and the same `RunSession`, but fio is a `ReplayRunner` that
yields recorded (or synthesised) status documents, and the host sampler returns
fixed figures, so nothing depends on this machine.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from iotui.core.fio.runner import FioExited, StderrLine
from iotui.core.fio.status import FioDocument
from iotui.core.host.counters import HostSample
from iotui.core.host.responsiveness import ResponsivenessMonitor
from iotui.core.runs.plan import RunPlan
from iotui.core.runs.session import RunSession
from iotui.core.start import StartError, StartRequest
from iotui.ui.service_types import Overrides, PlanPreview
from iotui.ui.services import ServiceError, Services
from tests.conftest import fio_documents
from tests.fakes.io_probe import FixedIoProbe

RANDRW = "randrw-rate200-json+.txt"
RANDREAD = "randread-3jobs-json+.txt"


# -- fio -------------------------------------------------------------------------------


class ReplayRunner:
    """Stands in for FioRunner: yields documents, honours pause, resume and stop.

    ``hold_after`` documents, it waits (as a long fio run would) until stopped.
    On stop it yields the last document, like fio's final report after SIGINT.
    """

    def __init__(
        self,
        documents: list[dict],
        *,
        delay_s: float = 0.0,
        stderr: Iterable[str] = (),
        returncode: int = 0,
        hold_after: int | None = None,
        first_delay_s: float = 0.0,
    ) -> None:
        self.documents = documents
        self.first_delay_s = first_delay_s
        self.delay_s = delay_s
        self.stderr = list(stderr)
        self.returncode = returncode
        self.hold_after = hold_after
        self.pid: int | None = None
        self.stderr_lines: list[str] = []
        self.paused = False
        self.stopped = False
        self.pause_calls = 0
        self._running = asyncio.Event()
        self._stop = asyncio.Event()

    async def start(self) -> None:
        self.pid = 0
        self._running.set()

    async def events(self):
        for line in self.stderr:
            self.stderr_lines.append(line)
            yield StderrLine(line)
        if self.first_delay_s:
            await asyncio.sleep(self.first_delay_s)  # like fio's first second before its first report
        for index, doc in enumerate(self.documents):
            if self._stop.is_set():
                break
            await self._running.wait()
            yield FioDocument(doc, 0)
            if self.hold_after is not None and index + 1 >= self.hold_after:
                await self._stop.wait()
                break
            if self.delay_s:
                try:
                    await asyncio.wait_for(self._stop.wait(), self.delay_s)
                except asyncio.TimeoutError:
                    pass
        if self._stop.is_set() and self.documents:
            yield FioDocument(self.documents[-1], 0)
        yield FioExited(returncode=self.returncode, stopped_by_user=self.stopped)

    def pause(self) -> bool:
        self.pause_calls += 1
        self.paused = True
        self._running.clear()
        return True

    def resume(self) -> bool:
        self.paused = False
        self._running.set()
        return True

    async def stop(self) -> int | None:
        self.stopped = True
        self._running.set()
        self._stop.set()
        return self.returncode


def synthetic_documents(count: int, source: str = RANDRW, multipliers: list[int] | None = None) -> list[dict]:
    """``count`` cumulative documents, one per second, each interval a multiple of the source's first.

    Interval k carries the source's first document's counters times ``multipliers[k]``
    (default 1: every interval has the same IOPS, bandwidth and latency bins), so
    document k holds the running sum of those multiples.
    """
    base = fio_documents(source)[0]
    # Each document starts as a fresh copy of the base: parsing its JSON again is several
    # times cheaper than copy.deepcopy for a document of plain dicts (an hour is 3,600 of them).
    base_json = json.dumps(base)
    documents = []
    scale = 0
    for index in range(count):
        scale += multipliers[index % len(multipliers)] if multipliers else 1
        doc = json.loads(base_json)
        doc["timestamp_ms"] = base["timestamp_ms"] + 1000 * index
        for job in doc["jobs"]:
            for direction in ("read", "write", "trim"):
                stats = job.get(direction)
                if not isinstance(stats, dict):
                    continue
                for key in ("io_bytes", "io_kbytes", "total_ios", "runtime"):
                    if key in stats:
                        stats[key] = stats[key] * scale
                clat = stats.get("clat_ns") or {}
                if "N" in clat:
                    clat["N"] = clat["N"] * scale
                if "bins" in clat:
                    clat["bins"] = {value: n * scale for value, n in clat["bins"].items()}
        documents.append(doc)
    return documents


# -- host ---------------------------------------------------------------------------------

CALM_HOST = HostSample(
    cpu_user_pct=12.5, cpu_system_pct=20.0, cpu_iowait_pct=3.0,
    ctx_switches_per_s=41000.0, interrupts_per_s=23000.0,
    device_read_iops=199.0, device_write_iops=86.0,
    psi_cpu_some_pct=1.0, psi_io_some_pct=4.0, psi_io_full_pct=2.0, psi_memory_some_pct=0.0,
    fio_cpu_cores=0.4, busy_cores=1.2,
)
# fio's own threads stalled on its own I/O: context only, never a trigger by itself.
STALLED_HOST = HostSample(
    cpu_user_pct=5.0, cpu_system_pct=60.0, cpu_iowait_pct=30.0,
    ctx_switches_per_s=90000.0, interrupts_per_s=50000.0,
    device_read_iops=900.0, device_write_iops=400.0,
    psi_cpu_some_pct=20.0, psi_io_some_pct=80.0, psi_io_full_pct=45.0, psi_memory_some_pct=0.0,
    fio_cpu_cores=3.0, busy_cores=6.0,
)


class FixedSampler:
    """Returns the same host figures every second (or a sequence, then its last)."""

    def __init__(self, samples: list[HostSample] | None = None) -> None:
        self.samples = list(samples or [CALM_HOST])
        self.calls = 0

    def sample(self) -> HostSample:
        sample = self.samples[min(self.calls, len(self.samples) - 1)]
        self.calls += 1
        return sample


# -- presets and targets -----------------------------------------------------------------


@dataclass
class FakeJob:
    name: str
    options: dict[str, str]


@dataclass
class FakePreset:
    """Shaped like iotui.core.presets.model.Preset, so the screens cannot tell."""

    name: str
    title: str
    description: str
    tells: str = ""
    options: dict[str, str] = field(default_factory=dict)
    jobs: list[FakeJob] = field(default_factory=list)
    source: str = ""
    sweep: Any = None


@dataclass
class FakeTarget:
    """Shaped like iotui.core.fio.policy.TargetInfo."""

    path: str
    filesystem: str
    device: str
    mount_point: str
    mount_options: str = "rw,relatime"
    is_block_device: bool = False
    rotational: bool | None = False
    model: str | None = None
    free_bytes: int | None = None
    warnings: list[tuple[str, str]] = field(default_factory=list)


PRESETS = [
    FakePreset(
        "quick", "Quick check", "20 s of mixed 4k random I/O: a first look",
        tells="Whether the disk is roughly as fast as it should be.",
        options={"rw": "randrw", "bs": "4k", "iodepth": "8", "numjobs": "1", "size": "256M",
                 "runtime": "20", "direct": "1", "time_based": "1"},
    ),
    FakePreset(
        "rnd4k-q1t1", "Random 4K, QD1, 1 thread", "Small random reads one at a time: latency",
        options={"rw": "randread", "bs": "4k", "iodepth": "1", "numjobs": "1", "size": "1G",
                 "runtime": "30", "direct": "1"},
    ),
]

TARGETS = [
    FakeTarget("/home/ada/bench", "ext4", "nvme0n1p2", "/home", model="Samsung SSD 980 1TB",
               free_bytes=412 * 2**30),
    FakeTarget("/mnt/backup", "xfs", "sda1", "/mnt/backup", rotational=True, model="WDC WD40EFRX",
               free_bytes=2800 * 2**30),
    FakeTarget("/srv/share", "nfs4", "nas:/export", "/srv/share", rotational=None, free_bytes=9 * 2**40,
               warnings=[("network-fs", "NFS measures a stack (network, server, its disks), not a device.")]),
]


def _option(preset: FakePreset, key: str) -> str | None:
    return preset.options.get(key)


class ReplayServices(Services):
    """Fixed targets and presets; sessions replay documents instead of running fio."""

    def __init__(
        self,
        runs_dir: Path,
        *,
        documents: list[dict] | None = None,
        runner_factory: Callable[[], ReplayRunner] | None = None,
        sampler_samples: list[HostSample] | None = None,
        io_probe_samples: list[Any] | None = None,
        host_interval_s: float = 0.25,
        plan_numjobs: int | None = None,
        make_session_error: str | None = None,
    ) -> None:
        super().__init__(runs_dir=runs_dir, fio="fio", baseline_s=0.0, cwd=TARGETS[0].path)
        self.cpu_count = 8
        self.documents = documents if documents is not None else fio_documents(RANDRW)
        self.runner_factory = runner_factory or (lambda: ReplayRunner(self.documents, delay_s=0.02))
        self.sampler_samples = sampler_samples
        self.io_probe_samples = io_probe_samples
        self.host_interval_s = host_interval_s
        self.plan_numjobs = plan_numjobs
        self.make_session_error = make_session_error
        self.runners: list[ReplayRunner] = []
        self.sessions: list[RunSession] = []
        # No ssh config of the machine running the tests leaks into the screens.
        self.ssh_hosts = lambda: []
        self.requests: list[StartRequest] = []

    def list_targets(self) -> list[Any]:
        return list(TARGETS)

    def inspect_target(self, path: str) -> Any:
        if not path.startswith("/"):
            raise ServiceError(f"{path} does not exist; type an absolute path to a directory.")
        return FakeTarget(path, "ext4", "nvme0n1p2", "/", free_bytes=100 * 2**30)

    def list_presets(self) -> tuple[list[Any], list[str]]:
        return list(PRESETS), []

    def list_preset_titles(self) -> list[Any]:
        return list(PRESETS)

    def apply_overrides(self, preset: Any, overrides: Overrides) -> Any:
        options = dict(preset.options)
        if overrides.runtime_s is not None:
            options["runtime"] = f"{overrides.runtime_s:g}"
        for key in ("size", "bs", "iodepth", "numjobs"):
            value = getattr(overrides, key)
            if value is not None:
                options[key] = str(value)
        if overrides.direct is not None:
            options["direct"] = "1" if overrides.direct else "0"
        return FakePreset(preset.name, preset.title, preset.description, preset.tells, options)

    def preview(self, preset: Any, target: Any) -> PlanPreview:
        target_path = str(target.path)
        argv = ["fio", f"--name={preset.name}", f"--filename={target_path}/.iotui-XXXXXXXXXXXX.fio-test"]
        argv += [f"--{key}={value}" for key, value in preset.options.items()]
        argv += ["--output-format=json+", "--status-interval=1", "--eta=never"]
        warnings = next((t.warnings for t in TARGETS if t.path == target_path), [])
        runtime = float(preset.options.get("runtime", "0"))
        return PlanPreview(" ".join(argv), list(warnings), None, runtime, 256 * 2**20)

    async def start(self, request: StartRequest, on_event: Callable[[object], None]) -> RunSession:
        """The replay's session in place of the core's one entry (the app's runs and sweep points alike)."""
        self.requests.append(request)
        if self.make_session_error:
            raise StartError(self.make_session_error, code="refused")
        # The target as chosen on Home (its one form), or a sweep point's own text.
        target_path = request.target if isinstance(request.target, str) else str(getattr(request.target, "path", ""))
        numjobs = self.plan_numjobs or int(request.preset.options.get("numjobs", "1"))
        plan = RunPlan(
            preset_name=request.preset.name,
            title=request.preset.title,
            argv=["fio", f"--name={request.preset.name}"],
            options=dict(request.preset.options),
            target_path=Path(target_path),
            test_file=None,
            target={"path": target_path, "filesystem": "ext4", "device": "nvme0n1p2", "mount_options": "rw"},
            warnings=[],
            numjobs=numjobs,
            estimated_duration_s=float(request.preset.options.get("runtime", "3")),
        )

        def make_runner(argv: list[str]) -> ReplayRunner:
            runner = self.runner_factory()
            self.runners.append(runner)
            return runner

        session = RunSession(
            plan,
            fio_version="fio-3.33",
            runs_dir=self.runs_dir,
            on_event=on_event,
            runner_factory=make_runner,
            sampler=FixedSampler(self.sampler_samples),
            probe=None,
            io_probe=FixedIoProbe(self.io_probe_samples) if self.io_probe_samples else None,
            monitor=ResponsivenessMonitor(),
            host_interval_s=self.host_interval_s,
        )
        self.sessions.append(session)
        return session
