"""The table that orders the suite's modules names modules that exist, and is read from junit XML right."""

from __future__ import annotations

from pathlib import Path

from tests.module_seconds import LISTED_AT_LEAST_S, MODULE_SECONDS, table_from_junit

ROOT = Path(__file__).resolve().parents[1]


def test_every_listed_module_exists_and_is_long_enough_to_list() -> None:
    missing = [module for module in MODULE_SECONDS if not (ROOT / module).is_file()]
    assert missing == [], "renamed or removed: refresh tests/module_seconds.py"
    assert min(MODULE_SECONDS.values()) >= LISTED_AT_LEAST_S


def test_a_modules_seconds_are_its_tests_times_added_up(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.e2e.test_long" name="test_a" time="4.4"/>'
        '<testcase classname="tests.e2e.test_long" name="test_b[x]" time="3.3"/>'
        '<testcase classname="tests.ui.test_classy.TestScreen" name="test_c" time="6.0"/>'
        '<testcase classname="tests.core.test_short" name="test_d" time="1.0"/>'
        "</testsuite></testsuites>"
    )
    assert table_from_junit(str(report)) == {"tests/e2e/test_long.py": 8, "tests/ui/test_classy.py": 6}
