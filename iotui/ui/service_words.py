"""The app's words for what the core refuses: a sentence with what to do in the app's terms.

The core's errors say what happened and carry codes; the advice here names the app's own keys and
fields (the target list, the option editor, the Hosts field). This module never imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from iotui.core.records.history_index import HistoryIndexError
    from iotui.core.runs.lock import RunLockHeld
    from iotui.core.start import StartError


# What to do about a refused target or run, in the app's terms: its target list (t) and the option
# editor's fields (the core's TargetError and PlanError say what happened and carry these codes).
TARGET_ADVICE = {
    "target-missing": "Type the path of an existing directory, or pick a target from the list (t).",
    "target-memory": "Pick a target directory on a disk.",
    "target-read-only": "Pick a target directory you can write to.",
    "target-space": "Type a smaller size in the options, free some space, or pick another target.",
    "size-unknown": "Type a size in the options.",
}

# What to do about a multi-host refusal, in the app's terms (the core's RemoteError says what happened).
REMOTE_ADVICE = {
    "target-read-only": "Pick a target directory you can write to on every host.",
    "target-memory": "Pick a target directory on a disk on every host.",
    "size-unknown": TARGET_ADVICE["size-unknown"],
    "no-hosts": "Type the hosts to run on in the Hosts field.",
    "ssh-command": "Set IOTUI_SSH to the ssh command to use.",
    "target-path": "Pick a target directory whose real path has no control characters on every host.",
}


class ServiceError(Exception):
    """Something the user must hear about as one sentence (never a traceback)."""


def start_refusal(error: StartError) -> str:
    """The core's sentence, with what to do in the app's terms where it has its own."""
    if error.code == "hosts-refused":
        advice = REMOTE_ADVICE.get(error.key or "")
        return f"{error}{' ' + advice if advice else ''} Nothing started on any host."
    if error.code == "refused":
        return with_advice(error, error.key)
    return str(error)


def with_advice(error: Exception, code: str | None) -> str:
    """The core's sentence and, where the app has words for its ``code``, what to do."""
    advice = TARGET_ADVICE.get(code or "")
    return f"{error} {advice}" if advice else str(error)


def lock_refusal(error: RunLockHeld) -> str:
    """The app's sentence when another run holds the machine."""
    return (f"Another run is in progress on this machine: {error.holder.describe()}. "
            "Wait for it to end, then start this one again.")


def index_words(error: HistoryIndexError) -> str:
    """The app's sentence when the history index file cannot be used."""
    if error.code == "busy":
        return "The History index is busy (another iotui is writing it); press ctrl+r in a moment to try again."
    if error.code == "full":
        return f"The disk holding {error.path.parent} is full; free some space, then press ctrl+r."
    return f"The History index {error.path} cannot be used ({error.detail}); remove it, then press ctrl+r."
