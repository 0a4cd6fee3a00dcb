"""What iotui adds to each section of a finished run: steady state, the cache cliff, fio's latency search.

Called once when a record is built: every section with samples gets ``steady``
(the SNIA window on its samples, with fio's own ``ss`` verdict beside it when the
preset asked fio for one; "too short to judge", or fio's verdict alone, with fewer
whole seconds than the window); write-only sections of 20 s or more get ``cliff``;
sections run with fio's ``latency_target`` get ``latency_target`` (the queue depth
fio settled on). ``docs/numbers.md`` documents each figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.numbers import is_number, number
from iotui.core.records.cliff import cliff_from_record, is_sustained_write, section_cliff
from iotui.core.records.steady import FioSteadyState, fio_steady_state, section_steady_state, too_short_sentence

if TYPE_CHECKING:
    from iotui.core.records.record import RunRecord

SamplesOf = Callable[[int], Sequence[Mapping[str, object]]]


def _jobs_by_name(report: Mapping[str, object] | None) -> dict[str, Mapping[str, object]]:
    jobs: dict[str, Mapping[str, object]] = {}
    listed = report.get("jobs") if report is not None else None
    for job in listed if isinstance(listed, list) else []:
        if isinstance(job, Mapping) and isinstance(name := job.get("jobname"), str):
            jobs.setdefault(name, job)
    return jobs


def _section_jobs(section: Mapping[str, object], jobs: Mapping[str, Mapping[str, object]]) -> list[Mapping[str, object]]:
    listed = section.get("jobs")
    names = listed if isinstance(listed, list) and listed else [section.get("name")]
    return [jobs[name] for name in names if isinstance(name, str) and name in jobs]


def _duration_s(section: Mapping[str, object], samples: Sequence[Mapping[str, object]]) -> float:
    duration = number(section.get("duration_s"))
    if duration is not None:
        return duration
    return sum(number(s.get("dt_s")) or 0.0 for s in samples if not s.get("paused"))


def latency_target_table(job: Mapping[str, object]) -> dict[str, float | int] | None:
    """fio's latency-target search result of one job: the depth it settled on, the target and window.

    fio 3.x reports ``latency_target`` in ns and ``latency_window`` in µs; the
    record keeps ``target_ns`` and ``window_s``.
    """
    depth = job.get("latency_depth")
    target = number(job.get("latency_target"))
    if target is None or target <= 0:
        return None
    table: dict[str, float | int] = {"target_ns": int(target)}
    if isinstance(depth, int) and not isinstance(depth, bool):
        table["depth"] = depth
    percentile = number(job.get("latency_percentile"))
    if percentile is not None:
        table["percentile"] = percentile
    window = job.get("latency_window")
    if is_number(window):
        table["window_s"] = window / 1e6
    return table


def annotate_sections(
    sections: list[dict[str, object]],
    samples_of: SamplesOf,
    report: Mapping[str, object] | None,
    options_of: Callable[[int], Mapping[str, str]] | None = None,
) -> None:
    """Add ``steady``, ``cliff`` and ``latency_target`` to each section dict, in place.

    ``samples_of(index)`` gives a section's samples; ``report`` is fio's final
    JSON document (None for imports without one); ``options_of(index)`` the
    section's effective options (default: its own ``options`` table).
    """
    jobs = _jobs_by_name(report)
    for index, section in enumerate(sections):
        samples = list(samples_of(index))
        section_jobs = _section_jobs(section, jobs)
        fio_ss: FioSteadyState | None = next(
            (found for found in (fio_steady_state(job) for job in section_jobs) if found is not None), None
        )
        state = section_steady_state(samples, fio_ss=fio_ss)
        if state.window is not None or state.fio_ss is not None or state.too_short:
            section["steady"] = state.to_record()
        own = section.get("options")
        options = options_of(index) if options_of is not None else (own if isinstance(own, Mapping) else {})
        if samples and is_sustained_write(options, _duration_s(section, samples)):
            section["cliff"] = section_cliff(samples).to_record()
        target = next((t for t in (latency_target_table(job) for job in section_jobs) if t is not None), None)
        if target is not None:
            section["latency_target"] = target


# -- sentences ---------------------------------------------------------------------------


def steady_sentence(steady: object) -> str | None:
    """``steady after 8 s`` / ``not steady`` (+ fio's verdict) from a section's ``steady`` table."""
    if not isinstance(steady, Mapping) or not isinstance(steady.get("reached"), bool):
        return None
    method = steady.get("method", "window")
    judged, window = steady.get("judged_s"), steady.get("window_s")
    if not steady["reached"] and is_number(judged) and is_number(window) and judged < window:
        return too_short_sentence(judged, window)
    if steady["reached"]:
        after = steady.get("after_s")
        text = f"steady after {after:.0f} s" if is_number(after) else "steady"
    else:
        text = "not steady"
    if method == "fio-ss":
        text = f"{text} (fio)"
    fio_ss = steady.get("fio_ss")
    if isinstance(fio_ss, Mapping) and isinstance(fio_ss.get("reached"), bool):
        criterion = fio_ss.get("criterion", "ss")
        text += f"; fio {criterion}: {'steady' if fio_ss['reached'] else 'not steady'}"
    return text


def cliff_sentence(cliff: object) -> str | None:
    found = cliff_from_record(cliff) if isinstance(cliff, Mapping) else None
    return found.sentence() if found is not None else None


def latency_target_sentence(section: Mapping[str, object]) -> str | None:
    """"fio settled on queue depth 8 and held 45.2k read IOPS with p99 within 1.00ms"."""
    target = section.get("latency_target")
    if not isinstance(target, Mapping):
        return None
    held = [
        (direction, rate)
        for direction in ("read", "write", "trim")
        if isinstance(table := section.get(direction), Mapping) and (rate := number(table.get("iops"))) is not None
    ]
    iops = " and ".join(f"{fmt.iops(value)} {direction} IOPS" for direction, value in held) or "no IOPS"
    percentile = target.get("percentile")
    which = f"p{percentile:g}" if is_number(percentile) else "latency"
    window = target.get("window_s")
    over = f" over {window:g} s windows" if is_number(window) else ""
    depth = target.get("depth")
    settled = f"settled on queue depth {depth}" if isinstance(depth, int) else "found no depth"
    return f"fio {settled} and held {iops} with {which} within {fmt.latency_ns(target.get('target_ns'))}{over}"


def section_finding_lines(section: Mapping[str, object]) -> list[str]:
    """``steady after 8 s``, ``cache cliff after 12.3 GiB (45 s): …``, ``fio settled on queue depth 8 …``."""
    lines = []
    steady = steady_sentence(section.get("steady"))
    if steady:
        lines.append(steady)
    cliff = cliff_sentence(section.get("cliff"))
    if cliff:
        lines.append(cliff if cliff.startswith("no cliff") else f"cache cliff {cliff}")
    target = latency_target_sentence(section)
    if target:
        lines.append(target)
    return lines


def section_options(record: RunRecord, index: int) -> dict[str, str]:
    """A section's options: the run's global ones, its own ``<section>.<key>`` ones, then the section's table."""
    return all_section_options(record)[index]


def all_section_options(record: RunRecord) -> list[dict[str, str]]:
    """:func:`section_options` of every section, with one pass over the run's options (linear in sections).

    fio's option names hold no '.', so ``<section>.<key>`` splits at its last one."""
    shared: dict[str, str] = {}
    by_section: dict[str, dict[str, str]] = {}
    for key, value in record.options.items():
        name, dot, option = key.rpartition(".")
        if dot:
            by_section.setdefault(name, {})[option] = value
        else:
            shared[key] = value
    found = []
    for section in record.sections:
        options = dict(shared)
        options.update(by_section.get(str(section.get("name", "")), {}))
        options.update(section.get("options") or {})
        found.append(options)
    return found


def annotate_record(record: RunRecord, report: Mapping[str, object] | None) -> None:
    """:func:`annotate_sections` on a RunRecord (its sections, their samples and options)."""
    if record.sections:
        options = all_section_options(record)
        annotate_sections(record.sections, record.section_samples, report, lambda index: options[index])
