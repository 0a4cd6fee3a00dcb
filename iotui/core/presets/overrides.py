"""Changes before a run (runtime, size, block size, depth, jobs, direct, any option): a new Preset."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Mapping

from iotui.core.fio import policy as safety
from iotui.core.fio.options import OptionNameError, default_table
from iotui.core.fio.values import runtime_problem, value_problem
from iotui.core.presets.argv import check_job_names
from iotui.core.presets.model import (
    JobSection, Preset, PresetError, check_policy, engines_in_effect, lookup_option, same_setting, without_options,
)

# Engines whose I/O cannot be repeated: filedelete removes each file once, and a time-based loop
# fails on the files it already removed (fio: "No such file or directory").
ONE_PASS_ENGINES = frozenset({"filedelete"})


def _not_empty(value: str, key: str, name: str, example: str) -> str:
    text = str(value).strip()
    if not text:
        raise PresetError(f"{name} is empty; expected a value such as {example}.", key=key)
    return text


def _checked_value(option: str, value: str, name: str) -> str:
    """``value`` when fio's ``option`` takes it, else PresetError in the option editor's words."""
    problem = value_problem(option, value)
    if problem:
        raise PresetError(f"{name} {problem}.", key=option)
    return value


def _left_to_policy(value: str) -> bool:
    """A substitution or a control character: the policy says why it is refused."""
    return "$" in value or any(ord(character) < 32 or 127 <= ord(character) <= 159 for character in value)


def _check_set_values(pairs: Mapping[str, str], engines: list[str], name: str) -> None:
    """The set values of the options the editor edits (by any of fio's names for them), checked
    before the policy's own judgement; a substitution or a control character is left to the policy,
    which says why it is refused."""
    table = default_table()
    for given, value in pairs.items():
        if _left_to_policy(value):
            continue
        try:
            option = table.resolve(given, safety.COMMAND_LINE, engines)
        except OptionNameError:
            continue  # the policy words an unknown name
        problem = value_problem(option, value)
        if problem:
            raise PresetError(f"{name}: the option '{given}={value}' is refused because {option} {problem}.", key="set")


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
    names: Mapping[str, str] | None = None,
) -> Preset:
    """Apply changes globally; the same setting (aliases included) is removed from sections so it wins.

    ``runtime_s`` also sets ``time_based``; ``size`` replaces ``filesize``; ``bs``
    replaces ``bsrange`` and ``bssplit``; ``direct`` replaces ``buffered``.
    Every change goes through the option policy (PresetPolicyError). A refused
    change raises PresetError whose ``key`` is the change (``runtime``, ``size``,
    ``bs``, ``iodepth``, ``numjobs``, ``direct``, ``set``); ``names`` says how the
    caller calls each change in its sentences (the command line: ``--runtime``;
    the app: its fields), else the change's own name.
    """
    def name(key: str) -> str:
        return (names or {}).get(key, key)

    # (origin, key, value, names it replaces)
    changes: list[tuple[str, str, str, frozenset[str]]] = []
    if runtime_s is not None:
        if not isinstance(runtime_s, (int, float)) or not math.isfinite(runtime_s) or runtime_s <= 0:
            raise PresetError(f"{name('runtime')} {runtime_problem(str(runtime_s))}.", key="runtime")
        changes.append((name("runtime"), "runtime", f"{runtime_s:g}", same_setting("runtime")))
        changes.append((name("runtime"), "time_based", "", frozenset({"time_based"})))
    if size is not None:
        changes.append((name("size"), "size", _not_empty(size, "size", name("size"), '"1G"'), frozenset({"size", "filesize"})))
    if bs is not None:
        block_names = same_setting("bs") | same_setting("bsrange") | {"bssplit"}
        changes.append((name("bs"), "bs", _not_empty(bs, "bs", name("bs"), '"4k"'), frozenset(block_names)))
    if iodepth is not None:
        changes.append((name("iodepth"), "iodepth", _not_empty(str(iodepth), "iodepth", name("iodepth"), "32"), frozenset({"iodepth"})))
    if numjobs is not None:
        changes.append((name("numjobs"), "numjobs", _not_empty(str(numjobs), "numjobs", name("numjobs"), "4"), frozenset({"numjobs"})))
    if direct is not None:
        changes.append((name("direct"), "direct", "1" if direct else "0", same_setting("direct")))
    # The editor's own words first (they say the range), as for --set below; a substitution or a
    # control character is left to the policy, which says why it is refused.
    for origin, key, value, _ in changes:
        if key in ("size", "bs", "iodepth", "numjobs") and not _left_to_policy(value):
            _checked_value(key, value, origin)
    for origin, key, value, _ in changes:
        check_policy({key: value}, origin)
    set_pairs = {str(raw_key).strip().lstrip("-"): str(value) for raw_key, value in (sets or {}).items()}
    if set_pairs:
        _check_set_values(set_pairs, engines_in_effect(preset.options, preset.jobs), name("set"))
        # Every set name as fio's command line reads it (any unique prefix), by its canonical name.
        for key, value in check_policy(set_pairs, name("set"), engines=engines_in_effect(preset.options, preset.jobs)).items():
            changes.append((name("set"), key, value, same_setting(key)))
    if not changes:
        return preset
    options = dict(preset.options)
    jobs = list(preset.jobs)
    for origin, key, value, replaced in changes:
        if key == "name":
            # fio's name= is the job's name, not an option: the job takes it, as fio's --name gives it.
            jobs = _renamed_jobs(preset.name, jobs, value, origin)
            options = without_options(options, replaced)  # a name= left in the globals would not be fio's
            continue
        options = _replace_in_place(options, key, value, replaced)
        jobs = [JobSection(section.name, without_options(section.options, replaced)) for section in jobs]
    if runtime_s is not None:
        jobs = [_one_pass(section, options) for section in jobs]
    changed = replace(preset, options=options, jobs=tuple(jobs), title=effective_title(preset, changes))
    if any(key == "name" for _, key, _, _ in changes):
        check_job_names(changed)  # now, not when the run starts: fio may make the name part of a file name
    return changed


def _renamed_jobs(preset_name: str, jobs: list[JobSection], job_name: str, origin: str) -> list[JobSection]:
    """The preset's one job (as changed so far) under ``job_name``; a preset of several jobs is refused:
    one name for all of them would make its sections impossible to tell apart."""
    if not job_name.strip():
        raise PresetError(f"{origin}: name= is empty; expected a job name such as name=nightly.", key="set")
    if len(jobs) > 1:
        names = ", ".join(section.name for section in jobs)
        raise PresetError(
            f"{origin}: name={job_name} would give every job of {preset_name} one name, and it has "
            f"{len(jobs)} ({names}). Rename a job in a copy of the preset (its [[jobs]] name) "
            "or of the job file (its [section] header).",
            key="set",
        )
    options = jobs[0].options if jobs else {}
    return [JobSection(job_name, without_options(options, frozenset({"name"})))]


def _one_pass(section: JobSection, options: Mapping[str, str]) -> JobSection:
    """A section whose engine cannot repeat keeps the runtime as a cap, without time_based."""
    engine = (lookup_option(section.options, "ioengine") or lookup_option(options, "ioengine") or "").strip()
    if engine not in ONE_PASS_ENGINES:
        return section
    return JobSection(section.name, {**section.options, "time_based": "0"})


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
