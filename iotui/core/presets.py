"""Presets: TOML files describing a fio workload, and users' own fio job files.

A preset is data: global fio options plus job sections that run one after
another. It never says where the test file lives: iotui decides that. The
format is documented in ``docs/presets.md``.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

from iotui.core import safety

_NAME_PATTERN = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_TOP_KEYS = {"name", "title", "description", "tells", "options", "jobs", "sweep"}


class PresetError(Exception):
    """A preset or job file that cannot be used; str() is a full sentence."""


@dataclass(frozen=True)
class JobSection:
    name: str
    options: dict[str, str]


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    tells: str
    options: dict[str, str]
    jobs: tuple[JobSection, ...]
    source: Path | None = None
    sweep: dict | None = field(default=None)


def shipped_presets_dir() -> Path:
    return Path(__file__).resolve().parents[2] / "presets"


def user_presets_dir(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    config_home = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config_home).expanduser() / "iotui" / "presets"


def preset_dirs() -> list[Path]:
    """Shipped presets first; a user preset of the same name overrides one."""
    return [shipped_presets_dir(), user_presets_dir()]


def _option_value(value: Any, where: str, key: str) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float, str)):
        return str(value)
    raise PresetError(f"{where}: option '{key}' should be a string, a number or true/false, found {type(value).__name__}.")


def _options_table(table: Any, where: str, key_path: str) -> dict[str, str]:
    if not isinstance(table, dict):
        raise PresetError(f"{where}: '{key_path}' should be a table of fio options.")
    return {str(key): _option_value(value, where, f"{key_path}.{key}") for key, value in table.items()}


def _text(doc: dict, key: str, where: str, *, required: bool) -> str:
    value = doc.get(key)
    if value is None:
        if required:
            raise PresetError(f"{where}: key '{key}' is missing (expected a string).")
        return ""
    if not isinstance(value, str):
        raise PresetError(f"{where}: key '{key}' should be a string, found {type(value).__name__}.")
    return value


def preset_from_dict(doc: dict, where: str, source: Path | None = None) -> Preset:
    unknown = set(doc) - _TOP_KEYS
    if unknown:
        raise PresetError(
            f"{where}: unknown key '{sorted(unknown)[0]}' (expected {', '.join(sorted(_TOP_KEYS))}); "
            "fio options go in [options] or a [[jobs]] section."
        )
    name = _text(doc, "name", where, required=True)
    if not _NAME_PATTERN.match(name):
        raise PresetError(f"{where}: key 'name' should be letters, digits, '-', '_' or '.', found {name!r}.")
    options = _options_table(doc.get("options", {}), where, "options")
    raw_jobs = doc.get("jobs", [])
    if not isinstance(raw_jobs, list):
        raise PresetError(f"{where}: 'jobs' should be an array of tables ([[jobs]]).")
    jobs: list[JobSection] = []
    for index, raw in enumerate(raw_jobs):
        if not isinstance(raw, dict):
            raise PresetError(f"{where}: jobs[{index}] should be a table.")
        section_options = dict(raw)
        job_name = section_options.pop("name", None)
        if not isinstance(job_name, str) or not job_name:
            raise PresetError(f"{where}: key 'jobs[{index}].name' is missing (expected a string).")
        jobs.append(JobSection(job_name, _options_table(section_options, where, f"jobs[{index}]")))
    if not jobs:
        jobs.append(JobSection(name, {}))
    sweep = doc.get("sweep")
    if sweep is not None:
        if not isinstance(sweep, dict) or not isinstance(sweep.get("vary", {}), dict):
            raise PresetError(f"{where}: [sweep] should be a table with a 'vary' table of KEY = [values].")
        for key, values in sweep.get("vary", {}).items():
            if not isinstance(values, list) or not values:
                raise PresetError(f"{where}: 'sweep.vary.{key}' should be a non-empty array of values.")
    preset = Preset(
        name=name,
        title=_text(doc, "title", where, required=False) or name,
        description=_text(doc, "description", where, required=True),
        tells=_text(doc, "tells", where, required=False),
        options=options,
        jobs=tuple(jobs),
        source=source,
        sweep=sweep,
    )
    _check_policy(preset, where)
    return preset


def _check_policy(preset: Preset, where: str) -> None:
    try:
        safety.check_options(preset.options, where)
        for section in preset.jobs:
            safety.check_options(section.options, f"{where} [{section.name}]")
    except safety.PolicyError as error:
        raise PresetError(str(error)) from None


def load_preset_file(path: Path) -> Preset:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PresetError(f"{path}: cannot read the preset ({error.strerror or error}).") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise PresetError(f"{path}: the preset is not valid TOML ({error}).") from None
    return preset_from_dict(doc, str(path), source=path)


def list_presets(dirs: list[Path] | None = None) -> tuple[list[Preset], list[PresetError]]:
    """Every preset by name (later directories override earlier), and the bad files."""
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
                continue
            found[preset.name] = preset
    return list(found.values()), errors


def find_preset(name: str, dirs: list[Path] | None = None) -> Preset:
    presets, errors = list_presets(dirs)
    for preset in presets:
        if preset.name == name:
            return preset
    for error in errors:
        if f"{name}.toml" in str(error):
            raise error
    names = ", ".join(sorted(p.name for p in presets)) or "none"
    raise PresetError(f"No preset named {name!r}; the presets are: {names} (see 'iotui presets').")


# -- fio job files -------------------------------------------------------------


def parse_job_file_text(text: str, where: str) -> tuple[dict[str, str], list[JobSection]]:
    """fio's ini format: [global] and job sections, keys with or without values."""
    global_options: dict[str, str] = {}
    sections: list[JobSection] = []
    current: dict[str, str] | None = None
    current_name = ""
    for number, raw_line in enumerate(text.splitlines(), 1):
        line = raw_line.strip()
        if not line or line.startswith((";", "#")):
            continue
        if line.startswith("include ") or line == "include":
            raise PresetError(f"{where}, line {number}: 'include' is refused: iotui runs only what the file itself says.")
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise PresetError(f"{where}, line {number}: expected a section header like [name], found {line!r}.")
            if current is not None and current_name != "global":
                sections.append(JobSection(current_name, current))
            current_name = line[1:-1].strip()
            current = global_options if current_name == "global" else {}
            continue
        if current is None:
            raise PresetError(f"{where}, line {number}: option {line!r} comes before any [section].")
        key, separator, value = line.partition("=")
        current[key.strip()] = value.strip() if separator else ""
    if current is not None and current_name != "global":
        sections.append(JobSection(current_name, current))
    if not sections:
        raise PresetError(f"{where}: the job file has no job section (only [global] or nothing).")
    return global_options, sections


def load_job_file(path: Path) -> Preset:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise PresetError(f"{path}: cannot read the job file ({error.strerror or error}).") from None
    except UnicodeDecodeError:
        raise PresetError(f"{path}: the job file is not UTF-8 text.") from None
    global_options, sections = parse_job_file_text(text, str(path))
    preset = Preset(
        name=f"job-file:{path.stem}",
        title=path.name,
        description=f"fio job file {path.name}",
        tells="",
        options=global_options,
        jobs=tuple(sections),
        source=path,
    )
    _check_policy(preset, str(path))
    return preset


# -- changes before a run ------------------------------------------------------


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
    """Apply changes globally; the same key is removed from sections so it wins."""
    changes: dict[str, str] = {}
    if runtime_s is not None:
        if runtime_s <= 0:
            raise PresetError(f"--runtime should be a positive number of seconds, found {runtime_s}.")
        changes["runtime"] = f"{runtime_s:g}"
        changes["time_based"] = ""
    if size is not None:
        changes["size"] = str(size)
    if bs is not None:
        changes["bs"] = str(bs)
    if iodepth is not None:
        changes["iodepth"] = str(iodepth)
    if numjobs is not None:
        changes["numjobs"] = str(numjobs)
    if direct is not None:
        changes["direct"] = "1" if direct else "0"
    changes.update({str(k): str(v) for k, v in (sets or {}).items()})
    if not changes:
        return preset
    try:
        safety.check_options(changes, "--set")
    except safety.PolicyError as error:
        raise PresetError(str(error)) from None
    options = {**preset.options, **changes}
    jobs = tuple(
        JobSection(section.name, {k: v for k, v in section.options.items() if k not in changes})
        for section in preset.jobs
    )
    return replace(preset, options=options, jobs=jobs)


# -- estimates -------------------------------------------------------------------

_SIZE_SUFFIXES = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}


def parse_size_bytes(value: str | None) -> int | None:
    """fio size syntax (4k, 1G, 1GiB, 512m) in bytes; None when not a plain size."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(i?b)?\s*", str(value).lower())
    if not match:
        return None
    number, suffix, _ = match.groups()
    return int(float(number) * _SIZE_SUFFIXES[suffix])


def parse_seconds(value: str | None) -> float | None:
    """fio time syntax (30, 30s, 2m, 1h, 500ms); plain numbers are seconds."""
    if value is None:
        return None
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(us|ms|s|m|h|d)?\s*", str(value).lower())
    if not match:
        return None
    number, unit = match.groups()
    factor = {"us": 1e-6, "ms": 1e-3, None: 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}[unit]
    return float(number) * factor


def section_option(preset: Preset, section: JobSection, key: str) -> str | None:
    """A section's own value, else the global one."""
    if key in section.options:
        return section.options[key]
    return preset.options.get(key)


def estimate(preset: Preset) -> tuple[float | None, int | None]:
    """(duration in seconds, disk bytes): known when every section has a runtime and size."""
    total_s = 0.0
    duration_known = True
    disk_bytes = 0
    for section in preset.jobs:
        runtime = parse_seconds(section_option(preset, section, "runtime"))
        ramp = parse_seconds(section_option(preset, section, "ramp_time")) or 0.0
        if runtime is None:
            duration_known = False
        else:
            total_s += runtime + ramp
        size = parse_size_bytes(section_option(preset, section, "size"))
        if size is not None:
            # All jobs share iotui's one test file, so the largest size is what lands on disk.
            disk_bytes = max(disk_bytes, size)
    return (total_s if duration_known else None, disk_bytes or None)
