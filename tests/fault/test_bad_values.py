"""Headless --runtime, --size and --set values are checked as the app's option editor checks them.

Each bad value is refused with a sentence before fio starts: no record is saved and no
test directory is made in the target. The editor's field gives the same words, because
both ask one function (iotui.core.fio.values.value_problem).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from iotui.cli import main
from iotui.core.fio.values import value_problem
from iotui.ui.widgets.option_editor import parse_overrides

# (arguments after the preset, the sentence's words)
BAD_VALUES = [
    (["--set", "runtime=abc"], "--set: the option 'runtime=abc' is refused because runtime should be a number of seconds above 0"),
    (["--set", "runtime=0"], "--set: the option 'runtime=0' is refused because runtime should be a number of seconds above 0"),
    (["--set", "timeout=5x"], "--set: the option 'timeout=5x' is refused because runtime should be a number of seconds above 0"),
    (["--set", "bs=4Q"], "--set: the option 'bs=4Q' is refused because bs should be a size such as 4k or 64k"),
    (["--set", "blocksize=,"], "--set: the option 'blocksize=,' is refused because bs should be a size"),
    (["--set", "size=64Q"], "--set: the option 'size=64Q' is refused because size should be a size such as 4k, 1M or 1G, not '64Q'"),
    (["--set", "iodepth=-1"], "--set: the option 'iodepth=-1' is refused because iodepth should be a whole number from 1 to 4294967295, not '-1'"),
    (["--set", "iodepth=abc"], "--set: the option 'iodepth=abc' is refused because iodepth should be a whole number from 1 to"),
    (["--set", "numjobs=0"], "--set: the option 'numjobs=0' is refused because numjobs should be a whole number from 1 to 4294967295, not '0'"),
    # fio keeps these in 32 bits: it runs numjobs=4294967298 as 2 jobs, and refuses a number past 64 bits only
    # after iotui called it "not a size".
    (["--set", "numjobs=4294967298"],
     "the option 'numjobs=4294967298' is refused because numjobs should be a whole number from 1 to 4294967295"),
    (["--set", "iodepth=99999999999999999999"],
     "the option 'iodepth=99999999999999999999' is refused because iodepth should be a whole number from 1 to"),
    # A digit Python's isdigit() takes and int() does not (superscript two): it raised a ValueError.
    (["--set", "iodepth=\u00b2"], "the option 'iodepth=\u00b2' is refused because iodepth should be a whole number"),
    (["--runtime=-5"], "--runtime should be a number of seconds above 0 (such as 10, 10s or 2m), not '-5'"),
    (["--runtime", "abc"], "--runtime should be a number of seconds above 0 (such as 10, 10s or 2m), not 'abc'"),
    (["--size", "64Q"], "--size should be a size such as 4k, 1M or 1G, not '64Q'"),
]


@pytest.mark.parametrize("arguments, sentence", BAD_VALUES, ids=[" ".join(a) for a, _ in BAD_VALUES])
def test_a_bad_value_is_refused_before_fio_starts(tmp_path: Path, capsys, arguments: list[str], sentence: str) -> None:
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    code = main(["run", "quick", "--target", str(target), "--runs-dir", str(runs), "--baseline", "0", *arguments])
    out, err = capsys.readouterr()
    assert code != 0
    assert sentence in err and "Traceback" not in err + out
    assert not list(runs.glob("*.toml")) if runs.exists() else True  # nothing ran, nothing saved
    assert list(target.iterdir()) == []  # fio never laid out a test file


@pytest.mark.parametrize(
    "field_id, option, text",
    [("runtime", "runtime", "abc"), ("runtime", "runtime", "-5"), ("size", "size", "64Q"), ("bs", "bs", "4Q"),
     ("iodepth", "iodepth", "-1"), ("numjobs", "numjobs", "0"), ("iodepth", "iodepth", "\u00b2"),
     ("numjobs", "numjobs", "\u0661")],
)
def test_the_editor_and_the_command_line_use_the_same_words(field_id: str, option: str, text: str) -> None:
    _, problem = parse_overrides({field_id: text}, None)
    clause = value_problem(option, text)
    assert problem is not None and clause is not None
    assert problem.field_id == field_id and problem.sentence.endswith(f"{clause}.")


@pytest.mark.parametrize(
    "option, text", [("runtime", "10"), ("runtime", "10s"), ("runtime", "2m"), ("runtime", "500ms"), ("size", "16M"),
                     ("size", "1GiB"), ("bs", "4k"), ("bs", "4k,64k"), ("bs", ",8k"), ("iodepth", "32"),
                     ("numjobs", "1"), ("iodepth", "4294967295"), ("rw", "anything: not judged here")],
)
def test_what_fio_takes_is_accepted(option: str, text: str) -> None:
    assert value_problem(option, text) is None


def test_the_editor_reads_fio_s_time_units() -> None:
    overrides, problem = parse_overrides({"runtime": "2m", "iodepth": "8", "size": "16M"}, None)
    assert problem is None
    assert (overrides.runtime_s, overrides.iodepth, overrides.size) == (120.0, 8, "16M")


def test_good_values_still_run(tmp_path: Path, capsys) -> None:
    """The same flags with good values reach fio: one short real run."""
    target, runs = tmp_path / "target", tmp_path / "runs"
    target.mkdir()
    code = main(["run", "quick", "--target", str(target), "--runs-dir", str(runs), "--baseline", "0",
                 "--runtime", "1s", "--size", "8M", "--set", "bs=4k", "--set", "iodepth=2", "--set", "numjobs=1"])
    assert code == 0, capsys.readouterr().err
    assert len(list(runs.glob("*.toml"))) == 1
