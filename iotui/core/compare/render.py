"""A comparison as text: a terminal table or a markdown table (the CLI and the app share them)."""

from __future__ import annotations

from iotui.core import format as fmt
from iotui.core.compare.compare import (
    METHOD_LEVEL,
    METHOD_REPEATS,
    METHOD_THRESHOLD,
    METHOD_WELCH,
    METHOD_WHOLE_RUN,
    MIN_EFFECT_PCT,
    MIN_SAMPLES,
    SIGNIFICANCE,
    THRESHOLD_PCT,
    Comparison,
    MetricRow,
    RowValue,
)
from iotui.core.compare.samples import WARMUP_FRACTION, WARMUP_S
from iotui.core.table import Cell, Column, Step, fit_table, wrap

_GROUP_TITLES = {"read": "read", "write": "write", "trim": "trim", "cpu": "CPU", "pressure": "responsiveness"}


def format_value(key: str, value: RowValue) -> str:
    """A metric's value in the unit its key names."""
    if value is None:
        return fmt.NO_VALUE
    if isinstance(value, str):
        return value
    if key.endswith("_ns"):
        return fmt.latency_ns(value)
    if key == "bw_bytes":
        return fmt.bytes_per_s(value)
    if key.endswith("_pct"):
        return fmt.percent(value)
    if key == "fio_cpu_cores":
        return f"{value:.2f}"
    if key.endswith("_per_s"):
        return fmt.rate(value)
    return fmt.iops(value)


def _signed(key: str, delta: float | None) -> str:
    if delta is None:
        return fmt.NO_VALUE
    if key.endswith("_pct"):
        # A change in a figure that is itself a percent is in percentage points: 68.5% to 48.3% is -20.2 pp.
        return f"{delta:+.1f} pp" if delta else "±0.0 pp"
    text = format_value(key, abs(delta))
    return ("+" if delta > 0 else "-" if delta < 0 else "±") + text


def _versus_cell(row: MetricRow, index: int) -> str:
    return _versus_forms(row, index)[0]


def _versus_forms(row: MetricRow, index: int) -> tuple[str, ...]:
    """The cell in full, then without its test's tag, then with only the relative change and the verdict."""
    verdict = row.verdicts[index]
    if verdict is None or verdict.verdict is None:
        return (fmt.NO_VALUE,)
    parts = []
    delta = None
    if row.deltas[index] is not None:
        delta = _signed(row.metric.key, row.deltas[index])
        parts.append(delta)
    percent_of_percent = row.metric.key.endswith("_pct")
    if row.delta_pcts[index] is not None and not percent_of_percent:
        parts.append(f"({row.delta_pcts[index]:+.1f}%)")
    parts.append(verdict.verdict)
    untagged = " ".join(parts)
    short = " ".join(parts[1:]) if delta is not None and len(parts) > 2 else untagged
    if verdict.method == METHOD_WELCH and verdict.p_value is not None:
        parts.append(f"[p={verdict.p_value:.3g}]")
    elif verdict.method == METHOD_THRESHOLD:
        parts.append(f"[±{THRESHOLD_PCT:g}%]")
    elif verdict.method == METHOD_WHOLE_RUN:
        parts.append(f"[±{THRESHOLD_PCT:g}% run]")
    elif verdict.method == METHOD_REPEATS and verdict.p_value is not None:
        parts.append(f"[repeats p={verdict.p_value:.3g}]")
    return (" ".join(parts), untagged, short)


def metric_name(group: str, label: str) -> str:
    """``CPU user``, ``read IOPS``, ``4k-direct · CPU user``: the group's title, then the label.

    A label that already names the group's title (``CPU user``, ``fio CPU (cores)`` in the CPU group,
    ``worst responsiveness``) is not prefixed again.
    """
    section, _, name = group.rpartition(" · ")  # a section's rows: "4k-direct · cpu"
    title = _GROUP_TITLES.get(name, name)
    named = title.lower() in label.lower().replace("(", " ").split()
    words = label if named else f"{title} {label}"
    return f"{section} · {words}" if section else words


def _table(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    labels = comparison.labels
    header = ["metric", *labels, *[f"{label} vs {labels[0]}" for label in labels[1:]]]
    body: list[list[str]] = []
    for row in comparison.rows:
        name = metric_name(row.metric.group, row.metric.label)
        cells = [name, *[format_value(row.metric.key, v) for v in row.values]]
        cells += [_versus_cell(row, i) for i in range(1, len(labels))]
        body.append(cells)
    return header, body


def method_note(comparison: Comparison) -> str:
    """One sentence per verdict method the comparison used."""
    methods = comparison.methods()
    notes = []
    if METHOD_WELCH in methods:
        notes.append(
            f"Verdicts with p: Welch's t-test on the per-interval values after {WARMUP_S:g} s or "
            f"{WARMUP_FRACTION:.0%} of warm-up (effective sample size for autocorrelation); a difference "
            f"counts when p < {SIGNIFICANCE:g} and it is at least {MIN_EFFECT_PCT:g}%."
        )
    if METHOD_THRESHOLD in methods:
        # Fewer than MIN_SAMPLES steady values of that figure on a side, not necessarily none: a 3-s
        # run has 3, and a figure the samples do not carry (a CPU figure) has none in a 20-s run.
        notes.append(
            f"Verdicts marked ±{THRESHOLD_PCT:g}%: fewer than {MIN_SAMPLES} interval samples of that figure "
            f"after warm-up in one run or both (imports and references have none), too few for the test, "
            f"so a plain delta and a fixed threshold: within {THRESHOLD_PCT:g}% is called the same."
        )
    if METHOD_WHOLE_RUN in methods:
        notes.append(
            f"Verdicts marked ±{THRESHOLD_PCT:g}% run: figures iotui has only for the whole run, not per second "
            f"(fio's CPU, IOPS per core), so a plain delta and a fixed threshold: within {THRESHOLD_PCT:g}% is "
            "called the same."
        )
    if METHOD_REPEATS in methods:
        notes.append(
            "Verdicts marked with repeats: both runs were repeated (a repeat group), so Welch's t-test on the "
            "runs' own figures, one per repeat: the spread between whole runs is the noise."
        )
    if METHOD_LEVEL in methods:
        notes.append("Responsiveness compares the worst level reached (ok < sluggish < unresponsive).")
    if comparison.sections:
        notes.append("Runs with several sections are compared section by section (matched by name and options).")
    notes += comparison.notes
    return " ".join(notes)


def no_shared_section(comparison: Comparison) -> str | None:
    """A sentence when runs with sections share none (matched by name and options), so the table would
    be nothing but dashes; None when some section is compared."""
    if not comparison.sections:
        return None
    if any(sum(1 for view in part.records if view.sections) >= 2 for _, part in comparison.sections):
        return None
    having = "; ".join(
        f"{label} has {', '.join(str(section.get('name', '?')) for section in record.sections) or 'none'}"
        for label, record in zip(comparison.labels, comparison.records)
    )
    return (
        f"These runs share no section (sections are matched by name and options: {having}), so there is no "
        "figure to set side by side; compare runs of the same preset or with the same job sections."
    )


def _run_lines(comparison: Comparison) -> list[tuple[str, str]]:
    lines = []
    for label, record in zip(comparison.labels, comparison.records):
        title = str(record.run.get("title") or record.preset)
        started = record.started.strftime("%Y-%m-%d %H:%M") if record.started else "?"
        where = str(record.path or record.run.get("source") or "")
        lines.append((label, f"{title} — {record.status}, {started}, {len(record.samples)} samples; {where}"))
    return lines


def _fitted_table(comparison: Comparison, width: int | None) -> list[str]:
    """The metric table fitted to ``width``: the metric names are cut (to 22 characters, a section's
    name first), then the verdicts lose their test's tag (the note below names the tests), then their
    absolute change."""
    labels = comparison.labels
    others = range(1, len(labels))
    columns = [Column("metric", min_width=22)]
    columns += [Column(label, align="right") for label in labels]
    columns += [Column(f"{label} vs {labels[0]}", align="right") for label in labels[1:]]
    rows: list[list[Cell]] = []
    for row in comparison.rows:
        cells: list[Cell] = [metric_name(row.metric.group, row.metric.label)]
        cells += [format_value(row.metric.key, value) for value in row.values]
        cells += [_versus_forms(row, index) for index in others]
        rows.append(cells)
    first_versus = 1 + len(labels)
    steps = [Step("cut", 0)] + [Step("shorten", first_versus + i) for i in range(len(labels) - 1)] * 2
    return fit_table(columns, rows, width, steps)


def comparison_text(comparison: Comparison, width: int | None = None) -> str:
    """A plain-text report for the terminal, fitted to ``width`` characters (None: every column in full)."""
    out: list[str] = ["Runs:"]
    for label, text in _run_lines(comparison):
        out += wrap(text, width, " " * (4 + len(label)), f"  {label}  ")
    if comparison.setup:
        out.append("Set-up differences (check before trusting the deltas):")
        key_width = max(len(key) for key, _ in comparison.setup)
        for key, values in comparison.setup:
            shown = " | ".join(f"{label}={value if value is not None else fmt.NO_VALUE}" for label, value in zip(comparison.labels, values))
            out += wrap(shown, width, " " * (4 + key_width), f"  {key:<{key_width}}  ")
    else:
        out.append("Set-up: no differences in the recorded set-up.")
    out.append("")
    shared = no_shared_section(comparison)
    if shared:
        out += wrap(shared, width)
    else:
        out += _fitted_table(comparison, width)
    note = method_note(comparison)
    if note:
        out += ["", *wrap(note, width)]
    for line in _answers(comparison):
        out += wrap(line, width) if line and not line.startswith(" ") and "  " not in line else [line]
    return "\n".join(out) + "\n"


def _answers(comparison: Comparison) -> list[str]:
    """Runs that never settled, and two desktop tables side by side."""
    from iotui.core.compare.answers import desktop_side_by_side, never_settled

    lines = never_settled(comparison.records, comparison.labels)
    out = ["", *lines] if lines else []
    table = desktop_side_by_side(comparison.records)
    if table:
        out += ["", table.rstrip("\n")]
    return out


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def comparison_markdown(comparison: Comparison) -> str:
    """The comparison as a markdown document: runs, set-up differences, the metric table."""
    out = ["| run | what |", "|---|---|"]
    out += [f"| {label} | {_md_escape(text)} |" for label, text in _run_lines(comparison)]
    if comparison.setup:
        out += ["", "| set-up | " + " | ".join(comparison.labels) + " |", "|---" * (len(comparison.labels) + 1) + "|"]
        for key, values in comparison.setup:
            cells = [_md_escape(v) if v is not None else fmt.NO_VALUE for v in values]
            out.append(f"| {key} | " + " | ".join(cells) + " |")
    header, body = _table(comparison)
    out += ["", "| " + " | ".join(header) + " |", "|---" + "|--:" * (len(header) - 1) + "|"]
    out += ["| " + " | ".join(_md_escape(c) for c in cells) + " |" for cells in body]
    note = method_note(comparison)
    if note:
        out += ["", note]
    out += _answers(comparison)
    return "\n".join(out) + "\n"
