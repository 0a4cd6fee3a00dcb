"""The stream's events as JSON lines, and what a closed pipe does to the writer."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from iotui.commands.stream_out import JsonStreamOut
from iotui.core.records.record import RunRecord
from iotui.core.runs.events import RunFinished
from iotui.core.stream.events import End, Second, Start, as_saved, to_json, to_line
from iotui.core.stream.translate import StreamTranslator


def test_optional_context_is_left_out_and_required_nulls_kept() -> None:
    line = to_json(End(1.5, "completed", None, None))
    assert line == {"event": "end", "t_s": 1.5, "status": "completed", "ended_by": None, "record": None}
    second = to_json(Second(2.0, 0, {"t_s": 1.0, "dt_s": 1.0}))
    assert "host" not in second and "point" not in second
    assert to_json(Second(2.0, 1, {}, host="h1", point=3))["host"] == "h1"


def test_a_line_is_one_line_of_json_with_the_version_in_start() -> None:
    line = to_line(Start(0.1, "quick", {"path": "/x"}, ["fio", "--name=a"], "fio-3.33"))
    assert "\n" not in line
    assert json.loads(line)["stream_version"] == 1


def test_as_saved_drops_what_toml_cannot_hold() -> None:
    assert as_saved({"a": None, "b": float("nan"), "c": {"d": None, "e": 1}, "f": [1, None]}) == {"c": {"e": 1}, "f": [1]}


def test_a_finished_run_gives_its_sections_warnings_and_end(tmp_path: Path) -> None:
    record = RunRecord(
        run={"status": "stopped", "ended_by": "user", "preset": "p"}, host={}, target={},
        sections=[{"name": "a", "read": {"iops": 5.0, "lat_p99_ns": None}}, {"name": "b"}],
    )
    record.add_warning("w", "a warning")
    saved = tmp_path / "r.toml"
    events = StreamTranslator().translate(RunFinished(record, saved, None))
    kinds = [to_json(event)["event"] for event in events]
    assert kinds == ["section", "section", "warning", "end"]
    assert to_json(events[0])["figures"] == {"name": "a", "read": {"iops": 5.0}}
    end = to_json(events[-1])
    assert (end["status"], end["ended_by"], end["record"]) == ("stopped", "user", str(saved))


def test_a_closed_pipe_stops_once_and_writes_no_more() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader went away (as `head` does)
    out = os.fdopen(write_end, "w")
    stream = JsonStreamOut(out=out)
    stops: list[str] = []
    stream.begin([Start(0.0, "quick", {}, ["fio"], "fio-3.33")], lambda: stops.append("stop"))
    stream.write([End(1.0, "stopped", "stream-closed", None)])
    assert stops == ["stop"] and stream.closed
    out.close()  # its buffer goes to /dev/null now: no error at exit
    assert sys.stdout is not out


def test_metrics_addresses_default_to_loopback() -> None:
    from iotui.core.stream.metrics import MetricsError, parse_metrics_address

    assert str(parse_metrics_address("9464")) == "127.0.0.1:9464"
    assert parse_metrics_address(":9464").loopback
    assert parse_metrics_address("[::1]:9464").loopback and str(parse_metrics_address("[::1]:9464")) == "[::1]:9464"
    assert not parse_metrics_address("0.0.0.0:9464").loopback
    assert not parse_metrics_address("192.0.2.1:80").loopback
    for bad in ("host:", "x:99999", "abc"):
        try:
            parse_metrics_address(bad)
        except MetricsError as error:
            assert error.code == "address"
        else:
            raise AssertionError(f"{bad!r} was read as an address")


def test_metrics_without_prometheus_client_is_one_sentence_and_runs_nothing(tmp_path: Path) -> None:
    import subprocess

    code = (
        "import sys; sys.modules['prometheus_client'] = None\n"  # as if the package were not installed
        "from iotui.cli import main\n"
        "sys.exit(main(['run', 'quick', '--runtime', '1', '--size', '1M', '--runs-dir', 'runs', '--metrics', '9464']))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        "iotui: --metrics needs the prometheus_client package: pip install 'iotui[metrics]' "
        "(or pip install prometheus_client), or drop --metrics."
    ]
    assert not (tmp_path / "runs").exists()  # the canary: nothing ran, nothing was saved


def test_the_grafana_dashboard_names_only_metrics_iotui_serves() -> None:
    import re

    from iotui.core.stream.metrics import LiveMetrics

    metrics = LiveMetrics()
    metrics.observe(Start(0.0, "quick", {}, ["fio"], "fio-3.33"))
    sample = {"t_s": 1.0, "dt_s": 1.0, "read_iops": 10.0, "read_bw_bytes": 4096.0, "read_lat_mean_ns": 5.0,
              "read_lat_p99_ns": 9, "read_lat_p99_9_ns": 9, "read_lat_max_ns": 9, "cpu_user_pct": 5.0,
              "responsiveness": "ok", "probe_p99_ms": 1.0, "io_probe_p99_ms": 2.0}
    metrics.observe(Second(1.0, 0, sample, completed_ios={"read": 10}))
    served = {family.name for family in metrics.families()}
    dashboard = (Path(__file__).resolve().parents[2] / "docs" / "grafana-iotui.json").read_text()
    named = {name.removesuffix("_total") for name in re.findall(r"\biotui_[a-z0-9_]+", dashboard)}
    assert named and named <= served, named - served
