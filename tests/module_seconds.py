"""How long each of the longer test modules takes, so the longest are handed out first.

The suite runs a module per worker (``--dist loadfile``), handed out in collection order; a
long module started last keeps one worker busy while the others idle. Seconds of each module
(setup, call and teardown of its tests), measured with three workers on the 2-core development
machine; modules under 5 s are not listed and go after these. Refresh it after a module grows
or shrinks by much:

    .venv/bin/python -m pytest -q --junitxml=/tmp/junit.xml
    .venv/bin/python -m tests.module_seconds /tmp/junit.xml > /tmp/table.txt

and paste the printed table below.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter

LISTED_AT_LEAST_S = 5

MODULE_SECONDS: dict[str, int] = {
    "tests/e2e/test_presets_fio.py": 111,
    "tests/e2e/test_multihost.py": 95,
    "tests/e2e/test_steady_fio.py": 84,
    "tests/e2e/test_remedy_cgroup.py": 76,
    "tests/e2e/test_multihost_probes.py": 63,
    "tests/fault/test_fio_examples.py": 50,
    "tests/ui/test_remedy_screen.py": 48,
    "tests/fault/test_smuggling.py": 45,
    "tests/e2e/test_report_browser.py": 44,
    "tests/ui/test_run.py": 43,
    "tests/ui/test_compare_screen.py": 41,
    "tests/e2e/test_stream_fio.py": 39,
    "tests/e2e/test_remedy_fio.py": 39,
    "tests/ui/test_sweep_screen.py": 36,
    "tests/fault/test_terminal_lost.py": 34,
    "tests/fault/test_remote_garbage.py": 33,
    "tests/e2e/test_interference_fio.py": 32,
    "tests/e2e/test_multihost_app.py": 32,
    "tests/e2e/test_serve_browser.py": 27,
    "tests/e2e/test_run_fio.py": 27,
    "tests/ui/test_home.py": 27,
    "tests/ui/test_history.py": 26,
    "tests/fault/test_login_shells.py": 26,
    "tests/fault/test_signals.py": 24,
    "tests/e2e/test_app_hosts_start.py": 23,
    "tests/e2e/test_sweep_fio.py": 22,
    "tests/fault/test_completion_names.py": 21,
    "tests/ui/test_first_run_80.py": 18,
    "tests/e2e/test_one_saver_fio.py": 18,
    "tests/e2e/test_install_wheel.py": 16,
    "tests/e2e/test_responsiveness_fio.py": 16,
    "tests/e2e/test_api_fio.py": 14,
    "tests/e2e/test_fio_size_reading.py": 14,
    "tests/core/test_remote.py": 14,
    "tests/core/test_fio_import_properties.py": 14,
    "tests/fault/test_index_trust.py": 14,
    "tests/fault/test_serve_limits.py": 13,
    "tests/e2e/test_remedy_report.py": 13,
    "tests/e2e/test_sections_fio.py": 12,
    "tests/ui/test_multihost_ui.py": 12,
    "tests/e2e/test_lifeline.py": 12,
    "tests/e2e/test_metrics_prometheus.py": 12,
    "tests/e2e/test_desktop_fio.py": 12,
    "tests/e2e/test_section_seconds_fio.py": 12,
    "tests/e2e/test_live_decode_fio.py": 11,
    "tests/ui/test_palette.py": 11,
    "tests/ui/test_desktop_results.py": 11,
    "tests/ui/test_snapshots.py": 10,
    "tests/e2e/test_multihost_listing.py": 10,
    "tests/ui/test_pause_fio.py": 10,
    "tests/fault/test_app_signals.py": 10,
    "tests/fault/test_safe_writes.py": 10,
    "tests/core/test_import_text_groups.py": 8,
    "tests/core/test_imports.py": 8,
    "tests/ui/test_results_layout.py": 7,
    "tests/e2e/test_ssh_connections.py": 7,
    "tests/e2e/test_multihost_width.py": 7,
    "tests/core/test_fio_import.py": 7,
    "tests/ui/test_report_key.py": 7,
    "tests/core/test_completion.py": 7,
    "tests/fault/test_bounded_files.py": 6,
    "tests/core/test_host_probes.py": 6,
    "tests/e2e/test_runner_fio.py": 6,
    "tests/ui/test_real_fio.py": 6,
    "tests/fault/test_import_bounds.py": 6,
    "tests/e2e/test_sweep_sections_fio.py": 6,
    "tests/e2e/test_slo_fio.py": 6,
    "tests/e2e/test_cli_width_fio.py": 6,
    "tests/e2e/test_run_lock_fio.py": 6,
    "tests/ui/test_driver.py": 6,
    "tests/e2e/test_repeat_fio.py": 6,
    "tests/ui/test_compositor.py": 5,
    "tests/ui/test_sections_at_80.py": 5,
    "tests/ui/test_live.py": 5,
    "tests/core/test_report_without_matplotlib.py": 5,
}


def table_from_junit(path: str) -> dict[str, int]:
    """Each module's seconds from a junit XML report (its tests' times added up)."""
    seconds: Counter[str] = Counter()
    for case in ElementTree.parse(path).iter("testcase"):
        parts = (case.get("classname") or "").split(".")
        modules = [index for index, part in enumerate(parts) if part.startswith("test_")]
        if not modules:
            continue
        seconds["/".join(parts[: modules[-1] + 1]) + ".py"] += float(case.get("time") or 0.0)
    return {module: round(value) for module, value in seconds.most_common() if value >= LISTED_AT_LEAST_S}


if __name__ == "__main__":
    for module, value in table_from_junit(sys.argv[1]).items():
        print(f'    "{module}": {value},')
