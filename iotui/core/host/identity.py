"""The machine a run ran on: the record's ``[host]`` table."""

from __future__ import annotations

import os
import platform
import socket

from iotui.core.host.device_facts import cpu_governor


def host_identity() -> dict[str, str | int]:
    """The ``[host]`` table."""
    import psutil

    cpu_model = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    cpu_model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    identity: dict[str, str | int] = {
        "hostname": socket.gethostname(),
        "system": platform.system(),
        "kernel": platform.release(),
        "cpu_model": cpu_model or platform.machine() or "unknown",
        "cpu_count": os.cpu_count() or 1,
        "mem_total_bytes": int(psutil.virtual_memory().total),
    }
    governor = cpu_governor()
    if governor:
        identity["cpu_governor"] = governor
    return identity
