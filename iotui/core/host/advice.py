"""What to try when the machine stops responding: a sentence that fits the run."""

from __future__ import annotations

from iotui.core.host.levels import Assessment, Level


def likely_cause(numjobs: int | None, cpu_count: int, assessment: Assessment) -> str:
    """A sentence naming the likely cause of a bad level and what to try; "" when OK."""
    if assessment.level is Level.OK:
        return ""
    key = assessment.signal_key or ""
    too_many_jobs = numjobs is not None and cpu_count > 0 and numjobs > cpu_count
    if key.startswith("psi_memory"):
        return (
            "Memory is short: fio's buffers (numjobs x iodepth x block size) and other "
            "programs leave too little RAM; try fewer jobs or a lower iodepth."
        )
    if too_many_jobs:
        return f"numjobs ({numjobs}) is above the core count ({cpu_count}): try fewer jobs."
    if key.startswith("psi_io"):
        return (
            "The disk is saturated and everything else waits behind fio's queue: "
            "try a lower iodepth or fewer jobs, or limit the rate (rate_iops)."
        )
    if key.startswith("psi_cpu"):
        return (
            "The CPUs are saturated: try fewer jobs, or a larger block size so each "
            "I/O costs less CPU per byte."
        )
    if key.startswith("probe"):
        return (
            "Wake-ups run late: the CPUs are busy with fio or another program, or a "
            "virtual machine's host is taking its time; try fewer jobs."
        )
    return ""
