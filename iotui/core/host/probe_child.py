"""Ending a probe's child process: the one way both probes do it."""

from __future__ import annotations

import subprocess


def end_probe_child(process: subprocess.Popen[bytes], timeout_s: float) -> None:
    """Close the child's stdin (EOF: it exits by itself), wait, kill it if late, close its stdout."""
    try:
        if process.stdin is not None:
            process.stdin.close()
    except OSError:
        pass
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()
