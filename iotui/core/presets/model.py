"""The preset model: a workload as global fio options and job sections, and how options merge.

A preset is data: global fio options plus job sections. It never says where
the test file lives: iotui decides that. Loading one from TOML is
:mod:`iotui.core.presets.files`; a user's fio job file is
:mod:`iotui.core.presets.job_file`; changes before a run are
:mod:`iotui.core.presets.overrides`. The format is documented in ``docs/presets.md``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping

from iotui.core.input_files import InputFileError, read_input_file
from iotui.core.fio import policy as safety


# A preset's and a job's name, and any job name fio may make part of a file name: no '/', no
# leading '.' or '-', nothing a shell or a path would read otherwise (matched whole: fullmatch).
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


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
        self, message: str, *, code: str = "refused-option", facts: safety.RefusalFacts | None = None,
        path: Path | None = None, key: str | None = None,
    ) -> None:
        PresetError.__init__(self, message, path=path, key=key)
        self.code = code
        self.facts: safety.RefusalFacts = facts.copy() if facts else {}

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

    @functools.cached_property
    def merged_sections(self) -> tuple[Mapping[str, str], ...]:
        """Each job section's effective options (globals, then the section's own), merged once per
        Preset: its dicts are read-only, and a change makes a new Preset. Read them through
        :func:`section_options`, which hands out copies."""
        if not self.jobs:
            return (dict(self.options),)
        return tuple(merge_options(self.options, section.options) for section in self.jobs)



def read_user_file(path: Path, what: str, expected: str, *, allow_pipe: bool = False) -> str:
    """The text of a user's preset or job file (``what``: "the preset"), or PresetError naming the file."""
    try:
        return read_input_file(path, what.removeprefix("the "), allow_pipe=allow_pipe).decode("utf-8")
    except InputFileError as error:
        raise PresetError(str(error), path=path) from None
    except UnicodeDecodeError:
        raise PresetError(f"{path}: {what} is not UTF-8 text; expected {expected}.", path=path) from None


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


def without_options(options: Mapping[str, str], names: Iterable[str]) -> dict[str, str]:
    drop = set(names)
    return {key: value for key, value in options.items() if safety.normal_option_name(key) not in drop}


def merge_options(base: Mapping[str, str], override: Mapping[str, str]) -> dict[str, str]:
    """``base`` with ``override`` applied the way fio applies a section over [global]."""
    merged = dict(base)
    for key, value in override.items():
        merged = without_options(merged, same_setting(key))
        merged[key] = value
    return merged


def lookup_option(options: Mapping[str, str], key: str) -> str | None:
    """The value of ``key`` or one of its aliases (the last one set wins, as in fio)."""
    # direct and buffered negate each other: each is looked up by its own name.
    names = {key} if key in ("direct", "buffered") else same_setting(key)
    found = None
    for option, value in options.items():
        if option in names or option.lstrip("-") in names:
            found = value
    return found


def section_options(preset: Preset) -> list[dict[str, str]]:
    """Each job section's effective options (globals, then the section's own), the caller's own copies
    of :attr:`Preset.merged_sections` (merged once per Preset)."""
    return [dict(options) for options in preset.merged_sections]


def section_option(preset: Preset, section: JobSection, key: str) -> str | None:
    """A section's own value (or an alias of it), else the global one."""
    return lookup_option(merge_options(preset.options, section.options), key)


def is_true(value: str | None) -> bool:
    """fio's bool: a valueless flag or 1/true/yes/on."""
    return value is not None and value.strip().lower() in ("", "1", "true", "yes", "on")


def uses_direct_io(preset: Preset) -> bool:
    """Does every section use direct I/O (direct=1 or buffered=0)?"""
    for options in section_options(preset):
        direct = lookup_option(options, "direct")
        buffered = lookup_option(options, "buffered")
        if direct is not None:
            on = is_true(direct)
        elif buffered is not None:
            on = not is_true(buffered)
        else:
            on = False
        if not on:
            return False
    return True


def check_policy(
    options: Mapping[str, str], origin: str, *, channel: safety.Channel = safety.COMMAND_LINE,
    engines: Iterable[str] = (), path: Path | None = None,
) -> dict[str, str]:
    """The options by fio's canonical names, through the one policy; PresetPolicyError if refused."""
    try:
        return safety.check_options(options, origin, channel=channel, engines=engines)
    except safety.PolicyError as error:
        raise PresetPolicyError.of(error, path=path) from None


def engines_in_effect(options: Mapping[str, str], sections: Iterable[JobSection] = ()) -> list[str]:
    """The engines in effect: the global one and every section's own."""
    found = [options.get("ioengine", "")] + [section.options.get("ioengine", "") for section in sections]
    return [engine for engine in dict.fromkeys(found) if engine]
