"""The responsiveness verdict in words, the same wherever it is shown.

The chip, Results, the record's warnings, History, the CLI and sweeps all word a
`[pressure]` table (or a section's) through these functions, so the warning reads
the same everywhere: the level, the signal that crossed its threshold, its value
and the threshold.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from iotui.core.host.advice import RunShape, suggestion
from iotui.core.host.levels import LEGACY_CAUSES, THRESHOLDS, format_value
from iotui.core.host.advice import RaisedSection, section_advice

if TYPE_CHECKING:
    from iotui.core.host.levels import Assessment

# Older records may name a cause no rule produces any more (io PSI): still worded.
CAUSE_LABELS = {cause: label for cause, (label, _, _) in LEGACY_CAUSES.items()}
CAUSE_LABELS.update({threshold.cause: threshold.label for threshold in THRESHOLDS})
CAUSE_MEANINGS = {cause: meaning for cause, (_, _, meaning) in LEGACY_CAUSES.items()}
CAUSE_MEANINGS.update({threshold.cause: threshold.meaning for threshold in THRESHOLDS})
WARNING_CODE = "responsiveness"


def cause_text(pressure: Mapping[str, object]) -> str | None:
    """`io write p99 312 ms > 110 ms`; None when no cause is recorded."""
    cause = pressure.get("cause")
    if not cause:
        return None
    label = CAUSE_LABELS.get(str(cause), str(cause))
    value, unit = pressure.get("cause_value"), str(pressure.get("cause_unit") or "")
    if not isinstance(value, (int, float)):
        return label
    text = f"{label} {format_value(float(value), unit)}"
    limit = pressure.get("cause_threshold")
    if isinstance(limit, (int, float)):
        text += f" > {format_value(float(limit), unit)}"
    return text


def verdict_text(pressure: Mapping[str, object] | None) -> str | None:
    """`sluggish · io write p99 312 ms > 110 ms`, `ok`, or None without a verdict."""
    if not pressure or not pressure.get("responsiveness"):
        return None
    level = str(pressure["responsiveness"])
    cause = cause_text(pressure) if level != "ok" else None
    return f"{level} · {cause}" if cause else level


def pressure_warning(
    pressure: Mapping[str, object] | None, shape: RunShape | None = None, raised: Sequence[RaisedSection] = (),
) -> str | None:
    """The record's warning for a run (or section) that was not OK; None when it was.

    With ``raised`` (the sections where the level rose, :func:`raised_sections`), the advice is
    theirs: each section's own knobs and values, or the outside I/O or memory that the evidence
    points to; without, it fits the run's ``shape``.
    """
    if not pressure or pressure.get("responsiveness") in (None, "ok"):
        return None
    level = pressure["responsiveness"]
    where = "not responding" if level == "unresponsive" else "sluggish"
    cause = pressure.get("cause")
    text = f"Other programs found the machine {where} during the run"
    detail = cause_text(pressure)
    if detail:
        meaning = CAUSE_MEANINGS.get(str(cause))
        value = pressure.get("cause_value")
        if meaning and isinstance(value, (int, float)):
            shown = format_value(float(value), str(pressure.get("cause_unit") or ""))
            text += f": {meaning.format(value=shown)} ({detail})"
        else:
            text += f": {detail}"
    text += "."
    advice = section_advice(raised)
    if not advice and shape is not None and cause:
        advice = suggestion(shape, str(cause))
    return f"{text} {advice}".strip()


def unresponsive_notice(assessment: Assessment, shape: RunShape | None, keys: str) -> str:
    """The notification at Unresponsive: what crossed, by how much, what to try, which keys."""
    meaning = str(assessment.sentence).split(": ", 1)[-1]
    parts = [meaning[:1].upper() + meaning[1:]]
    cause = assessment.cause
    if shape is not None and cause:
        parts.append(suggestion(shape, cause))
    parts.append(keys)
    return " ".join(part for part in parts if part)
