"""fio's option names as the installed fio reads them, per channel.

fio reads an option name two ways:

* its command line (``getopt_long_only``) takes an exact name or alias, else
  any prefix that matches exactly one entry of its table (a name listed twice
  makes its prefixes ambiguous); an engine's own options join the table only
  once ``--ioengine`` named that engine;
* its job-file parser takes exact names and aliases only (``ioeng=null`` is
  "Bad option"), engine options only where the section's engine has them.

iotui resolves every name the way the channel that carries it would, then
checks and passes only the canonical name, so no abbreviation reaches fio.
The table comes from the fio that will run (``--cmdhelp``, ``--enghelp`` and
the candidates fio lists for an ambiguous one-letter prefix), cached per fio
version; the one for fio 3.33 ships with iotui for tests and as a fallback.
"""

from __future__ import annotations

import json
import os
import re
import string
import subprocess
from dataclasses import dataclass, field
from difflib import get_close_matches
from pathlib import Path
from typing import Iterable, Literal, Mapping

from iotui.core.safe_files import write_file

Channel = Literal["command-line", "job-file"]
COMMAND_LINE: Channel = "command-line"
JOB_FILE: Channel = "job-file"

SHIPPED_TABLE = Path(__file__).with_name("data") / "fio-3.33-options.json"
TABLE_FORMAT = 1


_CHANNEL_WORDS = {COMMAND_LINE: "command line", JOB_FILE: "job-file parser"}


class OptionNameError(Exception):
    """A name fio would not read as exactly one option.

    ``code`` is ``unknown-option`` or ``ambiguous-option``; ``name`` the name
    as given; ``candidates`` the options fio could have meant.
    """

    def __init__(self, code: str, name: str, candidates: Iterable[str], channel: Channel) -> None:
        self.code = code
        self.name = name
        self.candidates = tuple(candidates)
        self.channel = channel
        super().__init__(self.reason())

    def reason(self) -> str:
        listed = ", ".join(f"'{name}'" for name in self.candidates)
        if self.code == "ambiguous-option":
            return f"fio's {_CHANNEL_WORDS[self.channel]} would read it as any of {listed}, so it is ambiguous"
        where = "fio's job-file parser takes exact names only" if self.channel == JOB_FILE else "fio has no such option"
        if listed:
            return f"{where} (did you mean {listed}?)"
        return where


@dataclass
class OptionTable:
    """Every option name of one fio version.

    ``options``: canonical job option names, in fio's order. ``aliases``: alias
    -> canonical name. ``global_names``: fio's own command-line options that are
    not job options (``output``, ``eta``...). ``getopt_names``: the command
    line's table in order, duplicates kept (they make a prefix ambiguous).
    ``engine_options``: engine -> its own options.
    """

    version: str
    options: list[str]
    aliases: dict[str, str]
    global_names: list[str]
    getopt_names: list[str]
    engine_options: dict[str, list[str]] = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "format": TABLE_FORMAT,
            "version": self.version,
            "options": self.options,
            "aliases": self.aliases,
            "global_names": self.global_names,
            "getopt_names": self.getopt_names,
            "engine_options": self.engine_options,
        }

    @classmethod
    def from_json(cls, doc: Mapping) -> OptionTable:
        if doc.get("format") != TABLE_FORMAT:
            raise ValueError("unknown table format")
        return cls(
            version=str(doc["version"]),
            options=[str(name) for name in doc["options"]],
            aliases={str(k): str(v) for k, v in doc["aliases"].items()},
            global_names=[str(name) for name in doc["global_names"]],
            getopt_names=[str(name) for name in doc["getopt_names"]],
            engine_options={str(k): [str(n) for n in v] for k, v in doc["engine_options"].items()},
        )

    # -- what a name means ---------------------------------------------------
    def engines(self) -> list[str]:
        return list(self.engine_options)

    def engines_with(self, name: str) -> list[str]:
        """The engines that have ``name`` as an option of their own."""
        return [engine for engine, names in self.engine_options.items() if name in names]

    def _engine_names(self, engines: Iterable[str]) -> list[str]:
        names: list[str] = []
        for engine in engines:
            for name in self.engine_options.get(engine, ()):
                if name not in names:
                    names.append(name)
        return names

    def _exact(self, name: str, engine_names: list[str]) -> str | None:
        if name in self.options or name in self.global_names or name in engine_names:
            return name
        return self.aliases.get(name)

    def resolve(self, name: str, channel: Channel, engines: Iterable[str] = ()) -> str:
        """The canonical option fio reads ``name`` as, through ``channel``, else OptionNameError.

        ``engines``: the I/O engines in effect where the name is set (their own
        options count as names there, as in fio).
        """
        engine_names = self._engine_names(engines)
        exact = self._exact(name, engine_names)
        if exact is not None:
            return exact
        if channel == COMMAND_LINE and name:
            matches = [entry for entry in self.getopt_names + engine_names if entry.startswith(name)]
            if len(matches) == 1:
                return self._exact(matches[0], engine_names) or matches[0]
            if len(matches) > 1:
                raise OptionNameError("ambiguous-option", name, list(dict.fromkeys(matches)), channel)
        every = self.options + list(self.aliases) + self.global_names + self._engine_names(self.engines())
        close = get_close_matches(name, every, n=3, cutoff=0.75)
        if channel == COMMAND_LINE:
            # Prefixes fio would take once an engine of its own is set.
            close = list(dict.fromkeys(close + [n for n in self._engine_names(self.engines()) if n.startswith(name)]))
        raise OptionNameError("unknown-option", name, close, channel)


# -- building the table from the installed fio -----------------------------------------

_HELP_LINE = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*:")
_AMBIGUOUS = re.compile(r"possibilities:((?:\s+'--[^']+')+)")


def _fio(fio_binary: str, *args: str) -> str:
    completed = subprocess.run(
        [fio_binary, *args], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
        cwd=os.path.sep,
    )
    return completed.stdout + completed.stderr


def _help_names(text: str) -> list[str]:
    names = []
    for line in text.splitlines():
        match = _HELP_LINE.match(line)
        if match and "has no options" not in line:
            names.append(match.group(1))
    return names


def build_table(fio_binary: str) -> OptionTable:
    """Ask the installed fio for its option table (a few hundred quick fio calls)."""
    version = _fio(fio_binary, "--version").strip().splitlines()[0]
    options = _help_names(_fio(fio_binary, "--cmdhelp=all"))
    aliases: dict[str, str] = {}
    for name in options:
        for line in _fio(fio_binary, f"--cmdhelp={name}").splitlines():
            key, _, value = line.strip().partition(":")
            if key.strip() == "alias" and value.strip():
                aliases[value.strip()] = name
    # The command line's table, in order and with duplicates: the candidates fio
    # lists for each one-letter prefix (a letter with one match names it).
    getopt_names: list[str] = []
    known = set(options) | set(aliases)
    for letter in string.ascii_lowercase + string.digits:
        text = _fio(fio_binary, "--parse-only", f"--{letter}=1")
        match = _AMBIGUOUS.search(text)
        if match:
            getopt_names += re.findall(r"'--([^']+)'", match.group(1))
        else:
            getopt_names += sorted(name for name in known if name.startswith(letter))
    global_names = [name for name in dict.fromkeys(getopt_names) if name not in known]
    engine_list = [line.strip() for line in _fio(fio_binary, "--enghelp").splitlines()[1:] if line.strip()]
    engine_options = {engine: _help_names(_fio(fio_binary, f"--enghelp={engine}")) for engine in engine_list}
    return OptionTable(version, options, aliases, global_names, getopt_names, engine_options)


def _cache_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    cache_home = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache_home).expanduser() / "iotui"


def shipped_table() -> OptionTable:
    return OptionTable.from_json(json.loads(SHIPPED_TABLE.read_text(encoding="utf-8")))


_LOADED: dict[str, OptionTable] = {}
VERSIONS_FILE = "fio-versions.json"


def _binary_identity(fio_binary: str) -> list[int] | None:
    """What changes when the fio binary is replaced (an upgrade, a rebuild): its inode, size, mtime."""
    try:
        facts = os.stat(fio_binary)
    except OSError:
        return None
    return [facts.st_dev, facts.st_ino, facts.st_size, facts.st_mtime_ns]


def installed_version(fio_binary: str) -> str:
    """``fio --version`` of this binary, remembered until the binary changes.

    Starting fio costs a process start the app's first paint would wait for
    (the presets are checked with this fio's option table before Home shows
    them); the answer is kept per binary path with the binary's identity, so a
    new fio at the same path is asked again. Raises OSError/SubprocessError/
    IndexError as ``_fio`` does when fio cannot answer.
    """
    path = os.path.realpath(fio_binary)
    identity = _binary_identity(path)
    cache_file = _cache_dir() / VERSIONS_FILE
    try:
        known = json.loads(cache_file.read_text(encoding="utf-8"))
        entry = known.get(path) if isinstance(known, dict) else None
    except (OSError, ValueError):
        known, entry = {}, None
    if identity is not None and isinstance(entry, dict) and entry.get("identity") == identity:
        version = entry.get("version")
        if isinstance(version, str) and version:
            return version
    version = _fio(fio_binary, "--version").strip().splitlines()[0]
    if identity is not None:
        known = known if isinstance(known, dict) else {}
        known[path] = {"identity": identity, "version": version}
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            write_file(cache_file, json.dumps(known, indent=1).encode("utf-8"))  # never half a file
        except OSError:
            pass  # an unwritable cache only means asking fio again next time
    return version


def table_for(fio_binary: str | None, version: str | None = None) -> OptionTable:
    """The option table of this fio: from the cache, else built and cached, else the shipped one."""
    if fio_binary is None:
        return _LOADED.setdefault("shipped", shipped_table())
    try:
        version = version or installed_version(fio_binary)
    except (OSError, subprocess.SubprocessError, IndexError):
        return table_for(None)
    shipped = _LOADED.setdefault("shipped", shipped_table())
    if version == shipped.version:
        return shipped
    if version in _LOADED:
        return _LOADED[version]
    cache_file = _cache_dir() / f"fio-options-{re.sub(r'[^A-Za-z0-9_.-]', '_', version)}.json"
    try:
        table = OptionTable.from_json(json.loads(cache_file.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        try:
            table = build_table(fio_binary)
        except (OSError, subprocess.SubprocessError, IndexError):
            return shipped
        try:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            write_file(cache_file, json.dumps(table.to_json(), indent=1).encode("utf-8"))
        except OSError:
            pass
    _LOADED[version] = table
    return table


_DEFAULT: OptionTable | None = None


def default_table() -> OptionTable:
    """The table of the fio iotui will run ($IOTUI_FIO or fio on PATH), else the shipped one."""
    global _DEFAULT
    if _DEFAULT is None:
        import shutil

        binary = shutil.which(os.environ.get("IOTUI_FIO") or "fio")
        _DEFAULT = table_for(binary)
    return _DEFAULT


if __name__ == "__main__":  # regenerate the shipped table: python -m iotui.core.fio.options [FIO]
    import sys

    table = build_table(sys.argv[1] if len(sys.argv) > 1 else "fio")
    print(json.dumps(table.to_json(), indent=1))
