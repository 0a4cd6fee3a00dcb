"""A record's header tables without its per-second samples, for listing thousands of records.

History lists a record by its run, target, sections and pressure; parsing its
``[[samples]]`` (and each host's in a multi-host record) is most of the cost
of reading it (a 10-s run's record: about 8 ms whole on the development VM). This reads
the file's text, cuts out the top-level keys it does not list (``samples``,
``hosts`` and ``messages``: arrays of tables at their header lines, or an array
written over lines before the first table, as tomli_w writes them),
and parses and checks the rest exactly as :func:`load_record` does, so every
number listed is the one the file holds, parsed by the same TOML reader.

The cut is made only where it is safe: a file with a multi-line string (where a
line could look like a header without being one) or of schema 1 (migrated from
its own layout) is read whole. A file that the cut text does not pass is read
whole too, so its refusal is the same sentence as on opening it.
"""

from __future__ import annotations

import re
from pathlib import Path

from iotui.core.input_files import InputFileError, read_input_file
from iotui.core.records.record import RunRecord
from iotui.core.records.files import load_record, validate_toml_dict
from iotui.core.records.guard import record_problem
from iotui.core.records.schema import RecordError
from iotui.core.toml_reader import tomllib

# Top-level tables a listing never reads: the bulk of a record.
UNLISTED_TABLES = frozenset({"samples", "hosts", "messages"})
_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*([^\]\n]+?)[ \t]*\]\]?[ \t]*(?:#[^\n]*)?$", re.MULTILINE)
# A top-level array written over lines (as tomli_w writes the samples: ``samples = [``, one
# indented inline table a line, ``]`` alone at the start of a line).
_ROOT_ARRAY = re.compile(r"^([A-Za-z_]+)[ \t]*=[ \t]*\[[ \t]*\n.*?^\][ \t]*\n", re.MULTILINE | re.DOTALL)
_SCHEMA_2_OR_LATER = re.compile(r"^schema[ \t]*=[ \t]*([2-9]|[1-9][0-9]+)[ \t]*(?:#[^\n]*)?$", re.MULTILINE)


def _top_name(header: str) -> str:
    first = header.split(".", 1)[0].strip()
    return first[1:-1] if len(first) >= 2 and first[0] == first[-1] and first[0] in "\"'" else first


def listed_text(text: str) -> str | None:
    """The record's text without its unlisted tables; None where cutting is not safe."""
    if '"""' in text or "'''" in text or not _SCHEMA_2_OR_LATER.search(text):
        return None
    kept: list[str] = []
    position = 0
    keeping = True
    for header in _HEADER.finditer(text):
        if keeping:
            part = text[position:header.start()]
            kept.append(_without_root_arrays(part) if position == 0 else part)
        keeping = _top_name(header.group(1)) not in UNLISTED_TABLES
        position = header.start()
    if keeping:
        part = text[position:]
        kept.append(_without_root_arrays(part) if position == 0 else part)
    return "".join(kept)


def _without_root_arrays(root: str) -> str:
    """The keys before the first table, less the unlisted arrays among them."""
    return _ROOT_ARRAY.sub(lambda found: "" if found.group(1) in UNLISTED_TABLES else found.group(0), root)


def load_record_headers(path: Path) -> RunRecord:
    """The record with its header tables only (no samples, hosts or messages); RecordError as load_record."""
    path = Path(path)
    try:
        # read_input_file, not read_bytes: a FIFO named *.toml in the runs directory blocked
        # `iotui history` and History's index for good in open(); it is refused at once instead.
        text = read_input_file(path, "record").decode("utf-8")
    except (InputFileError, UnicodeDecodeError):
        return load_record(path)  # its own sentence for either
    cut = listed_text(text)
    if cut is None:
        return load_record(path)
    try:
        doc = tomllib.loads(cut)
        if record_problem(doc):
            return load_record(path)
        record = validate_toml_dict(doc, str(path))
    except (tomllib.TOMLDecodeError, RecordError, TypeError, ValueError, KeyError, AttributeError, RecursionError):
        return load_record(path)
    record.path = path
    return record
