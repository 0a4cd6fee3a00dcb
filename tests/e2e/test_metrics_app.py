"""``iotui --metrics``: the app's runs go through Services.start, which feeds the metrics server.

Real fio and a real HTTP scrape of the server; the app's screens are not involved (the hook is
the app's one entry that starts every run and sweep point).
"""

from __future__ import annotations

import socket
import urllib.request
from pathlib import Path

import pytest

from iotui.cli import app_arguments
from iotui.cli_common import load_preset_from_args
from iotui.cli_options import AppOptions, RunOptions
from iotui.core.start import StartRequest
from tests.conftest import requires_fio

pytest.importorskip("prometheus_client")
pytestmark = [pytest.mark.fio, requires_fio]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_apps_metrics_option_is_read() -> None:
    args = app_arguments(["--metrics", "9464", "--target", "/tmp"])
    assert args is not None and AppOptions.from_namespace(args).metrics == "9464"


async def test_a_run_started_by_the_apps_services_is_served(tmp_path: Path) -> None:
    from iotui.core.stream.metrics import MetricsServer, parse_metrics_address
    from iotui.ui.services import Services

    port = free_port()
    services = Services(runs_dir=tmp_path / "runs", baseline_s=0)
    services.metrics = MetricsServer(parse_metrics_address(f"127.0.0.1:{port}"))
    try:
        preset = load_preset_from_args(RunOptions(preset="quick", runtime="2", size="8M"))
        (tmp_path / "target").mkdir()
        request = StartRequest(preset=preset, target=str(tmp_path / "target"), runs_dir=tmp_path / "runs", baseline_s=0)
        seen: list[object] = []
        session = await services.start(request, seen.append)
        record = await session.run()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
            text = reply.read().decode()
    finally:
        services.metrics.close()
    assert seen  # the app's own handler still gets every event
    last = record.samples[-1]
    lines = dict(line.rsplit(" ", 1) for line in text.splitlines() if line and not line.startswith("#"))
    assert float(lines['iotui_run_info{preset="quick"}']) == 1.0
    key = 'iotui_iops{direction="read",host="",point="",section="0"}'
    assert float(lines[key]) == last["read_iops"]
    assert float(lines['iotui_sample_time_seconds{host="",point="",section="0"}']) == last["t_s"]
