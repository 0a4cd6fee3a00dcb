"""Presets: TOML files describing a fio workload, and users' own fio job files.

A preset is data: global fio options plus job sections that run one after
another. It never says where the test file lives: iotui decides that. The
format is documented in ``docs/presets.md``.
"""

from __future__ import annotations

import functools
import math
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

from iotui.core.fio import policy as safety
_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOP_KEYS = ("name", "title", "description", "tells", "options", "jobs", "sweep")
_SWEEP_KEYS = ("vary", "note")
# Varied keys that are not fio options (see iotui.core.sweep.values).
_SWEEP_SPECIAL_KEYS = {"target", "targets", "tool", "job"}


class PresetError(Exception):
    """A preset or job file that cannot be used; str() is a full sentence.

    ``path`` is the file and ``key`` the offending key, when known.
    """

    def __init__(self, message: str, *, path: Path | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.path = path
        self.key = key


class PresetPolicyError(PresetError, safety.PolicyError):
    """A preset, job file or override holding an option the policy refuses (either except catches it).

    ``code`` and ``facts`` are the policy's (see :class:`iotui.core.fio.policy.PolicyError`).
    """

    def __init__(
        self, message: str, *, code: str = "refused-option", facts: Mapping[str, Any] | None = None,
        path: Path | None = None, key: str | None = None,
    ) -> None:
        PresetError.__init__(self, message, path=path, key=key)
        self.code = code
        self.facts = dict(facts or {})

    @classmethod
    def of(cls, error: safety.PolicyError, *, path: Path | None = None) -> PresetPolicyError:
        return cls(str(error), code=error.code, facts=error.facts, path=path, key=error.facts.get("given"))


@dataclass(frozen=True)
class JobSection:
    """One fio job section: its name and its own options (strings as fio takes them)."""

    name: str
    options: dict[str, str]


@dataclass(frozen=True)
class Preset:
    """A workload: global fio options and job sections.

    ``serial``: iotui puts a stonewall before every section after the first, so
    sections run one after another (presets). A job file keeps fio's own
    semantics (sections run together unless they say ``stonewall``), so it
    loads with ``serial=False``. Treat the dicts as read-only; changes make a
    new Preset (:func:`with_overrides`).
    """

    name: str
    title: str
    description: str
    tells: str
    options: dict[str, str]
    jobs: tuple[JobSection, ...]
    source: Path | None = None
    sweep: dict | None = field(default=None)
    serial: bool = True


# -- where presets live ----------------------------------------------------------------


def shipped_presets_dir() -> Path:
    return Path(__file__).resolve().parents[3] / "presets"


def user_presets_dir(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home).expanduser() / "iotui" / "presets"


def preset_dirs() -> list[Path]:
    """Shipped presets first; a user preset of the same name overrides one."""
    return [shipped_presets_dir(), user_presets_dir()]


# -- fio's option names and aliases --------------------------------------------------------

# Names that set the same thing in fio (aliases, and direct/buffered which negate
# each other): setting one replaces the others.
_SAME_SETTING: tuple[frozenset[str], ...] = tuple(
    frozenset(group)
    for group in (
        ("bs", "blocksize"), ("rw", "readwrite"), ("runtime", "timeout"), ("direct", "buffered"),
        ("nrfiles", "nr_files"), ("io_size", "io_limit"), ("offset", "fileoffset"), ("mem", "iomem"),
        ("ba", "blockalign"), ("bsrange", "blocksize_range"), ("bs_unaligned", "blocksize_unaligned"),
        ("iodepth_batch", "iodepth_batch_submit"), ("iodepth_batch_complete_min", "iodepth_batch_complete"),
        ("fill_device", "fill_fs"), ("stonewall", "wait_for_previous"), ("steadystate", "ss"),
        ("steadystate_duration", "ss_dur"), ("steadystate_ramp_time", "ss_ramp"), ("rate_cycle", "ratecycle"),
        ("rate_min", "ratemin"), ("disable_bw_measurement", "disable_bw"), ("iomem_align", "mem_align"),
    )
)


_ALIASES = {
    alias: canonical for group in _SAME_SETTING for alias in group for canonical in group
    if canonical in ("bs", "rw", "runtime", "nrfiles", "io_size", "offset", "mem", "ba", "bsrange", "bs_unaligned",
                     "iodepth_batch", "iodepth_batch_complete_min", "fill_device", "stonewall", "steadystate",
                     "steadystate_duration", "steadystate_ramp_time", "rate_cycle", "rate_min",
                     "disable_bw_measurement", "iomem_align") and alias != canonical
}


@functools.lru_cache(maxsize=1024)
def same_setting(key: str) -> frozenset[str]:
    """The names that set what ``key`` sets (itself included), e.g. bs -> {bs, blocksize}."""
    name = safety.normal_option_name(key)
    name = _ALIASES.get(name, name)
    for group in _SAME_SETTING:
        if name in group:
            return group
    return frozenset({name})


def _without(options: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    drop = set(names)
    return {key: value for key, value in options.items() if safety.normal_option_name(key) not in drop}


def merge_options(base: Mapping[str, str], override: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``override`` applied the way fio applies a section over [global]."""
    merged = dict(base)
    for key, value in override.items():
        merged = _without(merged, same_setting(key))
        merged[key] = value
    return merged


def _lookup(options: Mapping[str, str], key: str) -> str | None:
    """The value of ``key`` or one of its aliases (the last one set wins, as in fio)."""
    # direct and buffered negate each other: each is looked up by its own name.
    names = {key} if key in ("direct", "buffered") else same_setting(key)
    found = None
    for option, value in options.items():
        if option in names or option.lstrip("-") in names:
            found = value
    return found


def section_options(preset: Preset) -> list[dict[str, str]]:
    """Each job section's effective options (globals, then the section's own)."""
    if not preset.jobs:
        return [dict(preset.options)]
    return [merge_options(preset.options, section.options) for section in preset.jobs]


def section_option(preset: Preset, section: JobSection, key: str) -> str | None:
    """A section's own value (or an alias of it), else the global one."""
    return _lookup(merge_options(preset.options, section.options), key)


def _is_true(value: str | None) -> bool:
    """fio's bool: a valueless flag or 1/true/yes/on."""
    return value is not None and value.strip().lower() in ("", "1", "true", "yes", "on")


def uses_direct_io(preset: Preset) -> bool:
    """Does every section use direct I/O (direct=1 or buffered=0)?"""
    for options in section_options(preset):
        direct = _lookup(options, "direct")
        buffered = _lookup(options, "buffered")
        if direct is not None:
            on = _is_true(direct)
        elif buffered is not None:
            on = not _is_true(buffered)
        else:
            on = False
        if not on:
            return False
    return True


# -- loading TOML presets ---------------------------------------------------------------


def _where_key(where: str, key: str) -> str:
    return f"{where}: key '{key}'"


def _option_value(value: Any, where: str, key: str) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return value
    found = "a number with a fraction" if isinstance(value, float) else f"a {type(value).__name__}"
    raise PresetError(
        f"{_where_key(where, key)} is {found}; expected a string as fio takes it (such as \"4k\"), "
        "a whole number, or true/false.",
        key=key,
    )


def _options_table(table: Any, where: str, key_path: str) -> dict[str, str]:
    if not isinstance(table, dict):
        raise PresetError(f"{_where_key(where, key_path)} is not a table; expected a table of fio options.", key=key_path)
    return {str(key): _option_value(value, where, f"{key_path}.{key}") for key, value in table.items()}


def _text(doc: Mapping[str, Any], key: str, where: str, *, required: bool, one_line: bool = False) -> str:
    value = doc.get(key)
    if value is None:
        if required:
            raise PresetError(f"{where}: key '{key}' is missing (expected a string).", key=key)
        return ""
    if not isinstance(value, str):
        raise PresetError(f"{where}: key '{key}' should be a string, found {type(value).__name__}.", key=key)
    if one_line and "\n" in value.strip():
        raise PresetError(f"{where}: key '{key}' spans several lines; expected one line.", key=key)
    return value.strip() if one_line else value


def _check_policy(
    options: Mapping[str, str], origin: str, *, channel: safety.Channel = safety.COMMAND_LINE,
    engines: Iterable[str] = (), path: Path | None = None,
) -> dict[str, str]:
    """The options by fio's canonical names, through the one policy; PresetPolicyError if refused."""
    try:
        return safety.check_options(options, origin, channel=channel, engines=engines)
    except safety.PolicyError as error:
        raise PresetPolicyError.of(error, path=path) from None


def _engines(options: Mapping[str, str], sections: Iterable[JobSection] = ()) -> list[str]:
    """The engines in effect: the global one and every section's own."""
    found = [options.get("ioengine", "")] + [section.options.get("ioengine", "") for section in sections]
    return [engine for engine in dict.fromkeys(found) if engine]


SWEEP_TOOLS = ("fio", "sysbench")


def _sweep_table(sweep: Any, where: str, *, sections: Iterable[str], engines: Iterable[str]) -> dict:
    """A preset's [sweep]: every varied fio option through the policy (canonical names kept);
    ``target``/``targets`` refused (targets come from the user), ``job`` only the preset's own
    sections, ``tool`` only the tools iotui knows."""
    if not isinstance(sweep, dict):
        raise PresetError(f"{where}: key 'sweep' should be a table ([sweep]) with a 'vary' table.", key="sweep")
    unknown = sorted(set(sweep) - set(_SWEEP_KEYS))
    if unknown:
        raise PresetError(
            f"{where}: unknown key 'sweep.{unknown[0]}' (expected {' or '.join(_SWEEP_KEYS)}).", key=f"sweep.{unknown[0]}"
        )
    vary = sweep.get("vary", {})
    if not isinstance(vary, dict):
        raise PresetError(f"{where}: key 'sweep.vary' should be a table of KEY = [values].", key="sweep.vary")
    section_names = list(sections)
    checked: dict[str, list[str]] = {}
    for key, values in vary.items():
        entry = f"sweep.vary.{key}"
        if not isinstance(values, list) or not values:
            raise PresetError(f"{where}: key '{entry}' should be a non-empty array of values.", key=entry)
        strings = [_option_value(value, where, f"{entry}[{index}]") for index, value in enumerate(values)]
        special = _special_refusal(str(key), strings, section_names)
        if special is not None:
            raise PresetPolicyError(
                f"{where}: the key '{entry}' is refused because {special}.", code="refused-key",
                facts={"origin": where, "given": str(key), "option": str(key), "value": ",".join(strings),
                       "reason": special},
                key=entry,
            )
        if str(key) in ("tool", "job"):
            checked[str(key)] = strings
            continue
        canonical = None
        for value in strings:
            ((canonical, _),) = _check_policy({key: value}, f"{where} [sweep]", engines=engines).items()
        checked[canonical or str(key)] = strings
    note = sweep.get("note")
    if note is not None and not isinstance(note, str):
        raise PresetError(f"{where}: key 'sweep.note' should be a string.", key="sweep.note")
    return {**sweep, "vary": checked}


def _special_refusal(key: str, values: list[str], sections: list[str]) -> str | None:
    """Why a [sweep] key that is not a fio option is refused in a preset file, or None."""
    if key in ("target", "targets"):
        return "a preset file cannot choose where a run writes; targets come from you (--target, --targets)"
    if key == "tool":
        unknown = [value for value in values if value not in SWEEP_TOOLS]
        if unknown:
            return f"the tool {unknown[0]!r} is not one iotui knows ({' or '.join(SWEEP_TOOLS)})"
    if key == "job":
        unknown = [value for value in values if value not in sections]
        if unknown:
            return f"{unknown[0]!r} is not one of the preset's own job sections ({', '.join(sections)})"
    return None


def preset_from_dict(doc: Mapping[str, Any], where: str, source: Path | None = None) -> Preset:
    """Validate a parsed preset document; every mistake names ``where`` and the key."""
    unknown = sorted(set(doc) - set(_TOP_KEYS))
    if unknown:
        raise PresetError(
            f"{where}: unknown key '{unknown[0]}' (expected {', '.join(sorted(_TOP_KEYS))}); "
            "fio options go in [options] or a [[jobs]] section.",
            key=unknown[0],
        )
    name = _text(doc, "name", where, required=True)
    if not _NAME_PATTERN.match(name):
        raise PresetError(f"{where}: key 'name' should be letters, digits, '-', '_' or '.', found {name!r}.", key="name")
    options = _options_table(doc.get("options", {}), where, "options")
    raw_jobs = doc.get("jobs", [])
    if not isinstance(raw_jobs, list):
        raise PresetError(f"{where}: key 'jobs' should be an array of tables ([[jobs]]).", key="jobs")
    jobs: list[JobSection] = []
    for index, raw in enumerate(raw_jobs):
        if not isinstance(raw, dict):
            raise PresetError(f"{where}: key 'jobs[{index}]' should be a table.", key=f"jobs[{index}]")
        section_table = dict(raw)
        job_name = section_table.pop("name", None)
        if not isinstance(job_name, str) or not _NAME_PATTERN.match(job_name):
            raise PresetError(
                f"{where}: key 'jobs[{index}].name' is missing or not a name (expected a string of letters, "
                "digits, '-', '_' or '.').",
                key=f"jobs[{index}].name",
            )
        if any(section.name == job_name for section in jobs):
            raise PresetError(f"{where}: key 'jobs[{index}].name' repeats {job_name!r}; expected unique names.")
        jobs.append(JobSection(job_name, _options_table(section_table, where, f"jobs[{index}]")))
    if not jobs:
        jobs.append(JobSection(name, {}))
    options = _check_policy(options, where)
    global_engines = _engines(options)
    jobs = [
        JobSection(section.name, _check_policy(section.options, f"{where} [{section.name}]", engines=global_engines))
        for section in jobs
    ]
    sweep = doc.get("sweep")
    return Preset(
        name=name,
        title=_text(doc, "title", where, required=False, one_line=True) or name,
        description=_text(doc, "description", where, required=True, one_line=True),
        tells=_text(doc, "tells", where, required=False),
        options=options,
        jobs=tuple(jobs),
        source=source,
        sweep=None if sweep is None else _sweep_table(
            sweep, where, sections=[section.name for section in jobs], engines=_engines(options, jobs)
        ),
    )


def load_preset_file(path: Path, *, platform: str | None = None) -> Preset:
    """A preset from its TOML file, adapted to this platform (see :func:`for_platform`)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PresetError(f"{path}: cannot read the preset ({error.strerror or error}).", path=path) from None
    except UnicodeDecodeError:
        raise PresetError(f"{path}: the preset is not UTF-8 text; expected a TOML file.", path=path) from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PresetError(f"{path}: the preset is not valid TOML ({error}).", path=path) from None
    except RecursionError:
        raise PresetError(f"{path}: the preset nests too deeply to be a preset; it is not used.", path=path) from None
    try:
        return for_platform(preset_from_dict(doc, str(path), source=path), platform)
    except PresetError as error:
        error.path = path
        raise


def list_presets(dirs: list[Path] | None = None) -> tuple[list[Preset], list[PresetError]]:
    """Every preset by name (later directories override earlier), and the files that do not load.

    A later file that does not load hides the preset of its name from earlier
    directories: the user meant to replace it, and find_preset raises its error.
    """
    found: dict[str, Preset] = {}
    errors: list[PresetError] = []
    for directory in dirs if dirs is not None else preset_dirs():
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.toml")):
            try:
                preset = load_preset_file(path)
            except PresetError as error:
                errors.append(error)
                found.pop(path.stem, None)
                continue
            found[preset.name] = preset
    return sorted(found.values(), key=lambda preset: preset.name), errors


def find_preset(name: str, dirs: list[Path] | None = None) -> Preset:
    """The preset called ``name`` (a user preset wins); a file that does not load raises its error."""
    presets, errors = list_presets(dirs)
    for preset in presets:
        if preset.name == name:
            return preset
    for error in errors:
        if error.path is not None and error.path.stem == name:
            raise error
    names = ", ".join(sorted(p.name for p in presets)) or "none"
    raise PresetError(f"No preset named {name!r}; the presets are: {names} (see 'iotui presets').", key=name)


# -- portability -----------------------------------------------------------------------

_LINUX_ONLY_ENGINES = ("libaio", "io_uring", "io_uring_cmd", "pvsync2")


def _engine_fallback(engine: str, platform: str) -> str:
    """Where fio has no Linux engine: posixaio for the queued ones (psync on OpenBSD), pvsync for pvsync2."""
    if engine not in _LINUX_ONLY_ENGINES and not (engine == "posixaio" and platform.startswith(("openbsd", "win"))):
        return engine
    if engine == "pvsync2":
        return "psync" if platform.startswith("win") else "pvsync"
    if platform.startswith(("win", "cygwin", "msys")):
        return "windowsaio"
    if platform.startswith("openbsd"):
        return "psync"
    return "posixaio"


def _adapt(options: Mapping[str, str], platform: str) -> dict[str, str]:
    engine = options.get("ioengine")
    if engine is None:
        return dict(options)
    fallback = _engine_fallback(engine, platform)
    if fallback == engine:
        return dict(options)
    adapted = {key: value for key, value in options.items() if key not in ("hipri", "hipri_percentage")}
    adapted["ioengine"] = fallback
    return adapted


def for_platform(preset: Preset, platform: str | None = None) -> Preset:
    """The preset with Linux-only engines replaced where fio lacks them (``sys.platform`` by default).

    libaio and io_uring become posixaio (windowsaio on Windows, psync on
    OpenBSD) and pvsync2 becomes pvsync; on Linux nothing changes. Engines in a
    sweep's varied values are replaced too, duplicates dropped.
    """
    platform = platform or sys.platform
    if platform.startswith("linux"):
        return preset
    sweep = preset.sweep
    if sweep and "ioengine" in sweep.get("vary", {}):
        engines = [_engine_fallback(engine, platform) for engine in sweep["vary"]["ioengine"]]
        sweep = {**sweep, "vary": {**sweep["vary"], "ioengine": list(dict.fromkeys(engines))}}
    return replace(
        preset,
        options=_adapt(preset.options, platform),
        jobs=tuple(JobSection(section.name, _adapt(section.options, platform)) for section in preset.jobs),
        sweep=sweep,
    )


# -- fio job files -------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _strip_comment(line: str) -> str:
    # fio ends a job-file line at the first ';' or '#', wherever it is.
    cut = min((index for index in (line.find(";"), line.find("#")) if index >= 0), default=len(line))
    return line[:cut].strip()


def parse_job_file_text(text: str, where: str) -> tuple[dict[str, str], list[JobSection]]:
    """fio's ini format: [global] and job sections, keys with or without values.

    As fio does: ';' and '#' start a comment anywhere on a line; a section
    whose name starts with "global" holds global options, and a [global] after
    a job applies to the jobs that follow it (its options are folded into them);
    ``name=`` inside a job renames it. Any line starting with "include" is
    refused, since fio would read another file.
    """
    global_options: dict[str, str] = {}
    late_globals: dict[str, str] = {}
    sections: list[tuple[str, dict[str, str]]] = []
    current: dict[str, str] | None = None
    seen_job = False
    for number, raw_line in enumerate(text.splitlines(), 1):
        line = _strip_comment(raw_line)
        if not line:
            continue
        if line.startswith("include"):
            raise PresetPolicyError(
                f"{where}, line {number}: the option 'include' is refused because it pulls in another job file "
                "that iotui has not checked."
            )
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise PresetError(f"{where}, line {number}: expected a section header like [name], found {line!r}.")
            section_name = line[1:-1].strip()
            if _CONTROL.search(section_name) or "$" in section_name:
                raise PresetError(f"{where}, line {number}: the section name {section_name!r} has characters fio would expand.")
            if section_name.startswith("global"):
                current = late_globals if seen_job else global_options
            else:
                seen_job = True
                current = dict(late_globals)
                sections.append((section_name, current))
            continue
        if current is None:
            raise PresetError(f"{where}, line {number}: option {line!r} comes before any [section]; expected it inside one.")
        key, separator, value = line.partition("=")
        key = key.strip()
        if not key:
            raise PresetError(f"{where}, line {number}: {line!r} has no option name before '='.")
        if safety.normal_option_name(key) == "name" and current is not global_options and current is not late_globals:
            renamed = value.strip()
            sections[-1] = (renamed or sections[-1][0], current)
            continue
        for existing in [k for k in current if safety.normal_option_name(k) in same_setting(key)]:
            del current[existing]
        current[key] = value.strip() if separator else ""
    if not sections:
        raise PresetError(f"{where}: the job file has no job section (only [global] or nothing); expected at least one [job].")
    return global_options, [JobSection(name, options) for name, options in sections]


def _confine_directory(options: dict[str, str], confined: list[str]) -> dict[str, str]:
    """``directory=`` with an absolute path (not a device) -> ``.``: the private test directory."""
    value = options.get("directory")
    if value is None:
        return options
    parts = [part.strip() for part in re.split(r"(?<!\\):", value)]
    if any(part.startswith("/") and not part.startswith(("/dev/", "/proc/", "/sys/")) for part in parts):
        confined.append(value)
        return {**options, "directory": "."}
    return options


def load_job_file(path: Path) -> Preset:
    """A user's fio job file in the preset model; its sections keep fio's own ordering."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PresetError(f"{path}: cannot read the job file ({error.strerror or error}).", path=path) from None
    except UnicodeDecodeError:
        raise PresetError(f"{path}: the job file is not UTF-8 text; expected a fio job file.", path=path) from None
    global_options, sections = parse_job_file_text(text, str(path))
    # A job file's directory= says where its files go, which is what the target is for: an absolute
    # one (/data1, /scratch, /mount-point-of-ssd) becomes iotui's private test directory in the target.
    # filename= names a file, so an absolute one stays refused (except /dev/null and /dev/zero).
    confined: list[str] = []
    global_options = _confine_directory(global_options, confined)
    sections = [JobSection(section.name, _confine_directory(section.options, confined)) for section in sections]
    global_options = _check_policy(global_options, f"{path} [global]", channel=safety.JOB_FILE, path=path)
    global_options.pop("name", None)  # a label: each section has its own name
    global_engines = _engines(global_options)
    sections = [
        JobSection(
            section.name,
            _check_policy(section.options, f"{path} [{section.name}]", channel=safety.JOB_FILE,
                          engines=global_engines, path=path),
        )
        for section in sections
    ]
    note = ""
    if confined:
        note = f"; its directory={', directory='.join(dict.fromkeys(confined))} is iotui's private test directory in the target"
    return Preset(
        name=f"job-file:{path.stem}",
        title=path.name,
        description=f"fio job file {path.name}{note}",
        tells="",
        options=global_options,
        jobs=tuple(sections),
        source=path,
        serial=False,
    )


# -- changes before a run ------------------------------------------------------------


def _positive_whole(value: int | str, flag: str) -> str:
    text = str(value).strip()
    if not text.isdigit() or int(text) < 1:
        raise PresetError(f"{flag} should be a whole number of at least 1, found {value!r}.", key=flag)
    return text


def _not_empty(value: str, flag: str, example: str) -> str:
    text = str(value).strip()
    if not text:
        raise PresetError(f"{flag} is empty; expected a value such as {example}.", key=flag)
    return text


def size_problem(text: str) -> str | None:
    """Why ``text`` is not a size in fio's syntax (4k, 1M, 1G, 512MiB), or None when it is one.

    The app's option editor and the command line's --size and --bs both ask this, so ``64Q``
    is refused in both places instead of reaching fio (which reads it as 64 bytes).
    """
    value = parse_size_bytes(text)
    if value is None or value <= 0:
        return f"should be a size such as 4k, 1M or 1G, not {text!r}"
    return None


def _a_size(value: str, flag: str, example: str) -> str:
    text = _not_empty(value, flag, example)
    problem = size_problem(text)
    if problem:
        raise PresetError(f"{flag} {problem}.", key=flag)
    return text


def with_overrides(
    preset: Preset,
    *,
    runtime_s: float | None = None,
    size: str | None = None,
    bs: str | None = None,
    iodepth: int | str | None = None,
    numjobs: int | str | None = None,
    direct: bool | None = None,
    sets: dict[str, str] | None = None,
) -> Preset:
    """Apply changes globally; the same setting (aliases included) is removed from sections so it wins.

    ``runtime_s`` also sets ``time_based``; ``size`` replaces ``filesize``; ``bs``
    replaces ``bsrange`` and ``bssplit``; ``direct`` replaces ``buffered``.
    Every change goes through the option policy (PresetPolicyError).
    """
    # (origin, key, value, names it replaces)
    changes: list[tuple[str, str, str, frozenset[str]]] = []
    if runtime_s is not None:
        if not isinstance(runtime_s, (int, float)) or not math.isfinite(runtime_s) or runtime_s <= 0:
            raise PresetError(f"--runtime should be a positive number of seconds, found {runtime_s}.", key="runtime")
        changes.append(("--runtime", "runtime", f"{runtime_s:g}", same_setting("runtime")))
        changes.append(("--runtime", "time_based", "", frozenset({"time_based"})))
    if size is not None:
        changes.append(("--size", "size", _not_empty(size, "--size", '"1G"'), frozenset({"size", "filesize"})))
    if bs is not None:
        block_names = same_setting("bs") | same_setting("bsrange") | {"bssplit"}
        changes.append(("--bs", "bs", _not_empty(bs, "--bs", '"4k"'), frozenset(block_names)))
    if iodepth is not None:
        changes.append(("--iodepth", "iodepth", _positive_whole(iodepth, "--iodepth"), frozenset({"iodepth"})))
    if numjobs is not None:
        changes.append(("--numjobs", "numjobs", _positive_whole(numjobs, "--numjobs"), frozenset({"numjobs"})))
    if direct is not None:
        changes.append(("--direct", "direct", "1" if direct else "0", same_setting("direct")))
    for origin, key, value, _ in changes:
        _check_policy({key: value}, origin)
    for origin, _key, value, _ in changes:
        if origin in ("--size", "--bs"):
            _a_size(value, origin, "")
    set_pairs = {str(raw_key).strip().lstrip("-"): str(value) for raw_key, value in (sets or {}).items()}
    if set_pairs:
        # Every --set name as fio's command line reads it (any unique prefix), by its canonical name.
        for key, value in _check_policy(set_pairs, "--set", engines=_engines(preset.options, preset.jobs)).items():
            changes.append(("--set", key, value, same_setting(key)))
    if not changes:
        return preset
    options = dict(preset.options)
    jobs = list(preset.jobs)
    for _, key, value, replaced in changes:
        options = _replace_in_place(options, key, value, replaced)
        jobs = [JobSection(section.name, _without(section.options, replaced)) for section in jobs]
    return replace(preset, options=options, jobs=tuple(jobs), title=effective_title(preset, changes))


def effective_title(preset: Preset, changes: list[tuple[str, str, str, frozenset[str]]]) -> str:
    """The title that says what changed: ``quick · runtime 10s, size 64M`` (the preset's own title when nothing did).

    A stale title ("Quick check (20 s)" on a 10 s run) made runs impossible to tell apart in
    History, Compare and exports; the name and the changed options cannot go stale.
    """
    words = []
    for _, key, value, _ in changes:
        if key == "time_based":
            continue
        words.append(f"runtime {value}s" if key == "runtime" else f"{key} {value}" if value != "" else key)
    prefix = f"{preset.name} · "
    if preset.title.startswith(prefix):  # changed before: keep those changes, later ones win per key
        earlier = [word for word in preset.title[len(prefix):].split(", ")
                   if word.split(" ", 1)[0] not in {w.split(" ", 1)[0] for w in words}]
        words = earlier + words
    return prefix + ", ".join(words)


def _replace_in_place(options: Mapping[str, str], key: str, value: str, replaced: frozenset[str]) -> dict[str, str]:
    """Set ``key`` where the setting it replaces stood (so a command line keeps its order), else at the end."""
    result: dict[str, str] = {}
    placed = False
    for existing, existing_value in options.items():
        if safety.normal_option_name(existing) in replaced:
            if not placed:
                result[key] = value
                placed = True
            continue
        result[existing] = existing_value
    if not placed:
        result[key] = value
    return result


# -- fio's units ---------------------------------------------------------------------

_SIZE_PATTERN = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*")
_SIZE_POWERS = {"k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def parse_size_bytes(value: str | None, *, kb_base: int = 1024) -> int | None:
    """fio's size syntax in bytes (4k, 1G, 512m, 1MiB); None for a percentage or anything else.

    fio's default kb_base=1024 is its compatibility mode: K, M, G (and KB, MB)
    are powers of 1024 while KiB, MiB, GiB are powers of 1000, the opposite of
    the standards (fio's own documentation, and what fio 3.33 lays out).
    kb_base=1000 swaps them back.
    """
    if value is None:
        return None
    match = _SIZE_PATTERN.fullmatch(str(value))
    if not match:
        return None
    number, suffix = match.group(1), match.group(2).lower()
    if suffix in ("", "b"):
        multiplier = 1
    else:
        power = _SIZE_POWERS.get(suffix[0])
        rest = suffix[1:]
        if power is None or rest not in ("", "b", "i", "ib"):
            return None
        other_base = 1000 if kb_base == 1024 else 1024
        multiplier = (other_base if rest == "ib" else kb_base) ** power
    return int(float(number) * multiplier)


_TIME_UNITS = {
    "us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "": 1.0, "s": 1.0, "sec": 1.0,
    "m": 60.0, "min": 60.0, "h": 3600.0, "hour": 3600.0, "d": 86400.0, "day": 86400.0,
}


def parse_seconds(value: str | None) -> float | None:
    """fio's time syntax (30, 30s, 2m, 1h, 500ms); plain numbers are seconds."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*", str(value).lower())
    if not match or match.group(2) not in _TIME_UNITS:
        return None
    return float(match.group(1)) * _TIME_UNITS[match.group(2)]


def _upper(value: str | None) -> str | None:
    """The upper end of a fio range (``1-5``, ``1M-4M``, ``1M:4M``)."""
    if value is None:
        return None
    return re.split(r"[-:]", value)[-1]


def _whole(value: str | None, default: int) -> int | None:
    if value is None or value.strip() == "":
        return default
    text = value.strip()
    return int(text) if text.isdigit() else None


# -- estimates -------------------------------------------------------------------------


def _section_seconds(options: Mapping[str, str]) -> float | None:
    runtime = parse_seconds(_lookup(options, "runtime"))
    if runtime is None:
        return None  # size-bound: how long depends on the device
    ramp = parse_seconds(_lookup(options, "ramp_time")) or 0.0
    start_delay = parse_seconds(_upper(_lookup(options, "startdelay"))) or 0.0
    return runtime + ramp + start_delay


def _section_disk(options: Mapping[str, str]) -> tuple[tuple[str, str], int] | None:
    """(which files, bytes on disk) for one section, by its effective options.

    The files: ``("shared", "")`` for iotui's one shared test file (every job of
    every such section uses it, so numjobs does not multiply it); ``("file", NAME)``
    for a job's own ``filename=`` (its clones share it); ``("own", "")`` where
    fio names the files itself (``directory=`` or nrfiles > 1: each clone has
    its own, so numjobs multiplies). Size: ``filesize`` per file, else ``size``
    (else ``io_size``) split over the files, plus offsets. None when a size is
    unknown (a percentage, or none given).
    """
    kb_base = 1000 if (_lookup(options, "kb_base") or "").strip() == "1000" else 1024
    nrfiles = _whole(_lookup(options, "nrfiles"), 1)
    numjobs = _whole(_lookup(options, "numjobs"), 1)
    if not nrfiles or not numjobs:
        return None
    offset = parse_size_bytes(_lookup(options, "offset"), kb_base=kb_base) or 0
    increment = parse_size_bytes(_lookup(options, "offset_increment"), kb_base=kb_base) or 0
    reach = offset + (numjobs - 1) * increment
    filesize = parse_size_bytes(_upper(_lookup(options, "filesize")), kb_base=kb_base)
    size = parse_size_bytes(_lookup(options, "size"), kb_base=kb_base)
    if size is None:
        size = parse_size_bytes(_lookup(options, "io_size"), kb_base=kb_base)
    if filesize is not None:
        per_job = nrfiles * (reach + filesize)
    elif size is not None:
        per_job = size + nrfiles * reach
    else:
        return None
    if "directory" in options or nrfiles > 1:
        return ("own", ""), numjobs * per_job
    filename = _lookup(options, "filename")
    if filename is not None:
        return ("file", filename), per_job
    return ("shared", ""), per_job


def _sequential_groups(preset: Preset, values: list[float]) -> list[list[float]]:
    """Sections that run at the same time, group by group (a stonewall starts a group)."""
    if preset.serial:
        return [[value] for value in values]
    groups: list[list[float]] = []
    for index, value in enumerate(values):
        own = preset.jobs[index].options if preset.jobs else {}
        if not groups or _is_true(_lookup(own, "stonewall")) or "wait_for" in own:
            groups.append([])
        groups[-1].append(value)
    return groups


def estimate(preset: Preset) -> tuple[float | None, int | None]:
    """(duration in seconds, disk bytes for the test file); None where it cannot be known.

    Duration: runtime + ramp_time (+ startdelay) per section, summed over
    sections that run one after another; unknown when a section has no runtime
    (it ends when its size is done). Disk: each section's effective size
    (size, filesize, nrfiles, io_size, numjobs, offsets; see
    :func:`_section_disk`); sections on iotui's shared test file share it.
    Unknown when a size is a percentage or missing.
    """
    options_list = section_options(preset)
    seconds = [_section_seconds(options) for options in options_list]
    known_seconds = [value for value in seconds if value is not None]
    duration = None
    if len(known_seconds) == len(seconds):
        duration = float(sum(max(group) for group in _sequential_groups(preset, known_seconds)))
    disks = [_section_disk(options) for options in options_list]
    known_disks = [disk for disk in disks if disk is not None]
    disk_bytes = None
    if known_disks and len(known_disks) == len(disks):
        # Sections on the same shared or named file share it; files fio names are each section's own.
        largest: dict[tuple[str, str], int] = {}
        own = 0
        for files, size_bytes in known_disks:
            if files[0] == "own":
                own += size_bytes
            else:
                largest[files] = max(largest.get(files, 0), size_bytes)
        disk_bytes = (sum(largest.values()) + own) or None
    return duration, disk_bytes
