"""Text from outside, made safe to show: no control characters, no terminal escape sequences.

A remote host's pre-flight facts, its fio's messages and job names, host names and imported
names reach the terminal (the headless command's output, the app) and the record. An escape
sequence in one of them could set the terminal's title, move the cursor over figures, or
answer back into the input (``ESC [ 21 t``); a bidirectional override could show a name
reversed. :func:`terminal_safe` removes whole sequences (CSI, OSC, DCS and the other string
commands, two-byte escapes, 8-bit C1 controls) and then every remaining control character, so
what is left is printable text. It is the one function for this: every channel uses it.
"""

from __future__ import annotations

import re

# ESC [ ... final; ESC ] ... (BEL or ST); ESC P/X/^/_ ... ST; ESC and one byte; their 8-bit forms.
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"
    r"|(?:\x1b[\]PX^_]|[\x9d\x90\x98\x9e\x9f])[^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[ -/]*[0-~]?"
)
# C0 and C1 controls, DEL, and the bidirectional embedding, override and isolate characters.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# Printable ASCII, tab and line feed: ASCII text of only these has nothing to remove but tabs
# (and line feeds without ``keep_newlines``).
_PLAIN_ASCII = bytes(range(0x20, 0x7F)) + b"\t\n"


def _plain_ascii(text: str) -> bool:
    """Whether ``text`` is ASCII without a control character other than tab and line feed.

    A whole fio report (tens of MB) is checked this way in a fraction of the regular
    expressions' time: ``bytes.translate`` deletes the allowed bytes in one C loop."""
    return text.isascii() and not text.encode("ascii").translate(None, _PLAIN_ASCII)


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` without escape sequences or control characters; a tab becomes a space.

    Without ``keep_newlines`` a line break becomes a space as well (one line of text stays one).
    """
    if text.isprintable():  # no control, format (bidirectional) or separator character: nothing to remove
        return text
    if _plain_ascii(text):  # a report's lines: only tabs and line breaks to mend
        text = text.replace("\t", " ")
        return text if keep_newlines else text.replace("\n", " ")
    text = _SEQUENCE.sub("", text)
    text = text.replace("\t", " ")
    if keep_newlines:
        text = text.replace("\r\n", "\n")  # a lone carriage return (a line drawn over) goes below
    else:
        text = text.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    return _CONTROL.sub("", text)


def strip_document(value: object) -> object:
    """A parsed JSON document with :func:`terminal_safe` applied to every string (and key), no recursion."""
    root: list[object] = [value]
    # Containers still to walk, each with the slot that holds it: json+ documents have about a
    # million values, mostly numbers under digit keys, so those are looked at in place, never stacked.
    stack: list[tuple[object, object]] = [(root, 0)]
    while stack:
        container, slot = stack.pop()
        item = container[slot]  # type: ignore[index]
        if isinstance(item, dict) and not _printable_keys(item):
            item = {terminal_safe(k) if isinstance(k, str) else k: v for k, v in item.items()}
            container[slot] = item  # type: ignore[index]
        if isinstance(item, (dict, list)):
            members = item.items() if isinstance(item, dict) else enumerate(item)
            for key, member in members:  # a value replaced in place: no slot added or removed
                kind = type(member)
                if kind is int or kind is float:
                    continue
                if isinstance(member, str):
                    if not member.isprintable():
                        item[key] = terminal_safe(member)
                elif isinstance(member, (dict, list)):
                    stack.append((item, key))
        elif isinstance(item, str):
            container[slot] = terminal_safe(item)  # type: ignore[index]
    return root[0]


def _printable_keys(table: dict) -> bool:
    """Whether every key is a printable string (JSON's keys are strings; any other is looked at)."""
    try:
        return all(map(str.isprintable, table))
    except TypeError:  # a key that is not a string: keep it, clean the others
        return False
