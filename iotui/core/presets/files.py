"""Loading presets: where they live, a TOML file validated into a Preset, listing and finding them.

Every mistake names the file and the key (``PresetError``); an option the
policy refuses raises ``PresetPolicyError``. The format is ``docs/presets.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Mapping

from iotui.core.toml_reader import tomllib
from iotui.core.fio.policy import value_refusal
from iotui.core.presets.model import (
    NAME_PATTERN, JobSection, Preset, PresetError, PresetPolicyError, check_policy, engines_in_effect, read_user_file,
)
from iotui.core.presets.dirs import preset_dirs, preset_files  # where list_presets looks
from iotui.core.presets.dirs import shipped_presets_dir as shipped_presets_dir  # re-exported: callers find presets here
from iotui.core.presets.dirs import user_presets_dir as user_presets_dir
from iotui.core.presets.platform import for_platform

_TOP_KEYS = ("name", "title", "description", "tells", "options", "jobs", "sweep")
_SWEEP_KEYS = ("vary", "note")


# -- where presets live ----------------------------------------------------------------


# -- loading TOML presets ---------------------------------------------------------------


def _check_job_name(job_name: str, where: str, key: str) -> None:
    """A job's name passes the one policy's check of ``name`` (fio reads 'global...' as [global])."""
    reason = value_refusal("name", job_name)
    if reason:
        raise PresetPolicyError(f"{where}: key '{key}' ({job_name!r}) is refused because {reason}.", code="refused-value", key=key)


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
            ((canonical, _),) = check_policy({key: value}, f"{where} [sweep]", engines=engines).items()
        checked[canonical or str(key)] = strings
    note = sweep.get("note")
    if note is not None and not isinstance(note, str):
        raise PresetError(f"{where}: key 'sweep.note' should be a string.", key="sweep.note")
    return {**sweep, "vary": checked}


def _special_refusal(key: str, values: list[str], sections: list[str]) -> str | None:
    """Why a [sweep] key that is not a fio option is refused in a preset file, or None."""
    if key in ("target", "targets"):
        return "a preset file cannot choose where a run writes; targets come from you when the run starts"
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
    if not NAME_PATTERN.fullmatch(name):
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
        if not isinstance(job_name, str) or not NAME_PATTERN.fullmatch(job_name):
            raise PresetError(
                f"{where}: key 'jobs[{index}].name' is missing or not a name (expected a string of letters, "
                "digits, '-', '_' or '.').",
                key=f"jobs[{index}].name",
            )
        _check_job_name(job_name, where, f"jobs[{index}].name")
        if any(section.name == job_name for section in jobs):
            raise PresetError(f"{where}: key 'jobs[{index}].name' repeats {job_name!r}; expected unique names.")
        jobs.append(JobSection(job_name, _options_table(section_table, where, f"jobs[{index}]")))
    if not jobs:
        _check_job_name(name, where, "name")
        jobs.append(JobSection(name, {}))
    options = check_policy(options, where)
    global_engines = engines_in_effect(options)
    jobs = [
        JobSection(section.name, check_policy(section.options, f"{where} [{section.name}]", engines=global_engines))
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
            sweep, where, sections=[section.name for section in jobs], engines=engines_in_effect(options, jobs)
        ),
    )


def load_preset_file(path: Path, *, platform: str | None = None) -> Preset:
    """A preset from its TOML file, adapted to this platform (see :func:`for_platform`)."""
    path = Path(path)
    text = read_user_file(path, "the preset", "a TOML file")
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
    for path in preset_files(dirs if dirs is not None else preset_dirs()):
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
