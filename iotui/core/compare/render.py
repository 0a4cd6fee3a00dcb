"""A comparison as text: a terminal table or a markdown table (the CLI and the app share them)."""

from __future__ import annotations

from iotui.core import format as fmt
from iotui.core.compare.compare import (
    METHOD_LEVEL,
    METHOD_REPEATS,
    METHOD_THRESHOLD,
    METHOD_WELCH,
    MIN_EFFECT_PCT,
    MIN_SAMPLES,
    SIGNIFICANCE,
    THRESHOLD_PCT,
    Comparison,
    MetricRow,
    RowValue,
)
from iotui.core.compare.samples import WARMUP_FRACTION, WARMUP_S

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
    text = format_value(key, abs(delta))
    return ("+" if delta > 0 else "-" if delta < 0 else "±") + text


def _versus_cell(row: MetricRow, index: int) -> str:
    verdict = row.verdicts[index]
    if verdict is None or verdict.verdict is None:
        return fmt.NO_VALUE
    parts = []
    if row.deltas[index] is not None:
        parts.append(_signed(row.metric.key, row.deltas[index]))
    if row.delta_pcts[index] is not None:
        parts.append(f"({row.delta_pcts[index]:+.1f}%)")
    parts.append(verdict.verdict)
    if verdict.method == METHOD_WELCH and verdict.p_value is not None:
        parts.append(f"[p={verdict.p_value:.3g}]")
    elif verdict.method == METHOD_THRESHOLD:
        parts.append(f"[±{THRESHOLD_PCT:g}%]")
    elif verdict.method == METHOD_REPEATS and verdict.p_value is not None:
        parts.append(f"[repeats p={verdict.p_value:.3g}]")
    return " ".join(parts)


def metric_name(group: str, label: str) -> str:
    """``CPU user``, ``read IOPS``, ``4k-direct · CPU user``: the group's title, then the label.

    A label that already starts with the group's title (``CPU user`` in the CPU group)
    is not prefixed again.
    """
    section, _, name = group.rpartition(" · ")  # a section's rows: "4k-direct · cpu"
    title = _GROUP_TITLES.get(name, name)
    words = label if label.split(" ", 1)[0].lower() == title.lower() else f"{title} {label}"
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


def _run_lines(comparison: Comparison) -> list[tuple[str, str]]:
    lines = []
    for label, record in zip(comparison.labels, comparison.records):
        title = str(record.run.get("title") or record.preset)
        started = record.started.strftime("%Y-%m-%d %H:%M") if record.started else "?"
        where = str(record.path or record.run.get("source") or "")
        lines.append((label, f"{title} — {record.status}, {started}, {len(record.samples)} samples; {where}"))
    return lines


def comparison_text(comparison: Comparison) -> str:
    """A plain-text report for the terminal."""
    out: list[str] = ["Runs:"]
    out += [f"  {label}  {text}" for label, text in _run_lines(comparison)]
    if comparison.setup:
        out.append("Set-up differences (check before trusting the deltas):")
        width = max(len(key) for key, _ in comparison.setup)
        for key, values in comparison.setup:
            shown = " | ".join(f"{label}={value if value is not None else fmt.NO_VALUE}" for label, value in zip(comparison.labels, values))
            out.append(f"  {key:<{width}}  {shown}")
    else:
        out.append("Set-up: no differences in the recorded set-up.")
    header, body = _table(comparison)
    widths = [max(len(r[i]) for r in [header, *body]) for i in range(len(header))]
    out.append("")
    out.append("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(header)))
    for cells in body:
        out.append("  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(cells)))
    note = method_note(comparison)
    if note:
        out += ["", note]
    out += _answers(comparison)
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
