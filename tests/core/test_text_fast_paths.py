"""The fast paths a large report takes (a 193 MB json+ of 10,000 groups) give what the checked paths give."""

from __future__ import annotations

import pytest

from iotui.core.fio.normalize import DocumentError, normalize_direction
from iotui.core.terminal_text import strip_document, terminal_safe


def test_a_plain_report_keeps_its_lines_and_loses_its_tabs() -> None:
    assert terminal_safe("read:\tIOPS=1\nwrite: IOPS=2\n", keep_newlines=True) == "read: IOPS=1\nwrite: IOPS=2\n"
    assert terminal_safe("read:\tIOPS=1\nwrite: IOPS=2", keep_newlines=False) == "read: IOPS=1 write: IOPS=2"


@pytest.mark.parametrize("hidden", ["\x1b[31m", "\x1b]0;title\x07", "\r", "\x00", "\x7f", "\x9b31m", "\u202e", "\x08"])
def test_one_control_character_in_a_large_plain_text_is_still_removed(hidden: str) -> None:
    text = "x" * 1_000_000 + hidden + "y\n"
    cleaned = terminal_safe(text, keep_newlines=True)
    assert cleaned.startswith("x" * 1_000_000) and cleaned.endswith("y\n")
    assert not any(char in cleaned for char in "\x1b\r\x00\x7f\x9b\u202e\x08")
    assert "31m" not in cleaned and "title" not in cleaned


def test_a_documents_strings_and_keys_are_cleaned_however_deep() -> None:
    document = {"jobs": [{"jobname": "a\x1b[2Jb", "bins": {"1000": 3}, "opts": {"k\x1b[m": ["v\r", 1.5, None]}}]}
    assert strip_document(document) == {"jobs": [{"jobname": "ab", "bins": {"1000": 3}, "opts": {"k": ["v ", 1.5, None]}}]}  # a line break: a space


def direction_with_bins(bins: dict) -> dict:
    return {"io_bytes": 4096, "io_kbytes": 4, "bw_bytes": 1, "iops": 1.0, "runtime": 1000, "total_ios": 1,
            "clat_ns": {"min": 1, "max": 1, "mean": 1.0, "N": 1, "bins": bins}}


def clean_bins(bins: dict) -> dict:
    return normalize_direction(direction_with_bins(bins), "jobs.0.read")["clat_ns"]["bins"]


def test_fio_3_bins_are_kept_as_fio_wrote_them_without_empty_ones() -> None:
    assert clean_bins({"1000": 3, "2048": 0, "5": 1}) == {"1000": 3, "5": 1}


@pytest.mark.parametrize(("bins", "expected"), [
    ({"01000": 1, "1000": 2}, {"1000": 3}),  # a padded key is the same nanoseconds
    ({"1000": 2.0}, {"1000": 2}),  # a whole count written as a float
    ({"999999999999999999": 1}, {"999999999999999999": 1}),  # 18 digits: the longest kept as written
])
def test_bins_written_otherwise_are_read_as_fio_means_them(bins: dict, expected: dict) -> None:
    assert clean_bins(bins) == expected


@pytest.mark.parametrize("bins", [{"1000": True}, {"1000": -1}, {"x1": 1}, {"99999999999999999999": 1},
                                  {"1000": "3"}, {"1,0": 1}, {"": 1}, {"10": 1, "": 2}])
def test_bins_that_are_not_counts_of_nanoseconds_are_refused(bins: dict) -> None:
    with pytest.raises(DocumentError):
        clean_bins(bins)
