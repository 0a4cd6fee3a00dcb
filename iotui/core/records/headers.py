"""A record's header tables without its per-second samples, for listing thousands of records.

History lists a record by its run, target, sections and pressure; parsing its
``[[samples]]`` (and each host's in a multi-host record) is most of the cost
of reading it (a 10-s run's record: about 8 ms whole on the development VM). This reads
the file's text, cuts out the top-level keys it does not list (``samples``,
``hosts`` and ``messages``: arrays of tables at their header lines, or an array
written over lines before the first table, as tomli_w writes them),
and parses and checks the rest exactly as :func:`load_record` does, so every
number listed is the one the file holds, parsed by the same TOML reader. Of a
multi-host record's hosts it reads each entry's own keys (its name), not the
entry's samples and sections.

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


def listed_host_names(text: str) -> list[str] | None:
    """Each top-level ``[[hosts]]`` entry's ``name``, from the entry's own keys (not its samples or sections).

    The entries' keys are parsed together by the same TOML reader; None where an entry has no text
    name or its keys do not parse, so the caller reads the file whole. Call on text that
    :func:`listed_text` could cut.
    """
    if "hosts" not in text:
        return []  # a run on this machine: no second look at its headers
    headers = list(_HEADER.finditer(text))
    entries: list[str] = []
    for index, header in enumerate(headers):
        name = header.group(1)
        if not header.group(0).strip().startswith("[[") or "." in name or _top_name(name) != "hosts":
            continue
        end = headers[index + 1].start() if index + 1 < len(headers) else len(text)
        entries.append("[[hosts]]\n" + _without_root_arrays(text[header.end():end].lstrip("\n")))
    if not entries:
        return []
    try:
        hosts = tomllib.loads("\n".join(entries)).get("hosts")
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    names = [host.get("name") for host in hosts if isinstance(host, dict)] if isinstance(hosts, list) else []
    if len(names) != len(entries) or not all(isinstance(name, str) for name in names):
        return None
    return [str(name) for name in names]


def _names(record: RunRecord) -> list[str]:
    return [str(host.get("name", "")) for host in record.hosts]


def load_record_listing(path: Path) -> tuple[RunRecord, list[str]]:
    """:func:`load_record_headers`, and the names of the record's hosts (none for a run on this machine)."""
    path = Path(path)
    try:
        # The same bounded, non-blocking read as every file from outside (a FIFO, /dev/zero or a
        # huge file named *.toml in the runs directory must not hang or exhaust the index's build).
        text = read_input_file(path, "record").decode("utf-8")
    except (InputFileError, UnicodeDecodeError):
        whole = load_record(path)  # its own sentence for either
        return whole, _names(whole)
    cut = listed_text(text)
    names = listed_host_names(text) if cut is not None else None
    if cut is None or names is None:
        whole = load_record(path)
        return whole, _names(whole)
    try:
        doc = tomllib.loads(cut)
        if record_problem(doc):
            whole = load_record(path)
            return whole, _names(whole)
        record = validate_toml_dict(doc, str(path))
    except (tomllib.TOMLDecodeError, RecordError, TypeError, ValueError, KeyError, AttributeError, RecursionError):
        whole = load_record(path)
        return whole, _names(whole)
    record.path = path
    return record, names


def load_record_headers(path: Path) -> RunRecord:
    """The record with its header tables only (no samples, hosts or messages); RecordError as load_record."""
    return load_record_listing(path)[0]
