"""Many hosts for real: `iotui run --hosts` on up to 128 loopback addresses, each with its own sshd.

    .venv/bin/python bench/bench_hosts.py [--hosts 128] [--runtime 20] [--rate-iops 100]
                                          [--skip-signals | --signals-only]

Starts private sshd daemons on 127.0.0.1 to 127.0.0.N (sshd listens on at most 16 addresses, so
one daemon per 16; throwaway host and user keys, one high port, keys only, never the system
sshd), then runs `iotui run rnd4k-q1t1 --hosts ...` on every address with a job held at
--rate-iops on each host (random 4 KiB writes, psync), and reports:

- whether the run started on every host, the pre-flight's wall time, `[run] start_spread_ms`;
- the lag of each second's aggregate after the last host's interval that went into it (from
  the record: each aggregate sample's `t_s` less the newest host sample `t_s` of its round, both
  on iotui's clock at arrival);
- iotui's Python process CPU (utime + stime from /proc, in % of one core) over the middle of the
  run, and its ssh children's CPU reported apart (they carry the hosts' bytes);
- the record: every host in it, the aggregate IOPS against the sum of the hosts' IOPS, per section;
- with host probes off and on, when this iotui has `--no-host-probes`;
- after SIGINT and after SIGKILL of iotui mid-run: how long until no fio is left on any host.

Every fio runs on this machine, so the figures are those of a loopback cluster on one machine:
128 fio processes, 128 sshd sessions and iotui share its cores.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.private_sshd import make_keys, spawn_sshd, wait_listening  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
ADDRESSES_PER_SSHD = 16  # sshd's limit on listening sockets


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """sshd daemons on 127.0.0.1..N, one per 16 addresses, sharing throwaway keys and a port."""

    def __init__(self, count: int) -> None:
        self.hosts = [f"127.0.0.{i}" for i in range(1, count + 1)]
        self.directory = Path(tempfile.mkdtemp(prefix="iotui-bench-sshd-"))
        self.port = free_port()
        self.daemons: list[subprocess.Popen] = []
        make_keys(self.directory)
        for first in range(0, count, ADDRESSES_PER_SSHD):
            group = self.hosts[first:first + ADDRESSES_PER_SSHD]
            name = f"sshd{first // ADDRESSES_PER_SSHD}"
            process = spawn_sshd(self.directory, self.port, group, name)
            self.daemons.append(process)
            wait_listening(process, group[-1], self.port, self.directory / f"{name}.log")

    @property
    def ssh_command(self) -> str:
        return " ".join(
            shlex.quote(word)
            for word in (
                "ssh", "-p", str(self.port), "-i", str(self.directory / "user_key"),
                "-o", "IdentitiesOnly=yes", "-o", "StrictHostKeyChecking=no",
                "-o", f"UserKnownHostsFile={os.devnull}", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=20",
            )
        )

    def stop(self) -> None:
        for process in self.daemons:
            process.terminate()
        for process in self.daemons:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def cpu_s(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


@dataclass(frozen=True)
class CpuWindow:
    own_pct: float  # the process's utime + stime, in % of one core
    children_pct: float  # its children's, apart
    children: int
    seconds: float


def cpu_window(pid: int, window_s: float) -> CpuWindow:
    """A process's CPU and its children's over the next ``window_s`` (the children there at both readings)."""
    kids = children(pid)
    before = {kid: cpu_s(kid) for kid in kids}
    cpu0, t0 = cpu_s(pid), time.monotonic()
    time.sleep(window_s)
    cpu1, t1 = cpu_s(pid), time.monotonic()
    after = {kid: cpu_s(kid) for kid in kids}
    # One that ended between the readings reads as 0: left out.
    kids_s = sum(after[kid] - before[kid] for kid in kids if before[kid] > 0 and after[kid] >= before[kid])
    return CpuWindow(round(100 * (cpu1 - cpu0) / (t1 - t0), 1), round(100 * kids_s / (t1 - t0), 1), len(kids), t1 - t0)


def fio_under(target: Path) -> list[int]:
    pids = []
    for pid in subprocess.run(["pgrep", "-x", "fio"], capture_output=True, text=True).stdout.split():
        try:
            if os.readlink(f"/proc/{pid}/cwd").startswith(str(target)):
                pids.append(int(pid))
        except OSError:
            continue
    return pids


def command(cluster: Cluster, work: Path, runtime_s: int, rate_iops: int, extra: list[str]) -> list[str]:
    return [
        str(ROOT / ".venv/bin/python") if (ROOT / ".venv/bin/python").exists() else sys.executable,
        "-m", "iotui", "run", "rnd4k-q1t1", "--hosts", ",".join(cluster.hosts),
        "--target", str(work / "target"), "--runtime", str(runtime_s), "--size", "1M",
        "--set", "rw=randwrite", "--set", f"rate_iops={rate_iops}", "--set", "ioengine=psync",
        "--runs-dir", str(work / "runs"), "--baseline", "0", *extra,
    ]


class Watched:
    """iotui's process with its stdout and stderr read all the time (a full pipe would stop it)."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.process = process
        self.pid = process.pid
        self.stdout: list[str] = []
        self.stderr: list[str] = []
        self.readers = [
            threading.Thread(target=self._read, args=(process.stdout, self.stdout), daemon=True),
            threading.Thread(target=self._read, args=(process.stderr, self.stderr), daemon=True),
        ]
        for reader in self.readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line)

    def wait_for_line(self, text: str, timeout_s: float) -> float | None:
        """Wall seconds until iotui printed a line holding ``text`` (None: it ended or the time ran out)."""
        began = time.monotonic()
        seen = 0
        while time.monotonic() - began < timeout_s:
            while seen < len(self.stdout):
                if text in self.stdout[seen]:
                    return time.monotonic() - began
                seen += 1
            if self.process.poll() is not None and seen >= len(self.stdout):
                return None
            time.sleep(0.05)
        return None

    def finish(self, timeout_s: float) -> str:
        self.process.wait(timeout=timeout_s)
        for reader in self.readers:
            reader.join(timeout=10)
        return "".join(self.stderr)


def start(cluster: Cluster, work: Path, runtime_s: int, rate_iops: int, extra: list[str]) -> Watched:
    shutil.rmtree(work, ignore_errors=True)
    (work / "target").mkdir(parents=True)
    env = {**os.environ, "IOTUI_SSH": cluster.ssh_command, "PYTHONUNBUFFERED": "1"}
    return Watched(subprocess.Popen(
        command(cluster, work, runtime_s, rate_iops, extra), env=env, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, cwd=ROOT,
    ))


def lags_s(record: dict) -> list[float]:
    """Each aggregate sample's t_s less the newest host sample of its round (both on iotui's clock)."""
    arrivals = sorted(sample["t_s"] for host in record["hosts"] for sample in host.get("samples", []))
    lags, previous = [], float("-inf")
    for row in record.get("samples", []):
        round_arrivals = [t for t in arrivals if previous < t <= row["t_s"] + 1e-9]
        if round_arrivals:
            lags.append(row["t_s"] - max(round_arrivals))
        previous = row["t_s"]
    return lags


def load_record(work: Path) -> dict:
    records = sorted((work / "runs").glob("*.toml"))
    shown = subprocess.run(
        [sys.executable, "-m", "iotui", "show", "--json", str(records[-1])], capture_output=True, text=True, cwd=ROOT
    )
    return json.loads(shown.stdout)


def measured_run(cluster: Cluster, work: Path, runtime_s: int, rate_iops: int, extra: list[str]) -> dict:
    began = time.monotonic()
    process = start(cluster, work, runtime_s, rate_iops, extra)
    total = len(cluster.hosts)
    first_line_s = process.wait_for_line(f"{total}/{total} hosts", 300)
    if first_line_s is None:
        return {"started": False, "error": _said(process.finish(120))}
    # The middle of the run: from 3 s after the first full line to 3 s before the end.
    time.sleep(3)
    window_s = max(2.0, runtime_s - 8.0)
    window = cpu_window(process.pid, window_s)
    process.finish(300)
    record = load_record(work)
    hosts = record["hosts"]
    sums = []
    for index, section in enumerate(record["sections"]):
        for direction in ("read", "write"):
            if direction in section:
                host_sum = sum(h["sections"][index][direction]["iops"] for h in hosts if not h.get("failed_at_s"))
                sums.append((section.get("name"), direction, section[direction]["iops"], host_sum))
    lags = lags_s(record)
    if os.environ.get("BENCH_DUMP_FAILED"):
        failed = [{k: v for k, v in h.items() if k != "samples"} | {"samples_t": [x["t_s"] for x in h.get("samples", [])]}
                  for h in hosts if h.get("failed_at_s")]
        Path(os.environ["BENCH_DUMP_FAILED"]).write_text(json.dumps(failed, indent=1))
    return {
        "started": True,
        "exit": process.process.returncode,
        "status": record["run"]["status"],
        "hosts_in_record": len(hosts),
        "first_full_line_s": round(first_line_s, 1),
        "wall_s": round(time.monotonic() - began, 1),
        "start_spread_ms": record["run"].get("start_spread_ms"),
        "release_spread_ms": record["run"].get("release_spread_ms"),
        "iotui_cpu_pct": window.own_pct,
        "ssh_cpu_pct": window.children_pct,
        "ssh_processes": window.children,
        "lag_median_s": round(statistics.median(lags), 3) if lags else None,
        "lag_max_s": round(max(lags), 3) if lags else None,
        "aggregate_vs_hosts_iops": [(name, d, round(agg, 1), round(hsum, 1)) for name, d, agg, hsum in sums],
        "warnings": _warnings(record),
        "clock_rtt_ms_max": max((h.get("clock_rtt_ms", 0) for h in hosts), default=None),
        "clock_offset_ms_range": [
            min((h.get("clock_offset_ms", 0) for h in hosts), default=None),
            max((h.get("clock_offset_ms", 0) for h in hosts), default=None),
        ],
    }


def _warnings(record: dict) -> dict[str, str]:
    """Each warning code with how many times it came and its first message."""
    found: dict[str, list] = {}
    for warning in record.get("warnings", []):
        entry = found.setdefault(warning["code"], [0, str(warning.get("message", ""))[:300]])
        entry[0] += 1
    return {code: f"{count}x: {message}" for code, (count, message) in found.items()}


def _said(stderr: str) -> list[str]:
    """iotui's own sentences (not the hosts' lines it relays), the last few."""
    return [line[-600:] for line in stderr.splitlines() if line.startswith("iotui:")][-3:]


def signal_run(cluster: Cluster, work: Path, rate_iops: int, signum: int, extra: list[str], trace: bool = False) -> dict:
    sockets_before = _socket_dirs()
    process = start(cluster, work, 120, rate_iops, extra)
    total = len(cluster.hosts)
    if process.wait_for_line(f"{total}/{total} hosts", 300) is None:
        process.process.kill()
        return {"started": False, "error": _said(process.finish(60))}
    pids = fio_under(work / "target")
    process.process.send_signal(signum)
    began = time.monotonic()
    # The fio seen before the signal, each checked by its pid (a walk of /proc per check is
    # itself seconds at this load): gone, or a zombie its lifeline has not reaped yet.
    traced_at = -1.0
    while [pid for pid in pids if _alive(pid)] and time.monotonic() - began < 30:
        if trace and time.monotonic() - traced_at >= 0.5:
            traced_at = time.monotonic()
            print(f"  {traced_at - began:5.1f} s after {signal.Signals(signum).name}: {_states(pids)}", flush=True)
        time.sleep(0.02)
    gone_s = time.monotonic() - began
    left = len([pid for pid in pids if _alive(pid)])
    process.finish(60)
    time.sleep(1.0)
    sockets_after = _socket_dirs()
    return {"fio_running_before": len(pids), "no_fio_after_s": round(gone_s, 2), "fio_left": left,
            "iotui_exit_s": round(time.monotonic() - began - 1.0, 2),
            "ssh_socket_dirs_left": len(sockets_after - sockets_before)}


def _states(pids: list[int]) -> str:
    """The fio still there, counted by state and by what each waits in (wchan), and their lifelines'."""
    counts: dict[str, int] = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            wchan = Path(f"/proc/{pid}/wchan").read_text().strip() or "-"
            parent = Path(f"/proc/{fields[1]}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if fields[0] == "Z":
            continue
        key = f"fio {fields[0]}/{wchan} (its sh {parent})"
        counts[key] = counts.get(key, 0) + 1
    return ", ".join(f"{count} {key}" for key, count in sorted(counts.items(), key=lambda item: -item[1])) or "none"


def _socket_dirs() -> set[Path]:
    """The shared connections' socket directories (iotui-ssh-*) there are now."""
    return set(Path(tempfile.gettempdir()).glob("iotui-ssh-*")) | set(Path("/tmp").glob("iotui-ssh-*"))


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hosts", type=int, default=128)
    parser.add_argument("--runtime", type=int, default=20)
    parser.add_argument("--rate-iops", type=int, default=100)
    parser.add_argument("--skip-signals", action="store_true")
    parser.add_argument("--signals-only", action="store_true", help="only the SIGINT and SIGKILL runs")
    parser.add_argument("--repeat", type=int, default=1, help="measured runs of each kind (medians are quoted)")
    parser.add_argument("--probes-off-only", action="store_true", help="only the runs with --no-host-probes")
    parser.add_argument("--probes-on-only", action="store_true", help="only the runs with the host probes on")
    parser.add_argument("--trace-stop", action="store_true",
                        help="after each signal, print the fio left every 0.5 s by state and wait channel")
    args = parser.parse_args()
    if not 1 <= args.hosts <= 254:
        parser.error("--hosts is 1 to 254 (127.0.0.1 to 127.0.0.254)")
    helped = subprocess.run([sys.executable, "-m", "iotui", "run", "--help"], capture_output=True, text=True, cwd=ROOT)
    modes = {"host probes on": []}
    if "--no-host-probes" in helped.stdout:
        modes = {"host probes off": ["--no-host-probes"], "host probes on": []}
    print(f"load average before: {os.getloadavg()}", flush=True)
    # A SIGTERM still stops the daemons and removes the keys (the finally below).
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    cluster = Cluster(args.hosts)
    work = Path(tempfile.mkdtemp(prefix="iotui-bench-hosts-"))
    try:
        if args.probes_off_only and "host probes off" in modes:
            modes = {"host probes off": modes["host probes off"]}
        if args.probes_on_only:
            modes = {"host probes on": []}
        for _ in range(args.repeat):
            for label, extra in ({} if args.signals_only else modes).items():
                result = measured_run(cluster, work / "run", args.runtime, args.rate_iops, extra)
                print(f"{args.hosts} hosts, {label}, load {os.getloadavg()[0]:.0f}: {json.dumps(result)}", flush=True)
            if not args.skip_signals:
                for name, signum in (("SIGINT", signal.SIGINT), ("SIGKILL", signal.SIGKILL)):
                    result = signal_run(cluster, work / "sig", args.rate_iops, signum, next(iter(modes.values())), args.trace_stop)
                    print(f"{args.hosts} hosts, {name} mid-run, load {os.getloadavg()[0]:.0f}: {json.dumps(result)}", flush=True)
    finally:
        cluster.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"load average after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
