"""``--metrics`` opened for the command line and the app, its refusals worded in the flag's terms.

Light on purpose (the app imports it before its first paint): only the metrics server's module.
"""

from __future__ import annotations

import sys

from iotui.core.stream.metrics import MetricsError, MetricsServer, parse_metrics_address


class MetricsRefused(Exception):
    """``--metrics`` cannot be served; str() is the sentence to print."""


def open_metrics_server(text: str) -> MetricsServer:
    """The server ``--metrics TEXT`` asks for, said on stderr (with a sentence when not on loopback)."""
    try:
        address = parse_metrics_address(text)
        server = MetricsServer(address)
    except MetricsError as error:
        if error.code == "missing":
            raise MetricsRefused(
                "--metrics needs the prometheus_client package: pip install 'iotui[metrics]' "
                "(or pip install prometheus_client), or drop --metrics."
            ) from None
        if error.code == "bind":
            raise MetricsRefused(f"--metrics: {error}; give another port, or stop what holds it.") from None
        raise MetricsRefused(f"--metrics: {error}.") from None
    print(f"iotui: the live figures are at http://{address}/metrics", file=sys.stderr, flush=True)
    if not address.loopback:
        print(f"iotui: {address.host} is not a loopback address: anyone who can reach this machine on port "
              f"{address.port} can read the figures (give --metrics 127.0.0.1:{address.port} to keep them here).",
              file=sys.stderr, flush=True)
    return server
