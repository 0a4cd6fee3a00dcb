"""A user's fio job file read into the preset model (fio's ini format, checked by the one policy)."""

from __future__ import annotations

import re
from pathlib import Path

from iotui.core.fio import policy as safety
from iotui.core.presets.job_file_paths import ScratchNames, confine_directory
from iotui.core.presets.model import (
    JobSection, Preset, PresetError, PresetPolicyError, check_policy, engines_in_effect, read_user_file,
    same_setting,
)

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# What fio's job-file parser strips around names and values (C's isspace): a no-break space or
# another Unicode space is part of the value for fio, so it stays for the policy to judge.
FIO_SPACE = " \t\n\r\v\f"


def _strip_comment(line: str) -> str:
    # fio ends a job-file line at the first ';' or '#', wherever it is.
    cut = min((index for index in (line.find(";"), line.find("#")) if index >= 0), default=len(line))
    return line[:cut].strip(FIO_SPACE)


def parse_job_file_text(text: str, where: str) -> tuple[dict[str, str], list[JobSection]]:
    """fio's ini format: [global] and job sections, keys with or without values.

    As fio does: ';' and '#' start a comment anywhere on a line; a section
    whose name starts with "global" holds global options, and a [global] after
    a job applies to the jobs that follow it (its options are folded into them);
    ``name=`` inside a job renames it. A line starting with "include" is
    refused, since fio would read another file.
    """
    global_options: dict[str, str] = {}
    late_globals: dict[str, str] = {}
    sections: list[tuple[str, dict[str, str]]] = []
    current: dict[str, str] | None = None
    seen_job = False
    # fio ends a line at '\n' only (not at the other line breaks Python's splitlines() knows).
    for number, raw_line in enumerate(text.split("\n"), 1):
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
            section_name = line[1:-1].strip(FIO_SPACE)
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
        key = key.strip(FIO_SPACE)
        if not key:
            raise PresetError(f"{where}, line {number}: {line!r} has no option name before '='.")
        if safety.normal_option_name(key) == "name" and current is not global_options and current is not late_globals:
            renamed = value.strip(FIO_SPACE)
            if _CONTROL.search(renamed) or "$" in renamed:  # the same rule as a section header's name
                raise PresetError(f"{where}, line {number}: the job name {renamed!r} has characters fio would expand.")
            reason = safety.value_refusal("name", renamed) if renamed else None
            if reason:
                raise PresetPolicyError(f"{where}, line {number}: the job name {renamed!r} is refused because {reason}.", code="refused-value")
            sections[-1] = (renamed or sections[-1][0], current)
            continue
        for existing in [k for k in current if safety.normal_option_name(k) in same_setting(key)]:
            del current[existing]
        current[key] = value.strip(FIO_SPACE) if separator else ""
    if not sections:
        raise PresetError(f"{where}: the job file has no job section (only [global] or nothing); expected at least one [job].")
    return global_options, [JobSection(name, options) for name, options in sections]


def load_job_file(path: Path) -> Preset:
    """A user's fio job file in the preset model; its sections keep fio's own ordering."""
    path = Path(path)
    text = read_user_file(path, "the job file", "a fio job file", allow_pipe=True)
    global_options, sections = parse_job_file_text(text, str(path))
    # A job file's directory= says where its files go, which is what the target is for: an absolute
    # one (/data1, /scratch, /mount-point-of-ssd) becomes iotui's private test directory in the target.
    # A filename= in /tmp/ or /var/tmp/ is a scratch name: placed there by its path below it. Every other
    # absolute filename= names a particular file and stays refused (except /dev/null and /dev/zero).
    confined: list[str] = []
    scratch = ScratchNames(str(path))
    for section in sections:
        scratch.claim({**global_options, **section.options})
    global_options = scratch.confine(confine_directory(global_options, confined))
    sections = [JobSection(section.name, scratch.confine(confine_directory(section.options, confined)))
                for section in sections]
    global_options = check_policy(global_options, f"{path} [global]", channel=safety.JOB_FILE, path=path)
    global_options.pop("name", None)  # a label: each section has its own name
    global_engines = engines_in_effect(global_options)
    sections = [
        JobSection(
            section.name,
            check_policy(section.options, f"{path} [{section.name}]", channel=safety.JOB_FILE,
                          engines=global_engines, path=path),
        )
        for section in sections
    ]
    note = ""
    if confined:
        note = f"; its directory={', directory='.join(dict.fromkeys(confined))} is iotui's private test directory in the target"
    note += scratch.note()
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
