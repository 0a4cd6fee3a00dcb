"""fio's lists of files: ``filename=a:b`` and ``directory=x:y`` split as fio splits them.

fio separates the names of a list with ':' and reads '\\:' as a colon inside a name. The
special files a job may name outside iotui's private test directory are listed here once.
"""

from __future__ import annotations

import re

# The files a job may name outside the private test directory: writing there destroys nothing.
SPECIAL_FILES = ("/dev/null", "/dev/zero")
_SEPARATOR = re.compile(r"(?<!\\):")


def file_list_parts(value: str) -> list[str]:
    """Each name of a ':' list, stripped (empty ones kept: ``a::b`` has an empty name)."""
    return [part.strip() for part in _SEPARATOR.split(value)]
