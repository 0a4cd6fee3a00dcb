"""A large status document as the live run reads it: only the fields the per-second pipeline uses.

A document of 1,024 jobs without ``group_reporting`` is 8 MB of JSON and some 200,000
objects when parsed whole, though each second the run reads only the counters below (the
jobs' group, each direction's I/Os, bytes, runtime and completion latency with its bins).
With msgspec installed (``pip install 'iotui[fast]'``), such a document is decoded into
plain dicts holding just those fields: the rest is skipped without being made. The bins'
keys stay strings as fio writes them (msgspec reuses one object for a repeated short key, so
1,024 jobs' 100,000 keys cost less than as integers) and become integers once, after the
jobs are merged, as a whole document's do. The result reads the same as the whole document for every
reader of a live second (``core/fio/intervals.py``, ``section_seconds.py``,
``runs/pauses.py``). fio's final report is parsed whole from its kept bytes once the run
ends (:meth:`iotui.core.fio.status.FioDocument.whole`), since the record keeps everything.

Anything that does not fit these types (a float where an integer is expected, NaN, a fio
that prints a field another way) is not forced: the caller parses the document whole.
"""

from __future__ import annotations

from typing import TypedDict, cast

try:  # optional, as orjson is: without it every document is parsed whole
    import msgspec
except ImportError:  # pragma: no cover - depends on what is installed
    msgspec = None  # type: ignore[assignment]

Number = int | float


class _Latency(TypedDict, total=False):
    N: Number
    mean: Number
    min: Number
    max: Number
    bins: dict[str, int]


class _Direction(TypedDict, total=False):
    total_ios: Number
    io_bytes: Number
    runtime: Number
    clat_ns: _Latency


class _Job(TypedDict, total=False):
    jobname: str
    groupid: Number
    read: _Direction
    write: _Direction
    trim: _Direction
    mixed: _Direction


class _Document(TypedDict, total=False):
    timestamp_ms: Number
    jobs: list[_Job]


_DECODER = msgspec.json.Decoder(_Document) if msgspec is not None else None


def available() -> bool:
    """Whether the live decode can be used here (msgspec is installed)."""
    return _DECODER is not None


def decode_live(raw: bytes | bytearray | memoryview) -> dict | None:
    """The document's live fields as plain dicts; None where msgspec is missing or the document
    does not fit (the caller then parses it whole)."""
    if _DECODER is None:
        return None
    try:
        doc = _DECODER.decode(raw)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    return cast(dict, doc)  # a _Document is a plain dict; the decoder made nothing else
