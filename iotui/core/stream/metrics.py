"""The live figures for Prometheus: the stream's events kept as gauges and counters, served in the
OpenMetrics text format by ``prometheus_client`` (an optional dependency: ``iotui[metrics]``).

The exporter reads the same :class:`~iotui.core.stream.events.Second` values as
``--json-stream``; a scrape sees one consistent second (taken under one lock), and each
value is the record's sample value in Prometheus' units (nanoseconds divided by 1e9 and
milliseconds by 1e3 as seconds, percentages by 100 as ratios). Names and labels: docs/stream.md, "Metrics".
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from iotui.core.stream.events import Second, Start, StreamEvent

LEVELS = {"ok": 0, "sluggish": 1, "unresponsive": 2}
QUANTILES = (("p50", "0.5"), ("p90", "0.9"), ("p99", "0.99"), ("p99_9", "0.999"))
DIRECTIONS = ("read", "write", "trim")

# (metric name, help, sample key suffix after "<direction>_", divisor to Prometheus' unit)
_DIRECTION_GAUGES = (
    ("iotui_iops", "I/O operations per second in the last second (fio's, per section and direction).", "iops", 1.0),
    ("iotui_bandwidth_bytes_per_second", "Bytes per second in the last second.", "bw_bytes", 1.0),
    ("iotui_latency_mean_seconds", "Mean completion latency in the last second.", "lat_mean_ns", 1e9),
    ("iotui_latency_max_seconds", "Largest completion latency in the last second.", "lat_max_ns", 1e9),
)
# (metric name, help, sample key, divisor): the machine's figures (no direction).
_HOST_GAUGES = (
    ("iotui_cpu_user_ratio", "Share of all CPUs in user mode in the last second.", "cpu_user_pct", 100.0),
    ("iotui_cpu_system_ratio", "Share of all CPUs in system mode in the last second.", "cpu_system_pct", 100.0),
    ("iotui_cpu_iowait_ratio", "Share of all CPUs waiting on I/O in the last second.", "cpu_iowait_pct", 100.0),
    ("iotui_context_switches_per_second", "Context switches per second on the machine.", "ctx_switches_per_s", 1.0),
    ("iotui_interrupts_per_second", "Interrupts per second on the machine.", "interrupts_per_s", 1.0),
    ("iotui_fio_cpu_cores", "CPU cores fio's processes used in the last second.", "fio_cpu_cores", 1.0),
    ("iotui_probe_wakeup_p99_seconds", "The wake-up probe's p99 delay in the last second.", "probe_p99_ms", 1e3),
    ("iotui_probe_io_read_p99_seconds", "The I/O probe's p99 read latency in the last second.", "io_probe_p99_ms", 1e3),
    ("iotui_probe_io_write_p99_seconds", "The I/O probe's p99 write latency in the last second.", "io_probe_write_p99_ms", 1e3),
)


class MetricsError(Exception):
    """``--metrics`` cannot be served. ``code``: ``missing`` (no prometheus_client), ``address`` (not
    ADDR:PORT), ``bind`` (the port cannot be opened); str() says the facts."""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class MetricsAddress:
    host: str
    port: int

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def __str__(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def parse_metrics_address(text: str) -> MetricsAddress:
    """``PORT``, ``:PORT`` (loopback), ``ADDR:PORT`` or ``[IPv6]:PORT``."""
    host, sep, port_text = text.strip().rpartition(":")
    if not sep:
        host, port_text = "", text.strip()
    host = host.strip("[]") or "127.0.0.1"
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise MetricsError(f"'{text}' is not an address and port such as 127.0.0.1:9464 or :9464", code="address")
    return MetricsAddress(host, int(port_text))


def _labels(second: Second) -> dict[str, str]:
    labels = {"section": str(second.section if second.section is not None else 0)}
    if second.host is not None:
        labels["host"] = second.host
    if second.point is not None:
        labels["point"] = str(second.point)
    return labels


class LiveMetrics:
    """The latest second of each (section, host) and the I/O counters; fed from the event loop,
    read by the HTTP server's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[tuple[tuple[str, str], ...], tuple[dict[str, str], Mapping[str, Any]]] = {}
        self._ios: dict[tuple[tuple[str, str], ...], int] = {}
        self._preset = ""

    def observe(self, event: StreamEvent) -> None:
        if isinstance(event, Start):
            with self._lock:
                self._preset = event.preset
                self._latest.clear()  # a new run (the app's next one): the last run's seconds go
            return
        if not isinstance(event, Second):
            return
        labels = _labels(event)
        with self._lock:
            self._latest[tuple(sorted(labels.items()))] = (labels, event.sample)
            for direction, ios in event.completed_ios.items():
                key = tuple(sorted({**labels, "direction": direction}.items()))
                self._ios[key] = self._ios.get(key, 0) + ios

    def snapshot(self) -> tuple[str, list[tuple[dict[str, str], Mapping[str, Any]]], dict[tuple[tuple[str, str], ...], int]]:
        with self._lock:
            return self._preset, list(self._latest.values()), dict(self._ios)

    def families(self) -> Iterator[Any]:
        """The metric families of one consistent snapshot (prometheus_client's collector protocol)."""
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        preset, latest, ios = self.snapshot()
        info = GaugeMetricFamily("iotui_run_info", "The run being measured (always 1).", labels=["preset"])
        info.add_metric([preset], 1.0)
        yield info
        sample_time = GaugeMetricFamily(
            "iotui_sample_time_seconds", "The sample's t_s: seconds since fio started, at the end of the second shown.",
            labels=["section", "host", "point"],
        )
        level = GaugeMetricFamily(
            "iotui_responsiveness_level", "The machine's responsiveness: 0 ok, 1 sluggish, 2 unresponsive.",
            labels=["section", "host", "point"],
        )
        direction_families = [
            (GaugeMetricFamily(name, text, labels=["section", "direction", "host", "point"]), key, scale)
            for name, text, key, scale in _DIRECTION_GAUGES
        ]
        latency = GaugeMetricFamily(
            "iotui_latency_seconds", "Completion latency percentile in the last second (fio's bins).",
            labels=["section", "direction", "host", "point", "quantile"],
        )
        host_families = [
            (GaugeMetricFamily(name, text, labels=["section", "host", "point"]), key, scale)
            for name, text, key, scale in _HOST_GAUGES
        ]
        for labels, sample in latest:
            base = [labels["section"], labels.get("host", ""), labels.get("point", "")]
            if isinstance(sample.get("t_s"), (int, float)):
                sample_time.add_metric(base, float(sample["t_s"]))
            if sample.get("responsiveness") in LEVELS:
                level.add_metric(base, float(LEVELS[sample["responsiveness"]]))
            for family, key, scale in host_families:
                value = sample.get(key)
                if isinstance(value, (int, float)):
                    family.add_metric(base, value / scale)
            for direction in DIRECTIONS:
                with_direction = [base[0], direction, base[1], base[2]]
                for family, key, scale in direction_families:
                    value = sample.get(f"{direction}_{key}")
                    if isinstance(value, (int, float)):
                        family.add_metric(with_direction, value / scale)
                for name, quantile in QUANTILES:
                    value = sample.get(f"{direction}_lat_{name}_ns")
                    if isinstance(value, (int, float)):
                        latency.add_metric([*with_direction, quantile], value / 1e9)
        yield sample_time
        yield level
        for family, _, _ in direction_families:
            yield family
        yield latency
        for family, _, _ in host_families:
            yield family
        completed = CounterMetricFamily(
            "iotui_completed_ios", "I/Os fio completed so far (per section and direction).",
            labels=["section", "direction", "host", "point"],
        )
        for counted, count in ios.items():
            found = dict(counted)
            completed.add_metric(
                [found["section"], found["direction"], found.get("host", ""), found.get("point", "")], float(count),
            )
        yield completed


class _Collector:
    def __init__(self, metrics: LiveMetrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Any]:
        return self.metrics.families()


class MetricsServer:
    """Serves a :class:`LiveMetrics` over HTTP (``/metrics``) until :meth:`close`."""

    def __init__(self, address: MetricsAddress) -> None:
        try:
            from prometheus_client import CollectorRegistry, start_http_server
        except ImportError:
            raise MetricsError("the prometheus_client package is not installed", code="missing") from None
        self.address = address
        self.metrics = LiveMetrics()
        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Collector(self.metrics))
        try:
            self._server, self._thread = start_http_server(address.port, address.host, registry=registry)
        except OSError as error:
            raise MetricsError(f"{address} cannot be served: {error.strerror or error}", code="bind") from None

    def observe(self, event: StreamEvent) -> None:
        self.metrics.observe(event)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
