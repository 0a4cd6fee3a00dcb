"""Finding fio's JSON in a file: whole documents, a status-interval stream, or compact JSON
among other text; the lines that are not JSON are kept for the text reader."""

from __future__ import annotations

import json
from typing import Any

from iotui.core.fio.status import FioDocument, FioText, StatusSplitter


def split_documents(text: str) -> tuple[list[Any], list[str]]:
    """JSON objects in the text, in order, and the lines that are not JSON."""
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            whole = json.loads(stripped)
        except (ValueError, RecursionError):
            whole = None
        if isinstance(whole, dict):
            return [whole], []
        if isinstance(whole, list) and whole and all(isinstance(item, dict) for item in whole):
            return list(whole), []
    splitter = StatusSplitter()
    try:
        items = splitter.feed(text.encode("utf-8", errors="replace")) + splitter.close()
    except RecursionError:
        items = []
    documents = [item.doc for item in items if isinstance(item, FioDocument)]
    lines = [item.line for item in items if isinstance(item, FioText)]
    if documents:
        return documents, lines
    return _scan_compact_json(text)


def _scan_compact_json(text: str) -> tuple[list[Any], list[str]]:
    """Objects that do not sit on their own lines (compact JSON, one per line)."""
    decoder = json.JSONDecoder()
    documents: list[Any] = []
    lines: list[str] = []
    position = 0
    while position < len(text):
        start = text.find("{", position)
        if start < 0:
            break
        try:
            value, end = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            position = start + 1
            continue
        if isinstance(value, dict):
            documents.append(value)
            lines.extend(line for line in text[position:start].splitlines() if line.strip())
            position = end
        else:
            position = start + 1
    if documents:
        lines.extend(line for line in text[position:].splitlines() if line.strip())
    return documents, lines
