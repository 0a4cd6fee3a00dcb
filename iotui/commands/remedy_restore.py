"""At every start: put back the I/O schedulers a killed ``iotui remedy`` left changed, remove the
cgroup it left, and say so."""

from __future__ import annotations

import os
import sys

from iotui.core.runs.lock import runtime_dir

STATE_FILE_NAME = "schedulers.json"  # iotui.core.remedy.schedulers.STATE_FILE_NAME, without importing it at every start
CGROUPS_FILE_NAME = "cgroups.json"  # iotui.core.remedy.cgroups.STATE_FILE_NAME, likewise


def restore_schedulers_left_behind() -> None:
    """Restore what the state file holds when its writer is gone; one line on stderr for each outcome."""
    if os.path.lexists(runtime_dir() / CGROUPS_FILE_NAME):
        _remove_cgroups_left_behind()
    if not os.path.lexists(runtime_dir() / STATE_FILE_NAME):
        return
    from iotui.core.remedy.schedulers import restore_left_behind

    restored = restore_left_behind()
    if restored is None:
        return
    if restored.refused:
        print(f"iotui: the I/O scheduler state file was not used: {restored.refused}.", file=sys.stderr)
        return
    for device, scheduler in restored.devices.items():
        print(f"iotui: an earlier iotui remedy ended before undoing its change; {device}'s I/O scheduler "
              f"is {scheduler} again, as it was before.", file=sys.stderr)
    for device in restored.failed:
        print(f"iotui: {device}'s I/O scheduler could not be put back (run iotui as root to restore it); "
              f"iotui will try again at its next start.", file=sys.stderr)


def _remove_cgroups_left_behind() -> None:
    from iotui.core.remedy.cgroups import remove_left_behind

    removed = remove_left_behind()
    if removed is None:
        return
    if removed.refused:
        print(f"iotui: the cgroup state file was not used: {removed.refused}.", file=sys.stderr)
        return
    for cgroup in removed.cgroups:
        print(f"iotui: an earlier iotui remedy ended before removing its cgroup; {cgroup} is removed "
              "(anything still in it moved out first).", file=sys.stderr)
    for cgroup in removed.failed:
        print(f"iotui: the cgroup {cgroup} could not be removed (run iotui as root to remove it); "
              "iotui will try again at its next start.", file=sys.stderr)
