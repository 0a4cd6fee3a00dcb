"""Compare's set-up values: a size in bytes is shown in binary units only when it is ASCII digits."""

from __future__ import annotations

from iotui.core import format as fmt
from iotui.ui.widgets.comparison_setup import setup_value


def test_sizes_in_ascii_digits_are_shown_in_units_and_anything_else_as_written() -> None:
    assert setup_value("mem_total_bytes", "1073741824") == fmt.size_bytes(1 << 30)
    assert setup_value("mem_total_bytes", "²") == "²"  # a digit to isdigit(), not to int()
    assert setup_value("mem_total_bytes", "١٢") == "١٢"  # Arabic-Indic digits: int() takes them, fio would not
    huge = "9" * 5000  # int() refuses more than 4300 digits
    assert setup_value("mem_total_bytes", huge) == huge
    assert setup_value("mem_total_bytes", None) == fmt.NO_VALUE
