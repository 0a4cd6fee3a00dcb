"""``--metrics`` scraped by a real Prometheus: the values it stores equal the record's samples.

The test starts Debian's ``prometheus`` on a loopback port with a private data directory
(scraping every 0.5 s), runs ``iotui run --metrics`` with real fio, then reads back through
Prometheus' HTTP API each scrape's sample time and figures, and finds them in the saved
record's rows of those seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from iotui.core.records.files import load_record
from tests.conftest import requires_fio
from tests.waiting import wait_until

pytest.importorskip("prometheus_client")
PROMETHEUS = shutil.which("prometheus")

pytestmark = [
    pytest.mark.fio, requires_fio, pytest.mark.slow,
    pytest.mark.skipif(PROMETHEUS is None, reason="Prometheus is not installed (bootstrap.sh --test installs it)"),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


@pytest.fixture
def prometheus(tmp_path: Path):
    """A private Prometheus scraping 127.0.0.1:<port> every 0.5 s; yields (its URL, the scraped port)."""
    scraped_port, web_port = free_port(), free_port()
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n  scrape_interval: 500ms\n  scrape_timeout: 400ms\n"
        f"scrape_configs:\n  - job_name: iotui\n    static_configs:\n      - targets: ['127.0.0.1:{scraped_port}']\n"
    )
    process = subprocess.Popen(
        [PROMETHEUS or "prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'data'}",
         f"--web.listen-address=127.0.0.1:{web_port}", "--log.level=warn"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{web_port}"

    def ready() -> bool:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else "prometheus exited"
        try:
            with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as reply:
                return reply.status == 200
        except OSError:
            return False

    def scraping() -> bool:
        # Prometheus hands discovered targets to its scrape loops at most every 5 s: until the target is
        # active, a short run's first seconds would pass unscraped.
        return bool(get_json(f"{url}/api/v1/targets")["data"]["activeTargets"])

    try:
        wait_until(ready, what="Prometheus to be ready")
        wait_until(scraping, what="Prometheus to scrape the target", interval_s=0.2)
        yield url, scraped_port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def stored(url: str, query: str) -> dict[float, float]:
    """Every value Prometheus stored for one series over the last minutes, by scrape time."""
    reply = get_json(f"{url}/api/v1/query?" + urllib.parse.urlencode({"query": f"{query}[10m]"}))
    assert reply["status"] == "success", reply
    series = reply["data"]["result"]
    assert len(series) == 1, (query, series)
    return {float(at): float(value) for at, value in series[0]["values"]}


def test_prometheus_stores_the_records_values(tmp_path: Path, prometheus) -> None:
    url, port = prometheus
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "quick", "--runtime", "5", "--size", "8M", "--baseline", "0",
         "--runs-dir", str(tmp_path / "runs"), "--metrics", f"127.0.0.1:{port}", "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, env=dict(os.environ),
    )
    assert result.returncode == 0, result.stderr
    record = load_record(Path(json.loads(result.stdout)["path"]))
    rows = {row["t_s"]: row for row in record.samples}

    times = stored(url, 'iotui_sample_time_seconds{section="0"}')
    iops = stored(url, 'iotui_iops{section="0",direction="read"}')
    p99 = stored(url, 'iotui_latency_seconds{section="0",direction="read",quantile="0.99"}')
    bandwidth = stored(url, 'iotui_bandwidth_bytes_per_second{section="0",direction="write"}')
    completed = stored(url, 'iotui_completed_ios_total{section="0",direction="read"}')
    seen = set()
    for at, t_s in times.items():
        row = rows[t_s]  # every scraped second is one of the record's rows
        seen.add(t_s)
        assert iops[at] == row["read_iops"]
        assert p99[at] == row["read_lat_p99_ns"] / 1e9
        assert bandwidth[at] == row["write_bw_bytes"]
        # fio's completed I/Os so far: the rows up to this one, and never more than fio's total.
        upto = sum(round(r["read_iops"] * r["dt_s"]) for r in record.samples if r["t_s"] <= t_s)
        assert completed[at] == pytest.approx(upto, rel=0.01)
    assert len(seen) >= 3, seen  # the run's seconds, scraped while it went
    assert max(completed.values()) <= record.sections[0]["read"]["total_ios"]
