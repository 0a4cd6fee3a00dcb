"""Where a job file's own paths go: absolute ``directory=`` and scratch ``filename=`` in the private test directory.

A job file is written for someone else's machine: its ``directory=/data1`` says where its files
go, and its ``filename=/tmp/testfile`` names a scratch file that could be anywhere. Both are what
the target is for, so they are placed inside iotui's private test directory (the job never
touches /tmp). Every other absolute path is left as written, for the policy to refuse.
"""

from __future__ import annotations

from typing import Mapping

from iotui.core.fio.file_lists import SPECIAL_FILES, file_list_parts
from iotui.core.presets.model import PresetPolicyError

# The system's scratch directories: a name in them is a scratch name, not a particular file.
SCRATCH_DIRS = ("/tmp/", "/var/tmp/")


def scratch_relative(name: str) -> str | None:
    """``/tmp/a/b`` or ``/var/tmp/a/b`` -> ``a/b``; None for any other name.

    Only a plain name below a scratch directory: no ``.`` or ``..`` component, no empty one
    (``/tmp/``, ``/tmp//a``), no ``~`` and no backslash (fio's escape), so what is placed is
    exactly what was written, and ``/tmp/../etc/passwd`` or ``/tmpfoo/x`` stay refused.
    """
    for scratch in SCRATCH_DIRS:
        if not name.startswith(scratch):
            continue
        rest = name[len(scratch):]
        if not rest or "\\" in rest or "~" in rest:
            return None
        if any(component in ("", ".", "..") for component in rest.split("/")):
            return None
        return rest
    return None


def confine_directory(options: Mapping[str, str], confined: list[str]) -> dict[str, str]:
    """``directory=`` with an absolute path (not a device) -> ``.``: the private test directory."""
    value = options.get("directory")
    if value is None:
        return dict(options)
    if any(part.startswith("/") and not part.startswith(("/dev/", "/proc/", "/sys/")) for part in file_list_parts(value)):
        confined.append(value)
        return {**options, "directory": "."}
    return dict(options)


def _placeable(parts: list[str]) -> bool:
    """Every absolute part is a scratch name or /dev/null, /dev/zero (else the policy refuses it as written)."""
    return all(
        scratch_relative(part) is not None or part in SPECIAL_FILES
        for part in parts if part.startswith(("/", "~"))
    )


class ScratchNames:
    """A job file's scratch names (``/tmp/...``, ``/var/tmp/...``) made relative, one file per name.

    ``placed`` maps each relative name a section uses to the name as written. Two names written
    differently that land on the same relative name (``/tmp/a`` and ``/var/tmp/a``, or ``/tmp/a``
    and a relative ``a`` where no ``directory=`` applies) would be one file, not the two the job
    meant: refused.
    """

    def __init__(self, where: str) -> None:
        self.where = where
        self.placed: dict[str, str] = {}
        self.formats: dict[str, str] = {}

    def _claim(self, relative: str, written: str) -> None:
        earlier = self.placed.setdefault(relative, written)
        if earlier != written:
            reason = (
                f"{earlier} and {written} would both be the file '{relative}' in iotui's private test directory "
                "(a job file's names in /tmp and /var/tmp are placed there by their path below it), not two files"
            )
            raise PresetPolicyError(
                f"{self.where}: the option 'filename={written}' is refused because {reason}. "
                "Give them different names, or run the job with fio directly.",
                code="refused-value",
                facts={"origin": self.where, "given": "filename", "option": "filename", "value": written,
                       "reason": reason, "candidates": []},
                key="filename",
            )

    def claim(self, effective: Mapping[str, str]) -> None:
        """Record the files one section uses (its options with [global]'s); refuse two names for one file."""
        value = effective.get("filename")
        if value is None or not _placeable(file_list_parts(value)):
            return
        for part in file_list_parts(value):
            relative = scratch_relative(part)
            if relative is not None:
                self._claim(relative, part)
            elif part and not part.startswith(("/", "~")) and "directory" not in effective:
                self._claim(part, part)

    def confine(self, options: Mapping[str, str]) -> dict[str, str]:
        """``options`` with each scratch ``filename=`` part (and a scratch ``filename_format``) relative."""
        result = dict(options)
        value = options.get("filename")
        if value is not None:
            parts = file_list_parts(value)
            if _placeable(parts) and any(scratch_relative(part) is not None for part in parts):
                result["filename"] = ":".join(scratch_relative(part) or part for part in parts)
        file_format = options.get("filename_format")
        if file_format is not None:
            relative = scratch_relative(file_format.strip())
            if relative is not None:
                self.formats[file_format.strip()] = relative
                result["filename_format"] = relative
        return result

    def note(self) -> str:
        """The preset description's note: each scratch name and where it went."""
        moved = [(f"filename={written}", relative) for relative, written in self.placed.items() if written != relative]
        moved += [(f"filename_format={written}", relative) for written, relative in self.formats.items()]
        return "".join(f"; its {written} is {relative} in iotui's private test directory" for written, relative in moved)
