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


def terminal_safe(text: str, *, keep_newlines: bool = False) -> str:
    """``text`` without escape sequences or control characters; a tab becomes a space.

    Without ``keep_newlines`` a line break becomes a space as well (one line of text stays one).
    """
    if text.isprintable():  # no control, format (bidirectional) or separator character: nothing to remove
        return text
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
    stack: list[tuple[object, object]] = [(root, 0)]
    while stack:
        container, key = stack.pop()
        item = container[key]  # type: ignore[index]
        if isinstance(item, str):
            container[key] = terminal_safe(item)  # type: ignore[index]
        elif isinstance(item, dict):
            cleaned = {terminal_safe(k) if isinstance(k, str) else k: v for k, v in item.items()}
            container[key] = cleaned  # type: ignore[index]
            stack.extend((cleaned, k) for k in cleaned)
        elif isinstance(item, list):
            stack.extend((item, index) for index in range(len(item)))
    return root[0]
