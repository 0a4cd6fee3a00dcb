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

import json
from dataclasses import dataclass
from typing import Union

# A document larger than this is not a status document; refusing it bounds
# memory when a broken fio prints an opening brace and then never closes it.
MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
# Longest plain line kept whole; longer lines are cut (fio's are short).
MAX_TEXT_LINE_BYTES = 64 * 1024


@dataclass(frozen=True)
class FioDocument:
    """One complete, parsed fio JSON document."""

    doc: dict
    size_bytes: int


@dataclass(frozen=True)
class FioText:
    """A line of fio's stdout that is not part of a JSON document."""

    line: str


StatusItem = Union[FioDocument, FioText]


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace")


class StatusSplitter:
    """Feed bytes with :meth:`feed`; call :meth:`close` when the stream ends."""

    def __init__(self) -> None:
        self._partial_line = bytearray()
        self._doc_lines: list[bytes] = []
        self._doc_bytes = 0
        self._in_document = False

    def feed(self, data: bytes) -> list[StatusItem]:
        items: list[StatusItem] = []
        if not data:
            return items
        self._partial_line += data
        start = 0
        buffer = self._partial_line
        while True:
            newline_at = buffer.find(b"\n", start)
            if newline_at < 0:
                break
            self._take_line(bytes(buffer[start:newline_at]), items)
            start = newline_at + 1
        if start:
            del buffer[:start]
        if not self._in_document and len(buffer) > MAX_TEXT_LINE_BYTES:
            # A runaway line with no newline: keep memory bounded.
            items.append(FioText(_decode(bytes(buffer[:MAX_TEXT_LINE_BYTES]))))
            buffer.clear()
        return items

    def close(self) -> list[StatusItem]:
        """Flush what is left: a last unterminated line, a truncated document."""
        items: list[StatusItem] = []
        if self._partial_line:
            self._take_line(bytes(self._partial_line), items)
            self._partial_line.clear()
        if self._in_document:
            self._abandon_document(items)
        return items

    def _take_line(self, line: bytes, items: list[StatusItem]) -> None:
        stripped = line.rstrip(b"\r")
        if stripped == b"{":
            if self._in_document:
                # A new document began before the last one closed: the last
                # one was truncated (fio killed mid-write, interleaving).
                self._abandon_document(items)
            self._in_document = True
            self._doc_lines = [stripped]
            self._doc_bytes = 1
            return
        if not self._in_document:
            if stripped.strip():
                items.append(FioText(_decode(stripped[:MAX_TEXT_LINE_BYTES])))
            return
        self._doc_lines.append(stripped)
        self._doc_bytes += len(stripped) + 1
        if stripped == b"}":
            self._finish_document(items)
        elif self._doc_bytes > MAX_DOCUMENT_BYTES:
            self._abandon_document(items)

    def _finish_document(self, items: list[StatusItem]) -> None:
        raw = b"\n".join(self._doc_lines)
        self._reset_document()
        try:
            doc = json.loads(raw)
        except ValueError:
            doc = None
        if isinstance(doc, dict):
            items.append(FioDocument(doc=doc, size_bytes=len(raw)))
            return
        # Braces balanced by line but not valid JSON: keep it as text lines.
        for text_line in raw.splitlines():
            if text_line.strip():
                items.append(FioText(_decode(text_line[:MAX_TEXT_LINE_BYTES])))

    def _abandon_document(self, items: list[StatusItem]) -> None:
        line_count = len(self._doc_lines)
        self._reset_document()
        items.append(
            FioText(f"iotui: dropped an incomplete fio status document ({line_count} lines)")
        )

    def _reset_document(self) -> None:
        self._in_document = False
        self._doc_lines = []
        self._doc_bytes = 0
