"""fio's refusal of its options, read from the lines fio 3.33 prints (copied from real runs:
``fio --name=j --size=1M --rwmixread=200``, a job file with ``foo=1``, ``--verify=nosuch``)."""

from __future__ import annotations

from iotui.core.fio.parse_refusal import ParseRefusal, accepted_from_cmdhelp, find_parse_refusal

DIRECT_CMDHELP = """\
              direct: Use O_DIRECT IO (negates buffered)
                type: boolean value (opt=1)
             default: 0
               range: min=0, max=1
"""
RATE_CMDHELP = """\
                rate: Set bandwidth rate
                type: integer value (opt=100)
             default: no default
               range: min=0, max=-1
"""


def test_fios_own_reason_and_the_option_are_read() -> None:
    refusal = find_parse_refusal(
        ["rwmixread: max value out of range: 200 (100 max)", "fio: failed parsing rwmixread=200", "fio: job j dropped"])
    assert refusal == ParseRefusal("rwmixread", "200", "max value out of range: 200 (100 max)", None)


def test_an_unknown_option_in_a_job_file() -> None:
    refusal = find_parse_refusal(["Bad option <foo=1>", "Did you mean flow?", "fio: job j dropped"])
    assert refusal is not None and (refusal.option, refusal.value) == ("foo", "1")
    assert refusal.sentence() == ("fio refused foo=1 before any job started (fio has no such option), so nothing ran "
                                  "and no record was saved; correct it and run again.")


def test_the_valid_values_fio_prints_on_its_standard_output_are_what_it_accepts() -> None:
    stdout = ["        valid values: 0          Don't do IO verification",
              "                    : md5        Use md5 checksums for verification",
              "                    : crc32c-intel Use crc32c checksums for verification (hw assisted, if available)"]
    refusal = find_parse_refusal(["fio: failed parsing verify=nosuch", "fio: job j dropped"], stdout)
    assert refusal is not None and refusal.accepted == "one of 0, md5, crc32c-intel"
    assert refusal.sentence() == ("fio refused verify=nosuch before any job started, so nothing ran and no record was "
                                  "saved; verify takes one of 0, md5, crc32c-intel.")


def test_a_failure_that_is_no_parse_refusal_is_none() -> None:
    assert find_parse_refusal(["fio: pid=123, err=28/file:io_u.c:1845, func=io_u error, error=No space left"]) is None
    assert find_parse_refusal([]) is None


def test_cmdhelp_types_become_words() -> None:
    assert accepted_from_cmdhelp(DIRECT_CMDHELP) == "0 or 1"
    assert accepted_from_cmdhelp(RATE_CMDHELP) == "a whole number of 0 or more, such as 100 or 4k"
    assert accepted_from_cmdhelp("                size: Total size\n                type: (null)\n") is None
