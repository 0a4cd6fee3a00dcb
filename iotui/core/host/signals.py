"""Which host signals this machine gives, and the one sentence that names those it does not.

Linux gives every figure (CPU counters from /proc/stat, PSI from /proc/pressure, the
target's device counters from /proc/diskstats). Elsewhere, or on a kernel built
without PSI, or for a target with no block device (tmpfs, a network mount), some
are absent: the run says so once instead of showing empty rows.
"""

from __future__ import annotations

import platform

from iotui.core.host.counters import HostSample

SIGNAL_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("CPU counters", ("cpu_user_pct", "cpu_system_pct", "cpu_iowait_pct", "ctx_switches_per_s", "interrupts_per_s")),
    ("PSI (pressure stall information)", (
        "psi_cpu_some_pct", "psi_io_some_pct", "psi_io_full_pct", "psi_memory_some_pct", "psi_memory_full_pct",
    )),
    ("device counters for the target", ("device_read_iops", "device_write_iops")),
)
"""Each signal as the sentence names it, and the HostSample fields it gives."""


def missing_signals(sample: HostSample) -> list[str]:
    """The signal groups of which ``sample`` (a sample after the first, so rates exist) has no figure."""
    return [name for name, keys in SIGNAL_GROUPS if all(getattr(sample, key, None) is None for key in keys)]


def missing_signals_sentence(missing: list[str], system: str | None = None) -> str | None:
    """One sentence naming what is missing (``This machine (Darwin) gives no PSI ...``); None when nothing is."""
    if not missing:
        return None
    system = system or platform.system() or "unknown system"
    names = missing[0] if len(missing) == 1 else ", ".join(missing[:-1]) + " and no " + missing[-1]
    sentence = f"This machine ({system}) gives no {names}: those figures are left out of the live view and the record."
    if system != "Linux":
        sentence += " Linux gives every figure."
    elif "device counters for the target" in missing:
        sentence += " (A target on tmpfs or a network mount has no block device to count.)"
    return sentence
