"""fio refusing its own options: read from what it printed, and what it accepts, from fio itself.

fio reads every option before any job starts; a value it cannot read (``direct=maybe``,
``runtime=abc``, ``rwmixread=200``, ``verify=nosuch``) ends it with exit code 1, no status
document, and lines such as::

    rwmixread: max value out of range: 200 (100 max)
    fio: failed parsing rwmixread=200
    fio: job quick dropped

and, for an option with a list of words, ``valid values:`` on standard output. Nothing ran, so
there is nothing to record. :func:`find_parse_refusal` reads those lines into a
:class:`ParseRefusal`; :func:`accepted_values` words what fio accepts for the option from its own
``--cmdhelp=OPTION`` (its type, range and valid values), asked only once fio has refused.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from typing import Iterable

_FAILED_PARSING = re.compile(r"^fio: failed parsing (?P<option>[A-Za-z0-9_]+)=(?P<value>.*)$")
_BAD_OPTION = re.compile(r"^Bad option <(?P<given>.*)>$")
_DROPPED = re.compile(r"^fio: job .* dropped$")
# fio's own reason, printed before "failed parsing": "rwmixread: max value out of range: 200 (100 max)".
_OPTION_PREFIX = re.compile(r"^(?:fio: )?(?:[A-Za-z0-9_]+: )?")
_SUGGESTION = re.compile(r"^Did you mean ")
_VALID_VALUE = re.compile(r"^\s*(?:valid values)?\s*:\s*(?P<value>\S+)")
CMDHELP_TIMEOUT_S = 5.0
# fio's words for "no limit" at the top of a range (an unsigned -1).
_NO_MAX = {"-1", "4294967295", "18446744073709551615"}


@dataclass(frozen=True)
class ParseRefusal:
    """fio refused an option before any job started: which one (None where fio did not say), the
    value given, fio's own reason where it printed one, and what fio accepts where known."""

    option: str | None
    value: str | None
    reason: str | None = None
    accepted: str | None = None

    def sentence(self) -> str:
        """One sentence: the option, what fio accepts (or its reason), and that nothing was recorded."""
        what = f"{self.option}={self.value}" if self.option is not None else "its options"
        if self.accepted and self.option is not None:
            return (f"fio refused {what} before any job started, so nothing ran and no record was saved; "
                    f"{self.option} takes {self.accepted}.")
        return (f"fio refused {what} before any job started{f' ({self.reason})' if self.reason else ''}, so nothing "
                "ran and no record was saved; correct it and run again.")


def find_parse_refusal(stderr_lines: Iterable[str], stdout_lines: Iterable[str] = ()) -> ParseRefusal | None:
    """The refusal fio printed while reading its options, or None where it printed none."""
    errors = [line.strip() for line in stderr_lines]
    option = value = reason = None
    found = False
    for line in errors:
        failed = _FAILED_PARSING.match(line)
        if failed and option is None:
            option, value, found = failed["option"], failed["value"], True
            continue
        bad = _BAD_OPTION.match(line)
        if bad and option is None:
            given = bad["given"]
            option, _, value = given.partition("=") if "=" in given else (given, "", "")
            reason, found = "fio has no such option", True
            continue
        if _DROPPED.match(line):
            found = True
            continue
        if line and reason is None and not _SUGGESTION.match(line):
            reason = _OPTION_PREFIX.sub("", line, count=1)
    if not found:
        return None
    words = valid_values(stdout_lines)
    accepted = f"one of {', '.join(words)}" if words else None
    return ParseRefusal(option, value, reason, accepted)


def valid_values(lines: Iterable[str]) -> list[str]:
    """The words of a ``valid values:`` list as fio prints it (``--cmdhelp`` or a refusal)."""
    words: list[str] = []
    listing = False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("valid values:"):
            listing = True
        elif not stripped.startswith(":"):
            listing = False
        if listing:
            found = _VALID_VALUE.match(stripped)
            if found:
                words.append(found["value"])
    return words


def accepted_from_cmdhelp(text: str) -> str | None:
    """What fio accepts for an option, in words, from its ``--cmdhelp=OPTION`` text; None where it does not say."""
    lines = text.splitlines()
    words = valid_values(lines)
    if words:
        return f"one of {', '.join(words)}"
    found_type = next((line.split(":", 1)[1].strip() for line in lines if line.strip().startswith("type:")), "")
    found_range = next((line.split(":", 1)[1].strip() for line in lines if line.strip().startswith("range:")), "")
    limits = dict(part.split("=", 1) for part in found_range.replace(",", " ").split() if "=" in part)
    if "boolean" in found_type:
        return "0 or 1" + (", or no value" if found_type.startswith("empty") else "")
    if "time postfix" in found_type:
        return "a time such as 10s, 500ms or 2m, a bare number being seconds"
    if found_type.startswith("integer value"):
        low, high = limits.get("min"), limits.get("max")
        if low is not None and high is not None and high not in _NO_MAX:
            return f"a whole number from {low} to {high}"
        if low is not None:
            return f"a whole number of {low} or more, such as 100 or 4k"
        return "a whole number"
    return None


async def accepted_values(fio: str, option: str) -> str | None:
    """What the fio at ``fio`` accepts for ``option``, asked with ``--cmdhelp``; None where it cannot say."""
    try:
        process = await asyncio.create_subprocess_exec(
            fio, f"--cmdhelp={option}", stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
            stdin=asyncio.subprocess.DEVNULL,
        )
    except OSError:
        return None
    try:
        output, _ = await asyncio.wait_for(process.communicate(), CMDHELP_TIMEOUT_S)
    except asyncio.TimeoutError:
        process.kill()
        await process.wait()
        return None
    return accepted_from_cmdhelp(output.decode("utf-8", "replace"))
