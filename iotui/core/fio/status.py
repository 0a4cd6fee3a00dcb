"""Incremental splitter: bytes from fio's stdout in, parsed status documents out.

fio with ``--output-format=json+ --status-interval=N`` prints one pretty-printed
JSON document per interval and a final one at exit. Each document starts with a
line that is exactly ``{`` and ends with a line that is exactly ``}``. Between
and around them fio may print plain lines (``fio: terminating on signal 2``,
``note: ...``). The splitter is fed bytes split anywhere and hands back
complete documents and the plain lines, in order. It never raises on bad input:
garbage becomes text items, so nothing fio said is lost.
"""

from __future__ import annotations

import gc
import json
import re
from dataclasses import dataclass
from typing import Callable, TypeVar

from iotui.core.fio.live_decode import decode_live
from iotui.core.heap import age_new_objects

try:  # parses fio's large documents 2-4x faster than the standard library; optional
    import orjson
except ImportError:  # pragma: no cover - depends on what is installed
    orjson = None  # type: ignore[assignment]


T = TypeVar("T")

# A line that begins with "}": fio indents every nested brace, so only a document's own closing
# line does. Over a 1,024-job document's 8 MB the regular expression's search for its literal
# took 4.5 ms where ``bytearray.find(b"\n}")`` took 9 (bench/README.md, "Finding the closing line").
_CLOSING_LINE = re.compile(rb"\n\}")


def parse_json(raw: bytes | bytearray | memoryview) -> object:
    """One status document, parsed once: with orjson when it is installed, else the
    standard library. What orjson refuses but the standard library reads (NaN, an
    integer beyond 64 bits) is read by the standard library, so no number fio
    printed is lost either way; invalid JSON raises ValueError.

    A large document (hundreds of jobs without group_reporting) becomes some
    hundred thousand objects at once; the cyclic garbage collector would walk the
    whole heap several times while they are made, though none of them can be
    garbage yet, so it is paused for that one parse.
    """
    return _collector_paused(raw, _parse_whole)


def _parse_whole(raw: bytes | bytearray | memoryview) -> object:
    if orjson is not None:
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(bytes(raw) if isinstance(raw, memoryview) else raw)


def _collector_paused(raw: bytes | bytearray | memoryview, parse: Callable[[bytes | bytearray | memoryview], T]) -> T:
    """``parse(raw)``, with the garbage collector paused while a large document becomes objects."""
    pause_gc = len(raw) >= LARGE_DOCUMENT_BYTES and gc.isenabled()
    if pause_gc:
        gc.disable()
    try:
        return parse(raw)
    finally:
        if pause_gc:
            # The new objects leave the young generations at once (two list splices):
            # otherwise the next young collection walks all of them, and the next one
            # again. They are freed by reference counting when the document is dropped.
            age_new_objects()
            gc.enable()


# From this size up a document's parse pauses the garbage collector (a few jobs' document is far smaller).
LARGE_DOCUMENT_BYTES = 1024 * 1024


# A document larger than this is not a status document; refusing it bounds
# memory when a broken fio prints an opening brace and then never closes it.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
# Longest plain line kept whole; longer lines are cut (fio's are short).
MAX_TEXT_LINE_BYTES = 64 * 1024


@dataclass(frozen=True)
class FioDocument:
    """One complete, parsed fio JSON document.

    ``raw``: the document's bytes where ``doc`` holds only the live fields of a large
    document (:mod:`iotui.core.fio.live_decode`); :meth:`whole` parses them whole.
    """

    doc: dict
    size_bytes: int
    raw: bytes | bytearray | None = None

    def whole(self) -> dict:
        """The document with every field fio printed (parsed now where only the live ones were)."""
        if self.raw is None:
            return self.doc
        doc = parse_json(self.raw)
        return doc if isinstance(doc, dict) else self.doc


@dataclass(frozen=True)
class FioText:
    """A line of fio's stdout that is not part of a JSON document."""

    line: str


StatusItem = FioDocument | FioText


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


class StatusSplitter:
    """Feed bytes with :meth:`feed`; call :meth:`close` when the stream ends.

    Outside a document the stream is taken line by line (fio prints few such
    lines). Inside one, the end is found with ``bytes.find`` for a line that is
    exactly ``}``, so a 32-job document costs a few C-speed scans instead of a
    Python step per line. fio indents nested braces, so a ``{`` or ``}`` alone
    at the start of a line only ever opens or closes a whole document.
    """

    def __init__(self, *, live: bool = False) -> None:
        # live: a large document is decoded to the fields a live run reads each second (its bytes
        # kept for a whole parse on demand); an import or a remote host's stream parses every field.
        self._live = live
        self._buffer = bytearray()
        self._in_document = False
        # Where to resume looking for the closing line inside the buffer.
        self._scan_from = 0

    def feed(self, data: bytes) -> list[StatusItem]:
        items: list[StatusItem] = []
        if data:
            self._buffer += data
            self._drain(items, at_end=False)
        return items

    def close(self) -> list[StatusItem]:
        """Flush what is left: a last unterminated line, a truncated document."""
        items: list[StatusItem] = []
        self._drain(items, at_end=True)
        if self._in_document:
            self._abandon_document(len(self._buffer), items)
        elif self._buffer:
            self._take_text_line(bytes(self._buffer), items)
        self._buffer.clear()
        return items

    def _drain(self, items: list[StatusItem], *, at_end: bool) -> None:
        while self._buffer:
            if self._in_document:
                if not self._scan_document(items, at_end=at_end):
                    return
                continue
            buffer = self._buffer
            newline_at = buffer.find(b"\n")
            if newline_at < 0:
                if len(buffer) > MAX_TEXT_LINE_BYTES:
                    # A runaway line with no newline: keep memory bounded.
                    self._take_text_line(bytes(buffer[:MAX_TEXT_LINE_BYTES]), items)
                    buffer.clear()
                elif at_end and buffer.rstrip(b"\r") == b"{":
                    self._in_document = True
                    continue
                return
            line = bytes(buffer[:newline_at]).rstrip(b"\r")
            if line == b"{":
                # Keep the opening line in the buffer: the document starts here.
                self._in_document = True
                self._scan_from = 0
                continue
            del buffer[: newline_at + 1]
            self._take_text_line(line, items)

    def _scan_document(self, items: list[StatusItem], *, at_end: bool) -> bool:
        """Look for the document's end; False when more bytes are needed.

        One pass over the new bytes looks for a line that begins with "}" (:data:`_CLOSING_LINE`),
        then checks that the line holds nothing else. A document cut short by a new one ("{" again
        at the start of a line before the "}") is found only when what was read does not parse: see
        :meth:`_take_document`.
        """
        buffer = self._buffer
        while True:
            found = _CLOSING_LINE.search(buffer, self._scan_from)
            if found is None:
                self._scan_from = max(len(buffer) - 1, 0)  # a last "\n" may begin the closing line
                if len(buffer) > MAX_DOCUMENT_BYTES:
                    self._abandon_document(len(buffer), items)
                    return True
                return False
            close_at = found.start()
            after = close_at + 2
            tail = buffer[after : after + 2]
            if (ending := _line_ending(tail)) is not None:
                end = after + ending
            elif not tail or tail == b"\r":
                if not at_end:
                    # The closing brace is the last byte so far: wait for the line's end.
                    self._scan_from = close_at
                    return False
                end = len(buffer)
            else:
                self._scan_from = after  # "}" and more on the line: not the document's end
                continue
            # The document leaves the buffer without being copied: what follows it is (a few KiB).
            self._buffer = bytearray(buffer[end:])
            del buffer[after:]
            self._in_document = False
            self._scan_from = 0
            self._take_document(buffer, items)
            return True

    def _take_document(self, document: bytearray, items: list[StatusItem]) -> None:
        """A document from its "{" line to its "}" line; one cut short by another is dropped first.

        fio indents nested braces, so a "{" alone at the start of a line inside it began a new
        document before this one closed; the text up to it cannot parse. That is looked for only
        when the document does not parse, so a whole document is scanned once.
        """
        if self._finish_document(document, items, quiet=True):
            return
        start = 0
        while (opened_at := _new_document_at(document, start)) is not None:
            items.append(_dropped(_line_count(document, start, opened_at)))
            start = opened_at
        if start:
            document = document[start:]
        self._finish_document(document, items, quiet=False)

    def _take_text_line(self, line: bytes, items: list[StatusItem]) -> None:
        line = line.rstrip(b"\r")
        if line.strip():
            items.append(FioText(_decode(line[:MAX_TEXT_LINE_BYTES])))

    def _finish_document(self, raw: bytes | bytearray, items: list[StatusItem], *, quiet: bool = False) -> bool:
        """Parse one document into ``items``; True when it parsed. Not JSON: its lines become text,
        unless ``quiet`` (the caller looks at it again)."""
        if self._live and len(raw) >= LARGE_DOCUMENT_BYTES and (live := _collector_paused(raw, decode_live)) is not None:
            # Its bytes are kept (the splitter no longer holds them) for a whole parse at the end.
            items.append(FioDocument(doc=live, size_bytes=len(raw), raw=raw))
            return True
        try:
            doc = parse_json(raw)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            items.append(FioDocument(doc=doc, size_bytes=len(raw)))
            return True
        if not quiet:
            # Braces balanced by line but not valid JSON: keep it as text lines.
            for text_line in bytes(raw).splitlines():
                self._take_text_line(text_line, items)
        return False

    def _abandon_document(self, upto: int, items: list[StatusItem]) -> None:
        line_count = _line_count(self._buffer, 0, upto)
        del self._buffer[:upto]
        self._in_document = False
        self._scan_from = 0
        items.append(_dropped(line_count))


def _line_ending(tail: bytes | bytearray) -> int | None:
    """The length of the line ending ``tail`` starts with ("\\n" or "\\r\\n"), None if it starts none."""
    if tail[:1] == b"\n":
        return 1
    return 2 if tail == b"\r\n" else None


def _line_count(buffer: bytearray, start: int, end: int) -> int:
    """Lines in ``buffer[start:end]``, the last one counted whether or not its newline came."""
    newlines = buffer.count(b"\n", start, end)
    return newlines + (1 if end > start and buffer[end - 1] != 0x0A else 0)


def _dropped(line_count: int) -> FioText:
    return FioText(f"iotui: dropped an incomplete fio status document ({line_count} lines)")


def _new_document_at(document: bytearray, start: int) -> int | None:
    """Where the next "{" line after ``start`` begins in ``document`` (a new document), or None."""
    position = start + 1
    while (found := document.find(b"\n{", position)) >= 0:
        # Inside a document that ends with its "}" line, a "{" line has its line's end.
        if _line_ending(document[found + 2 : found + 4]) is not None:
            return found + 1
        position = found + 2
    return None


class LineChunker:
    """Bytes in any pieces -> lines, each cut at MAX_TEXT_LINE_BYTES: a line of any length is bounded.

    asyncio's ``readline`` (and ``async for`` over a stream) raises LimitOverrunError on a line
    over 64 KiB; a line that long from fio or a host must not end the reader, so lines are split here from
    fixed-size reads, and the rest of a long line is dropped up to its end.
    """

    def __init__(self, max_line_bytes: int = MAX_TEXT_LINE_BYTES) -> None:
        self.max_line_bytes = max_line_bytes
        self._pending = bytearray()
        self._cutting = False  # inside a long line whose first part was given already

    def feed(self, data: bytes) -> list[bytes]:
        lines: list[bytes] = []
        start = 0
        while True:
            end = data.find(b"\n", start)
            if end < 0:
                break
            self._take(data[start:end], lines, ended=True)
            start = end + 1
        self._take(data[start:], lines, ended=False)
        return lines

    def _take(self, piece: bytes, lines: list[bytes], *, ended: bool) -> None:
        if not self._cutting:
            room = self.max_line_bytes - len(self._pending)
            self._pending += piece[:room]
            if len(piece) > room:
                lines.append(bytes(self._pending))
                self._pending.clear()
                self._cutting = True
        if ended:
            if not self._cutting:
                lines.append(bytes(self._pending))
            self._pending.clear()
            self._cutting = False

    def close(self) -> list[bytes]:
        rest = [bytes(self._pending)] if self._pending and not self._cutting else []
        self._pending.clear()
        return rest
