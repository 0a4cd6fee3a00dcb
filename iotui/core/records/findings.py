"""What iotui adds to each section of a finished run: steady state, the cache cliff, fio's latency search.

Called once when a record is built: every section with at least five samples
gets ``steady`` (the SNIA window on its samples, with fio's own ``ss`` verdict
beside it when the preset asked fio for one; fio's verdict alone when there
are fewer samples); write-only sections of
20 s or more get ``cliff``; sections run with fio's ``latency_target`` get
``latency_target`` (the queue depth fio settled on). ``docs/numbers.md``
documents each figure.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from iotui.core import format as fmt
from iotui.core.records.cliff import cliff_from_record, is_sustained_write, section_cliff
from iotui.core.records.steady import FioSteadyState, fio_steady_state, section_steady_state

SamplesOf = Callable[[int], Sequence[Mapping[str, Any]]]


def _jobs_by_name(report: Mapping[str, Any] | None) -> dict[str, Mapping[str, Any]]:
    jobs: dict[str, Mapping[str, Any]] = {}
    for job in (report or {}).get("jobs", []) or []:
        if isinstance(job, Mapping) and isinstance(job.get("jobname"), str):
            jobs.setdefault(job["jobname"], job)
    return jobs


def _section_jobs(section: Mapping[str, Any], jobs: Mapping[str, Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    names = section.get("jobs") or [section.get("name")]
    return [jobs[name] for name in names if isinstance(name, str) and name in jobs]


def _duration_s(section: Mapping[str, Any], samples: Sequence[Mapping[str, Any]]) -> float:
    duration = section.get("duration_s")
    if isinstance(duration, (int, float)) and not isinstance(duration, bool):
        return float(duration)
    return sum(float(s.get("dt_s", 0.0) or 0.0) for s in samples if not s.get("paused"))


def latency_target_table(job: Mapping[str, Any]) -> dict[str, Any] | None:
    """fio's latency-target search result of one job: the depth it settled on, the target and window.

    fio 3.x reports ``latency_target`` in ns and ``latency_window`` in µs; the
    record keeps ``target_ns`` and ``window_s``.
    """
    depth = job.get("latency_depth")
    target = job.get("latency_target")
    if not isinstance(target, (int, float)) or isinstance(target, bool) or target <= 0:
        return None
    table: dict[str, Any] = {"target_ns": int(target)}
    if isinstance(depth, int) and not isinstance(depth, bool):
        table["depth"] = depth
    percentile = job.get("latency_percentile")
    if isinstance(percentile, (int, float)) and not isinstance(percentile, bool):
        table["percentile"] = float(percentile)
    window = job.get("latency_window")
    if isinstance(window, (int, float)) and not isinstance(window, bool):
        table["window_s"] = window / 1e6
    return table


def annotate_sections(
    sections: list[dict[str, Any]],
    samples_of: SamplesOf,
    report: Mapping[str, Any] | None,
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
        if state.window is not None or state.fio_ss is not None:  # fewer than five samples: no judgement
            section["steady"] = state.to_record()
        options = options_of(index) if options_of is not None else (section.get("options") or {})
        if samples and is_sustained_write(options, _duration_s(section, samples)):
            section["cliff"] = section_cliff(samples).to_record()
        target = next((t for t in (latency_target_table(job) for job in section_jobs) if t is not None), None)
        if target is not None:
            section["latency_target"] = target


# -- sentences ---------------------------------------------------------------------------


def steady_sentence(steady: Mapping[str, Any] | None) -> str | None:
    """``steady after 8 s`` / ``not steady`` (+ fio's verdict) from a section's ``steady`` table."""
    if not isinstance(steady, Mapping) or not isinstance(steady.get("reached"), bool):
        return None
    method = steady.get("method", "window")
    if steady["reached"]:
        after = steady.get("after_s")
        text = f"steady after {after:.0f} s" if isinstance(after, (int, float)) else "steady"
    else:
        text = "not steady"
    if method == "fio-ss":
        text = f"{text} (fio)"
    fio_ss = steady.get("fio_ss")
    if isinstance(fio_ss, Mapping) and isinstance(fio_ss.get("reached"), bool):
        criterion = fio_ss.get("criterion", "ss")
        text += f"; fio {criterion}: {'steady' if fio_ss['reached'] else 'not steady'}"
    return text


def cliff_sentence(cliff: Mapping[str, Any] | None) -> str | None:
    found = cliff_from_record(cliff) if isinstance(cliff, Mapping) else None
    return found.sentence() if found is not None else None


def latency_target_sentence(section: Mapping[str, Any]) -> str | None:
    """"fio settled on queue depth 8 and held 45.2k read IOPS with p99 within 1.00ms"."""
    target = section.get("latency_target")
    if not isinstance(target, Mapping):
        return None
    held = [
        (direction, table.get("iops"))
        for direction in ("read", "write", "trim")
        if isinstance(table := section.get(direction), Mapping) and isinstance(table.get("iops"), (int, float))
    ]
    iops = " and ".join(f"{fmt.iops(value)} {direction} IOPS" for direction, value in held) or "no IOPS"
    percentile = target.get("percentile")
    which = f"p{percentile:g}" if isinstance(percentile, (int, float)) else "latency"
    window = target.get("window_s")
    over = f" over {window:g} s windows" if isinstance(window, (int, float)) else ""
    depth = target.get("depth")
    settled = f"settled on queue depth {depth}" if isinstance(depth, int) else "found no depth"
    return f"fio {settled} and held {iops} with {which} within {fmt.latency_ns(target.get('target_ns'))}{over}"


def section_finding_lines(section: Mapping[str, Any]) -> list[str]:
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


def section_options(record: Any, index: int) -> dict[str, str]:
    """A section's options: the run's global ones, its own ``<section>.<key>`` ones, then the section's table."""
    section = record.sections[index]
    name = str(section.get("name", ""))
    options = {key: value for key, value in record.options.items() if "." not in key}
    prefix = f"{name}."
    options.update({key[len(prefix):]: value for key, value in record.options.items() if key.startswith(prefix)})
    options.update(section.get("options") or {})
    return options


def annotate_record(record: Any, report: Mapping[str, Any] | None) -> None:
    """:func:`annotate_sections` on a RunRecord (its sections, their samples and options)."""
    if record.sections:
        annotate_sections(record.sections, record.section_samples, report, lambda index: section_options(record, index))
