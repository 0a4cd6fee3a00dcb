"""What a preset does to its target: whether any of its jobs writes, trims or otherwise changes files."""

from __future__ import annotations

from typing import Iterable, Mapping

_READ_ONLY_RW = {"read", "randread"}
# Engines that change files even when rw says read.
_MODIFYING_ENGINES = {"ftruncate", "falloc", "filecreate", "filedelete", "dircreate", "dirdelete", "e4defrag"}


def is_write_workload(sections: Iterable[Mapping[str, str]]) -> bool:
    """Does any job section (its effective options: ``presets.section_options``) write, trim or
    otherwise change the target?

    rw/readwrite other than read/randread (unknown values count as writes),
    verify and trim options, and engines that change files all count.
    """
    for options in sections:
        rw = options.get("rw", options.get("readwrite", "read")).strip().lower().split(":", 1)[0]
        if rw not in _READ_ONLY_RW:
            return True
        if options.get("ioengine", "") in _MODIFYING_ENGINES:
            return True
        if str(options.get("verify", "0")).strip().lower() not in ("0", "none", "false", ""):
            return True
        if any(key in options for key in ("trim_percentage", "trim_backlog", "trim_verify_zero")):
            return True
    return False
