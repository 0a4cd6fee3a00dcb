"""The cost of watching: `iotui run` against bare fio running iotui's exact argv.

Two jobs:

* ``cpu``: the null engine (no storage at all), 4 KiB random reads, so fio is
  CPU-bound and any CPU iotui takes shows in fio's IOPS;
* ``disk``: 4 KiB random reads, direct I/O, libaio, QD16, 256 MiB file.

fio's job runs on core 0 (``cpus_allowed=0`` in its own argv) and everything
else on core 1 (``taskset -c 1``): iotui, its sampler and probe, and fio's own
main thread. Bare fio runs the argv iotui ran (read from the record), with a
fresh test file.

Two designs (``--design``):

* ``together`` (the default): each pair runs bare fio and ``iotui run`` at the same
  time, both jobs on core 0 (the disk job: on the same disk), the one that starts
  first alternating from pair to pair (an even ``--pairs`` balances them). Each
  side's rate is taken over the same seconds, those both ran (fio's status documents
  for bare fio, the record's intervals for iotui's; an interval that crosses an end of
  that stretch counts for its part inside), so a swing in the machine's speed, which on a virtual machine reaches tens of
  percent within a run, hits both halves of the pair alike and cancels in the ratio;
* ``alternate``: bare fio, then ``iotui run``, one after the other; each half has
  core 0 to itself, and the machine's swings between the two runs stay in the ratio.

The figure is the median of the per-pair ratios iotui / bare with a 95% bootstrap
interval of that median; iotui's own CPU (main process, steady state from 2 s in)
and its other children's (the probes) are reported beside it.

``--live`` runs ``iotui run`` with ``--json-stream`` (its lines read by this script) and
``--metrics`` on a loopback port (scraped by this script once a second, as Prometheus would):
the cost of the live outputs, against a run of the same script without ``--live``.

``--without probe,host`` runs iotui with those parts switched off (the wake-up
probes; the host sampler), so the cost of each part can be read one at a time;
``--app`` watches through the app itself on an 80x24 pseudo-terminal (Home, r, the
run screen, the results) instead of ``iotui run``, so the UI's part is measured too.

    python bench/bench_overhead.py [--jobs cpu,disk] [--pairs 10] [--runtime 8] [--design together|alternate]
                                   [--without probe,host] [--app] [--live] [--target DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_live import preview_painted  # noqa: E402
from iotui.core.fio.status import FioDocument, StatusSplitter  # noqa: E402
from iotui.core.records.files import load_record  # noqa: E402
from iotui.core.toml_reader import tomllib  # noqa: E402
from tests.pty_terminal import Terminal, screen_text, terminal_env  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
APP_PRESET = "bench-overhead"

JOBS = {
    "cpu": ["ioengine=null", "rw=randread", "rwmixread=100", "bs=4k", "size=1G", "direct=0", "iodepth=1"],
    "disk": ["ioengine=libaio", "rw=randread", "rwmixread=100", "bs=4k", "size=256M", "direct=1", "iodepth=16"],
}
FIO_CORE, OTHER_CORE = "0", "1"
# Seconds cut from each end of the stretch both halves ran steadily: a margin for the
# moments the other side starts or ends.
EDGE_S = 0.25

# Runs `iotui run` with parts switched off, inside its own process (--without).
LAUNCHER = r'''
import os, sys
without = set(filter(None, os.environ.get("IOTUI_BENCH_WITHOUT", "").split(",")))
if "probe" in without:  # the wake-up probe child and the I/O probe never start
    from iotui.core.host import watch

    _init = watch.HostWatch.__init__

    def _without_probes(self, sampler, probe, monitor, io_probe=None):
        _init(self, sampler, None, monitor, None)

    watch.HostWatch.__init__ = _without_probes
if "host" in without:  # no host sample each second (nor the judgement made from it)
    from iotui.core.runs import recorder

    async def _no_host_loop(self):
        return None

    recorder.RunRecorder._host_loop = _no_host_loop
sys.argv = ["iotui", *sys.argv[1:]]
from iotui.cli import main

raise SystemExit(main())
'''


def preset_toml(job: str, runtime_s: int) -> str:
    """The job as a preset (``iotui run`` takes its path, the app its name), fio's job on core 0."""
    lines = [f'name = "{APP_PRESET}"', 'title = "Cost of watching"', f'description = "bench_overhead.py: the {job} job"',
             "", "[options]"]
    for option in JOBS[job] + [f"cpus_allowed={FIO_CORE}", f"runtime={runtime_s}"]:
        key, value = option.split("=", 1)
        lines.append(f"{key} = {value}" if value.isdigit() else f'{key} = "{value}"')
    lines.append('time_based = ""')
    return "\n".join(lines) + "\n"


@dataclass
class Watched:
    """One ``iotui run`` under way: its process and what is read of it while it runs."""

    process: psutil.Process
    started_monotonic: float
    steady_from_s: float = 2.0
    steady_cpu_s: float | None = None
    own_cpu_s: float = 0.0
    last_poll_s: float = 0.0
    fio_seen: bool = False
    fio_running: bool = False
    metrics_url: str | None = None
    last_scrape_s: float = 0.0

    def scrape(self) -> None:
        """Read the metrics as Prometheus would, once a second (``--live``)."""
        if self.metrics_url is None or time.monotonic() - self.last_scrape_s < 1.0:
            return
        self.last_scrape_s = time.monotonic()
        try:
            with urllib.request.urlopen(self.metrics_url, timeout=0.5) as reply:
                reply.read()
        except OSError:
            pass  # not serving yet, or already ended

    def poll(self, probe_cpu: dict[int, float]) -> None:
        self.scrape()
        try:
            times = self.process.cpu_times()
            self.own_cpu_s = times.user + times.system
            self.last_poll_s = time.monotonic() - self.started_monotonic
            if self.steady_cpu_s is None and self.last_poll_s >= self.steady_from_s:
                self.steady_cpu_s, self.steady_from_s = self.own_cpu_s, self.last_poll_s
            self.fio_running = False
            for child in self.process.children():
                if child.name() == "fio":
                    self.fio_seen = self.fio_running = True
                else:
                    child_times = child.cpu_times()
                    probe_cpu[child.pid] = child_times.user + child_times.system
        except psutil.Error:
            pass

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)

    def ended(self) -> bool:
        return self.process.poll() is not None

    def record(self) -> dict:
        out, _ = self.process.communicate()
        if self.process.returncode != 0 or "{" not in out:
            raise SystemExit(f"bench_overhead: iotui run failed (exit {self.process.returncode}): {out[-500:]}")
        if self.metrics_url is None:
            return json.loads(out[out.index("{"):])
        # --json-stream: the last line ends the stream and names the saved record.
        end = json.loads(out.strip().splitlines()[-1])
        return load_record(Path(end["record"])).to_json_dict()

    def own_cores(self) -> float:
        return (self.own_cpu_s - (self.steady_cpu_s or 0.0)) / max(self.last_poll_s - self.steady_from_s, 1e-9)


@dataclass(kw_only=True)
class WatchedApp(Watched):
    """The app on an 80x24 pseudo-terminal, r pressed on Home with the job's preset."""

    terminal: Terminal
    runs_dir: Path
    records_before: int

    def wait(self, seconds: float) -> None:
        self.terminal.pump(seconds)  # read what it draws, or it blocks on a full terminal

    def ended(self) -> bool:
        # The run is over once its record is saved and fio is gone (the app stays on its
        # results), or when the app itself has gone.
        if self.terminal.process.poll() is not None:
            return True
        return self.fio_seen and not self.fio_running and len(list(self.runs_dir.glob("*.toml"))) > self.records_before

    def record(self) -> dict:
        if len(list(self.runs_dir.glob("*.toml"))) <= self.records_before:
            raise SystemExit(f"bench_overhead: the app ended (exit {self.terminal.process.poll()}) without saving a "
                             f"record; it showed: {screen_text(bytes(self.terminal.received[-2000:]))!r}")
        newest = max(self.runs_dir.glob("*.toml"), key=lambda path: path.stat().st_mtime)
        self.terminal.press(b"\x11")  # ctrl+q (finish_iotui closes the terminal)
        self.terminal.pump(1.0)
        return tomllib.loads(newest.read_text())


@dataclass(frozen=True)
class Setup:
    """How iotui watches: the job's preset, where it runs, which parts are off, app or ``iotui run``."""

    target: Path
    scratch: Path
    without: str
    app: bool
    runtime_s: int
    live: bool = False

    @property
    def deadline_s(self) -> float:
        """How long one run may take from its start, the app's included, before the script gives up."""
        return self.runtime_s + 90.0

    @property
    def runs_dir(self) -> Path:
        return self.scratch / "runs"

    @property
    def runtime_dir(self) -> Path:
        """The runs' own runtime directory (not beside the launcher: its iotui/ would shadow the package)."""
        return self.scratch / "runtime"

    @property
    def launcher(self) -> Path:
        return self.scratch / "launch_iotui.py"

    @property
    def config_home(self) -> Path:
        return self.scratch / "config"

    @property
    def preset_file(self) -> Path:
        """Where the app finds the job's preset by its name (``iotui run`` is given the path)."""
        return self.config_home / "iotui" / "presets" / f"{APP_PRESET}.toml"

    def prepare(self, job: str) -> None:
        self.runtime_dir.mkdir(mode=0o700, exist_ok=True)
        self.launcher.write_text(LAUNCHER)
        self.preset_file.parent.mkdir(parents=True, exist_ok=True)
        self.preset_file.write_text(preset_toml(job, self.runtime_s))

    def start(self) -> Watched:
        # Its own runtime directory: the run lock there is the script's alone (another run on the
        # machine neither refuses these runs nor waits on them).
        settings = {"IOTUI_BENCH_WITHOUT": self.without, "XDG_CONFIG_HOME": str(self.config_home),
                    "XDG_RUNTIME_DIR": str(self.runtime_dir)}
        if not self.app:
            port = free_port() if self.live else None
            outputs = ["--json-stream", "--metrics", f"127.0.0.1:{port}"] if port else ["--json"]
            process = psutil.Popen(
                ["taskset", "-c", OTHER_CORE, sys.executable, str(self.launcher), "run", str(self.preset_file),
                 "--target", str(self.target), "--runs-dir", str(self.runs_dir), "--baseline", "0", *outputs],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, **settings},
            )
            return Watched(process, time.monotonic(), metrics_url=f"http://127.0.0.1:{port}/metrics" if port else None)
        records_before = len(list(self.runs_dir.glob("*.toml")))
        terminal = Terminal(["taskset", "-c", OTHER_CORE, sys.executable, str(self.launcher), "--runs-dir",
                             str(self.runs_dir), "--target", str(self.target), "--preset", APP_PRESET],
                            terminal_env(**settings), ROOT)
        terminal.wait_for(preview_painted, 60, "the preview on Home")
        terminal.press(b"r")
        return WatchedApp(psutil.Process(terminal.process.pid), time.monotonic(),
                          terminal=terminal, runs_dir=self.runs_dir, records_before=records_before)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def finish_iotui(watched: Watched, probe_cpu: dict[int, float], deadline_s: float) -> dict:
    try:
        while not watched.ended():
            if time.monotonic() - watched.started_monotonic > deadline_s:
                raise SystemExit(f"bench_overhead: iotui's run did not end within {deadline_s:.0f} s")
            watched.poll(probe_cpu)
            watched.wait(0.2)
        return watched.record()
    finally:
        if isinstance(watched, WatchedApp):
            watched.terminal.close()


def through_iotui(setup: Setup) -> tuple[float, list[str], float, float]:
    """IOPS, fio's argv, iotui's steady CPU (cores) and the probe child's (cores), iotui alone."""
    probe_cpu: dict[int, float] = {}
    watched = setup.start()
    record = finish_iotui(watched, probe_cpu, setup.deadline_s)
    wall_s = time.monotonic() - watched.started_monotonic
    return (float(record["summary"]["read"]["iops"]), list(record["run"]["argv"]), watched.own_cores(),
            sum(probe_cpu.values()) / wall_s)


@contextmanager
def bare_test_file(target: Path) -> Iterator[Path]:
    """A fresh test file for bare fio in a fresh directory of the target, as iotui makes one
    for its fio (a new directory may be placed elsewhere on the disk than the target's own
    files), removed with its directory afterwards."""
    directory = Path(tempfile.mkdtemp(prefix=".iotui-bench-", dir=target))
    try:
        yield directory / "testfile"
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def bare_argv(argv: list[str], test_file: Path) -> list[str]:
    return ["taskset", "-c", OTHER_CORE,
            *[f"--filename={test_file}" if word.startswith("--filename=") else word for word in argv]]


def documents_of(output: bytes) -> list[dict]:
    splitter = StatusSplitter()
    return [item.doc for item in splitter.feed(output) + splitter.close() if isinstance(item, FioDocument)]


def read_iops(document: dict) -> float:
    return sum(float(job.get("read", {}).get("iops", 0.0)) for job in document.get("jobs", []))


def bare_fio(argv: list[str], target: Path) -> float:
    with bare_test_file(target) as test_file:
        output = subprocess.run(bare_argv(argv, test_file), capture_output=True, check=True,
                                start_new_session=True).stdout
    return read_iops(documents_of(output)[-1])


# One stretch of a run on the wall clock: (start s, end s, I/Os in it).
Stretch = tuple[float, float, float]


def bare_stretches(documents: list[dict]) -> list[Stretch]:
    """Bare fio's seconds from its status documents (cumulative; ``timestamp_ms`` on the wall clock).

    fio prints status documents while it lays out its file, before the job runs (runtime 0):
    those are skipped, and the first stretch starts when the job did (the first document with
    a runtime, less that runtime).
    """
    stretches: list[Stretch] = []
    previous: tuple[float, int] | None = None
    for document in documents:
        ended_s = document["timestamp_ms"] / 1000.0
        ios = sum(int(job["read"]["total_ios"]) for job in document["jobs"])
        if previous is None:
            runtime_s = max(int(job["read"]["runtime"]) for job in document["jobs"]) / 1000.0
            if runtime_s <= 0:
                continue
            previous = (ended_s - runtime_s, 0)
        if ended_s > previous[0]:
            stretches.append((previous[0], ended_s, ios - previous[1]))
        previous = (ended_s, ios)
    return stretches


def iotui_stretches(record: dict, runs_dir: Path) -> list[Stretch]:
    """iotui's intervals on the wall clock.

    An interval's ``t_s`` counts from the document the intervals are measured from (the job's
    start, or a document fio printed before its job ran), so the clock is anchored on the last
    interval, which ends at the final report (saved beside the record) and its timestamp.
    """
    final = json.loads((runs_dir / record["run"]["report"]).read_text())
    anchor_s = final["timestamp_ms"] / 1000.0 - record["samples"][-1]["t_s"]
    samples = [sample for sample in record["samples"] if sample.get("read_iops") is not None]
    return [(anchor_s + sample["t_s"] - sample["dt_s"], anchor_s + sample["t_s"],
             sample["read_iops"] * sample["dt_s"]) for sample in samples]


def rate_within(stretches: list[Stretch], start_s: float, end_s: float) -> float | None:
    """I/Os per second over exactly [start_s, end_s]: a stretch that crosses an end counts for
    the part inside (its I/Os taken as even over it), so both halves of a pair cover the same
    seconds."""
    ios_inside = seconds = 0.0
    for begun, ended, ios in stretches:
        inside_s = min(ended, end_s) - max(begun, start_s)
        if inside_s > 0:
            ios_inside += ios * inside_s / (ended - begun)
            seconds += inside_s
    # The halves' stretches must cover the window (no gap where one side was not reporting).
    return ios_inside / seconds if seconds >= 0.99 * (end_s - start_s) and seconds >= 1.0 else None


def pair_together(setup: Setup, argv: list[str], iotui_first: bool) -> tuple[float, float, float, float, float]:
    """Bare fio and iotui at once: (bare rate, iotui rate, seconds both ran, iotui's cores, probe's cores)."""
    probe_cpu: dict[int, float] = {}
    with tempfile.TemporaryFile() as bare_out, bare_test_file(setup.target) as test_file:
        watched = None
        if iotui_first:
            watched = setup.start()
            while not watched.fio_seen and not watched.ended():
                if time.monotonic() - watched.started_monotonic > setup.deadline_s:
                    raise SystemExit("bench_overhead: iotui's fio never started")
                watched.poll(probe_cpu)
                watched.wait(0.05)
            watched.wait(0.3)
        # Bare fio writes to a file, never a pipe nobody reads while it runs, and starts its
        # own session as iotui starts fio: with the scheduler's autogroups each session is
        # one group, and fio in this script's session would share its group's weight with it.
        bare = subprocess.Popen(bare_argv(argv, test_file), stdout=bare_out, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        if watched is None:
            time.sleep(0.3)
            watched = setup.start()
        try:
            record = finish_iotui(watched, probe_cpu, setup.deadline_s)
            if bare.wait(timeout=setup.deadline_s) != 0:
                raise SystemExit(f"bench_overhead: bare fio failed (exit {bare.returncode})")
        finally:
            if bare.poll() is None:  # its own session: nothing else would end it
                bare.kill()
                bare.wait()
        bare_out.seek(0)
        bare_ran = bare_stretches(documents_of(bare_out.read()))
    wall_s = time.monotonic() - watched.started_monotonic
    # Only the seconds of steady running: each side's first interval holds its job's start
    # (and, for iotui's, possibly the file's layout before it), its last the job's end and the
    # final report after it.
    bare_ran, iotui_ran = bare_ran[1:-1], iotui_stretches(record, setup.runs_dir)[1:-1]
    if not bare_ran or not iotui_ran:
        raise SystemExit("bench_overhead: a run reported under three intervals; use a longer --runtime")
    start_s = max(bare_ran[0][0], iotui_ran[0][0]) + EDGE_S
    end_s = min(bare_ran[-1][1], iotui_ran[-1][1]) - EDGE_S
    bare_rate, iotui_rate = rate_within(bare_ran, start_s, end_s), rate_within(iotui_ran, start_s, end_s)
    if bare_rate is None or iotui_rate is None:
        raise SystemExit("bench_overhead: the two halves ran together for under a second; use a longer --runtime")
    return bare_rate, iotui_rate, end_s - start_s, watched.own_cores(), sum(probe_cpu.values()) / wall_s


def bootstrap_median_interval(values: list[float], rounds: int = 2000) -> tuple[float, float]:
    rng = random.Random(14)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return medians[int(0.025 * rounds)], medians[int(0.975 * rounds) - 1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="cpu,disk")
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--runtime", type=int, default=None,
                        help="seconds per run (default: 8 together, 12 together through the app, 4 alternate)")
    parser.add_argument("--design", choices=("together", "alternate"), default="together")
    parser.add_argument("--without", default="", help="iotui's parts switched off: probe, host (comma-separated)")
    parser.add_argument("--app", action="store_true", help="watch through the app on an 80x24 pseudo-terminal")
    parser.add_argument("--live", action="store_true",
                        help="iotui run with --json-stream (read) and --metrics (scraped once a second)")
    parser.add_argument("--target", default=".")
    args = parser.parse_args()
    if psutil.cpu_count() < 2:
        raise SystemExit("bench_overhead: needs two cores (fio's job on one, the rest on the other)")
    # This script's own polling and reading run with the rest, off fio's core.
    os.sched_setaffinity(0, {int(OTHER_CORE)})
    unknown = set(filter(None, args.without.split(","))) - {"probe", "host"}
    if unknown:
        raise SystemExit(f"bench_overhead: --without knows probe and host, not {', '.join(sorted(unknown))}")
    # Together, the halves overlap for the runtime less the later one's start (the app's: about 3 s).
    runtime_s = args.runtime or (4 if args.design == "alternate" else 12 if args.app else 8)
    target = Path(args.target).resolve()
    for job in args.jobs.split(","):
        ratios, own, probe, bare_all, watched_all = [], [], [], [], []
        with tempfile.TemporaryDirectory() as scratch:
            setup = Setup(target, Path(scratch), args.without, args.app, runtime_s, live=args.live)
            setup.prepare(job)
            # A warm-up run alone (``iotui run``), and iotui's argv.
            argv = through_iotui(Setup(target, Path(scratch), args.without, False, runtime_s))[1]
            for pair in range(args.pairs):
                if args.design == "together":
                    first = "iotui" if pair % 2 == 0 else "bare"
                    bare, watched, together_s, own_cores, probe_cores = pair_together(
                        setup, argv, iotui_first=first == "iotui")
                    how = f"together {together_s:.1f} s, {first} first"
                else:
                    bare = bare_fio(argv, target)
                    watched, argv, own_cores, probe_cores = through_iotui(setup)
                    how = "one after the other"
                ratios.append(watched / bare)
                bare_all.append(bare)
                watched_all.append(watched)
                own.append(own_cores)
                probe.append(probe_cores)
                print(f"{job} pair {pair + 1:2}: bare {bare:,.0f} IOPS, iotui {watched:,.0f} IOPS, ratio {ratios[-1]:.3f} "
                      f"({how}); iotui CPU {own_cores * 100:.2f}%, probe {probe_cores * 100:.2f}%", flush=True)
        low, high = bootstrap_median_interval(ratios)
        parts_off = (", the app" if args.app else "") + (f", without {args.without}" if args.without else "") + (
            ", --json-stream and --metrics" if args.live else "")
        print(f"{job} ({args.design}{parts_off}): median ratio iotui/bare {statistics.median(ratios):.3f} "
              f"(95% interval {low:.3f}-{high:.3f}, {args.pairs} pairs); medians bare {statistics.median(bare_all):,.0f}, "
              f"iotui {statistics.median(watched_all):,.0f} IOPS; iotui's process {statistics.median(own) * 100:.2f}% "
              f"of a core, probe {statistics.median(probe) * 100:.2f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
