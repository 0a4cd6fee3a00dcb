"""A remote host that sends garbage: one huge line, numbers no record can hold, escape sequences.

The hosts are tests/fakes/fake_remote.py (a fake ssh replaying a real fio 3.33 capture and
spoiling it on purpose, by host name); everything else is the real command line. Each case
checks the canary of its fault: the command ends by itself, the honest host's figures are fio's
own and are in the saved record, and no escape byte reaches the output or the record.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from iotui.core.fio.status import MAX_TEXT_LINE_BYTES, LineChunker
from iotui.core.remote.document_check import checked_document, number_problem
from iotui.core.records.files import load_record
from iotui.core.terminal_text import terminal_safe

FAKES = Path(__file__).resolve().parent.parent / "fakes"
REPLAY = Path(__file__).resolve().parent.parent / "fixtures" / "fio" / "randread-3jobs-json+.txt"
ESCAPE_BYTES = ("\x1b", "\x07", "\x9b", "pwned-title")


def _final_read_iops(capture: Path) -> float:
    last = capture.read_text().rsplit("\n{", 1)[-1]
    doc = json.loads("{" + last[: last.rindex("}") + 1])
    return sum(job["read"]["iops"] for job in doc["jobs"])


def run_hosts(tmp_path: Path, hosts: str, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    runs = tmp_path / "runs"
    result = subprocess.run(
        [sys.executable, "-m", "iotui", "run", "rnd4k-q1t1", "--hosts", hosts, "--ssh", str(FAKES / "fake_remote.py"),
         "--target", "/srv/fake", "--runtime", "2", "--size", "4M", "--runs-dir", str(runs), "--baseline", "0"],
        capture_output=True, text=True, timeout=90,
        env={**os.environ, "FAKE_REMOTE_REPLAY": str(REPLAY), "FAKE_REMOTE_DELAY_S": "0.2", **env},
    )
    return result, runs


def _saved(runs: Path):
    records = [path for path in runs.glob("*.toml")]
    assert len(records) == 1, records
    return load_record(records[0])


@pytest.mark.parametrize("bad_host, words", [
    ("nan-1", "'jobs[0].read.iops' is nan, not a finite number"),
    ("huge-1", "outside a signed 64-bit integer"),
])
def test_a_host_with_numbers_no_record_can_hold_fails_alone_and_the_record_is_kept(tmp_path, bad_host, words) -> None:
    result, runs = run_hosts(tmp_path, f"good-1,{bad_host}")
    output = result.stdout + result.stderr
    assert "Traceback" not in output and "AttributeError" not in output
    assert f"{bad_host}'s fio report cannot be used" in result.stderr and words in result.stderr, result.stderr
    record = _saved(runs)
    hosts = {host["name"]: host for host in record.hosts}
    assert "failed_at_s" in hosts[bad_host] and "failed_at_s" not in hosts["good-1"]
    good_iops = hosts["good-1"]["sections"][0]["read"]["iops"]
    assert good_iops == pytest.approx(_final_read_iops(REPLAY), rel=1e-9)  # fio's own figure, kept
    assert record.sections[0]["hosts"] == 1 and record.sections[0]["read"]["iops"] == pytest.approx(good_iops)


def test_a_stderr_line_of_a_mebibyte_is_cut_and_the_run_goes_on(tmp_path) -> None:
    result, runs = run_hosts(tmp_path, "good-1,longline-1")
    output = result.stdout + result.stderr
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Traceback" not in output and "LimitOverrunError" not in output and "never retrieved" not in output
    record = _saved(runs)
    assert record.status == "completed" and {host["name"] for host in record.hosts} == {"good-1", "longline-1"}
    long_lines = [line for line in result.stderr.splitlines() if line.count("x") > 1000]
    assert long_lines and all(len(line) <= MAX_TEXT_LINE_BYTES + 64 for line in long_lines)


def test_escape_sequences_from_a_host_never_reach_the_terminal_or_the_record(tmp_path) -> None:
    result, runs = run_hosts(tmp_path, "good-1,escape-1")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "a warning from the host" in result.stderr  # the line is shown, its escapes are not
    record_text = next(runs.glob("*.toml")).read_text()
    for canary in ESCAPE_BYTES:
        assert canary not in result.stdout + result.stderr, canary
        assert canary not in record_text and canary not in record_text.encode().decode("unicode_escape"), canary
    record = _saved(runs)
    escape_host = next(host for host in record.hosts if host["name"] == "escape-1")
    assert escape_host["tool_version"] == "fio-3.33" and escape_host["device"] == "/dev/fake"
    assert record.status == "completed"


def test_a_host_name_with_an_escape_is_refused_without_printing_it(tmp_path) -> None:
    result, runs = run_hosts(tmp_path, "good-1,bad\x1b]0;pwned-title\x07")
    assert result.returncode != 0 and "not an ssh destination" in result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert not runs.exists() or not list(runs.glob("*.toml"))


def test_a_pre_flight_answer_of_megabytes_is_cut_off_with_a_sentence(tmp_path) -> None:
    result, runs = run_hosts(tmp_path, "good-1,chatty-1")
    assert result.returncode != 0 and "chatty-1: its pre-flight answer is over 1024 KiB" in result.stderr
    # The runs directory is made ready before any host is reached (the one start entry's check);
    # what matters is that nothing was recorded for a run that never started.
    assert "Traceback" not in result.stderr
    assert not runs.exists() or not list(runs.glob("*.toml"))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_line_that_never_ends_does_not_hang_and_a_signal_ends_the_run(tmp_path, signum) -> None:
    runs = tmp_path / "runs"
    process = subprocess.Popen(
        [sys.executable, "-m", "iotui", "run", "rnd4k-q1t1", "--hosts", "good-1,endless-1", "--ssh",
         str(FAKES / "fake_remote.py"), "--target", "/srv/fake", "--runtime", "2", "--size", "4M",
         "--runs-dir", str(runs), "--baseline", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "FAKE_REMOTE_REPLAY": str(REPLAY)},
    )
    time.sleep(3)  # past the pre-flight, while the endless line streams in
    assert process.poll() is None
    began = time.monotonic()
    process.send_signal(signum)
    out, err = process.communicate(timeout=20)
    assert time.monotonic() - began < 15
    assert "Traceback" not in out + err and "LimitOverrunError" not in err and "never retrieved" not in err
    assert process.returncode != 0


# -- the pieces, each able to fail on its own ------------------------------------------


def test_lines_of_any_length_in_any_pieces_are_cut_at_the_limit() -> None:
    chunker = LineChunker(max_line_bytes=8)
    data = b"short\n" + b"y" * 100 + b"\nafter\nend"
    lines = [line for size in (1, 3, 64) for line in _feed(LineChunker(max_line_bytes=8), data, size)]
    assert lines == [b"short", b"yyyyyyyy", b"after", b"end"] * 3
    assert chunker.feed(b"a" * 20) == [b"aaaaaaaa"] and chunker.feed(b"bbb\nc") == [] and chunker.close() == [b"c"]


def _feed(chunker: LineChunker, data: bytes, size: int) -> list[bytes]:
    lines = []
    for start in range(0, len(data), size):
        lines += chunker.feed(data[start:start + size])
    return lines + chunker.close()


@pytest.mark.parametrize("text, shown", [
    ("\x1b]0;pwned-title\x07job", "job"),
    ("\x1b]2;t\x1b\\job", "job"),
    ("a\x1b[2J\x1b[1;1Hb", "ab"),
    ("\x9b31mred", "red"),
    ("\x1bPq#0;2\x1b\\sixel", "sixel"),
    ("tab\there\r\nnext", "tab here next"),
    ("\u202egnp.exe", "gnp.exe"),
    ("a\x00b\x7fc\x08d", "abcd"),
    ("fio-3.33 é 中文", "fio-3.33 é 中文"),
])
def test_terminal_safe_removes_whole_sequences_and_controls(text: str, shown: str) -> None:
    assert terminal_safe(text) == shown


def test_numbers_outside_what_a_record_holds_are_named() -> None:
    assert number_problem({"jobs": [{"read": {"iops": float("inf")}}]}) == "'jobs[0].read.iops' is inf, not a finite number"
    assert "outside a signed 64-bit integer" in (number_problem({"a": 2**63}) or "")
    assert "outside a signed 64-bit integer" in (number_problem({"a": -(2**63) - 1}) or "")
    assert "outside a signed 64-bit integer" in (number_problem({"a": 1e30}) or "")
    assert number_problem({"a": 2**63 - 1, "b": -(2**63), "c": 1.5e18, "d": True}) is None
    doc, problem = checked_document({"jobs": [{"jobname": "\x1b]0;x\x07job"}]})
    assert problem is None and doc == {"jobs": [{"jobname": "job"}]}


def test_a_host_that_sends_millions_of_lines_keeps_only_its_latest() -> None:
    from iotui.core.remote.record import HostState
    from iotui.core.remote.host_events import HOST_LINES_KEPT, keep_line as _keep_line

    state = HostState("chatty-1", None)
    for index in range(10 * HOST_LINES_KEPT):
        _keep_line(state, f"line {index}")
    assert len(state.lines) <= 2 * HOST_LINES_KEPT and state.lines[-1] == f"line {10 * HOST_LINES_KEPT - 1}"


def test_a_clean_document_passes_untouched_and_every_fault_is_still_found() -> None:
    doc = json.loads("{" + REPLAY.read_text().rsplit("\n{", 1)[-1].rsplit("}", 1)[0] + "}")
    assert checked_document(doc) == (doc, None) and checked_document(doc)[0] is doc  # no walk, no copy
    for bad in (float("nan"), float("-inf"), 2**63, -(2**63) - 1, 2**64 + 5, 1e19):
        spoiled = json.loads(json.dumps(doc))
        spoiled["jobs"][1]["read"]["lat_ns"]["max"] = bad
        assert checked_document(spoiled)[0] is None, bad
    spoiled = json.loads(json.dumps(doc))
    spoiled["jobs"][2]["jobname"] = "\u202ename\x9b2J"
    assert checked_document(spoiled)[0]["jobs"][2]["jobname"] == "name"


def test_large_numbers_that_fit_pass_without_the_walk_and_those_that_do_not_are_named(monkeypatch) -> None:
    # Where a long or large number is in the text, each is read from it: the walk over the whole
    # document (which names the key) runs only for one that does not fit in a signed 64-bit integer.
    from iotui.core.remote import document_check

    doc = json.loads("{" + REPLAY.read_text().rsplit("\n{", 1)[-1].rsplit("}", 1)[0] + "}")
    fits = json.loads(json.dumps(doc))
    fits["jobs"][0]["read"]["io_bytes"] = 2**63 - 1
    fits["jobs"][0]["read"]["bw_mean"] = 1.5e18
    fits["global options"] = {"exec_prerun": "kill -USR2 2586 2>/dev/null; : < .iotui-go"}  # the held start's
    walked = []
    real_walk = document_check.number_problem
    monkeypatch.setattr(document_check, "number_problem", lambda d: walked.append(1) or real_walk(d))
    assert checked_document(fits) == (fits, None) and walked == []
    for bad in (2**63, 9.3e18, -(2**63) - 1):
        spoiled = json.loads(json.dumps(fits))
        spoiled["jobs"][1]["read"]["lat_ns"]["max"] = bad
        cleaned, problem = checked_document(spoiled)
        assert cleaned is None and "jobs[1].read.lat_ns.max" in (problem or ""), bad
    assert walked == [1, 1, 1]


def test_every_character_a_screen_must_not_get_is_still_found_in_a_job_name() -> None:
    # The check looks for a mark byte before it runs its expression: each control, C1 and
    # bidirectional character, alone and amid plain text, must still be stripped as
    # terminal_safe strips it, and plain non-ASCII names must pass as they are.
    doc = json.loads("{" + REPLAY.read_text().rsplit("\n{", 1)[-1].rsplit("}", 1)[0] + "}")
    suspects = [chr(code) for code in (*range(0x20), 0x7F, *range(0x80, 0xA0), *range(0x202A, 0x202F), *range(0x2066, 0x206A))]
    for char in suspects:
        for name in (char, f"job{char}name", f"\u00e9t\u00e9{char}"):
            spoiled = json.loads(json.dumps(doc))
            spoiled["jobs"][0]["jobname"] = name
            cleaned, problem = checked_document(spoiled)
            assert problem is None and cleaned is not None
            assert cleaned["jobs"][0]["jobname"] == terminal_safe(name) != name, repr(name)
    for name in ("\u00e9t\u00e9", "\u4f60\u597d", "\u2013dash", "back\\slash"):
        plain = json.loads(json.dumps(doc))
        plain["jobs"][0]["jobname"] = name
        assert checked_document(plain)[0]["jobs"][0]["jobname"] == name


def test_a_pre_flight_that_never_answers_is_ended_cleanly() -> None:
    code = (
        "import asyncio\n"
        "from iotui.core.remote.connections import preflight\n"
        "from iotui.core.remote.transport import RemoteError\n"
        f"ssh = [{str(FAKES / 'fake_remote.py')!r}, '-o', 'BatchMode=yes']\n"
        "async def main():\n"
        "    try:\n"
        "        await preflight(ssh, 'silent-1', '/srv/fake', timeout_s=1)\n"
        "    except RemoteError as error:\n"
        "        print(error)\n"
        "asyncio.run(main())\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "silent-1: ssh did not answer within 1 s."
    assert result.stderr == ""  # no "Exception ignored", no ProcessLookupError


async def test_a_host_over_the_stream_limit_is_ended_and_its_events_end(monkeypatch) -> None:
    import asyncio

    from iotui.core.remote import lifeline

    monkeypatch.setattr(lifeline, "MAX_INPUT_BYTES", 200_000)  # the fake's 1 MiB line passes it
    monkeypatch.setenv("FAKE_REMOTE_REPLAY", str(REPLAY))
    runner = lifeline.HostRunner([str(FAKES / "fake_remote.py"), "-o", "BatchMode=yes"], "longline-1", "/srv/fake", [])
    await runner.start()

    async def collect() -> list[object]:
        return [event async for event in runner.events()]

    events = await asyncio.wait_for(collect(), 30)
    lines = [event.text for event in events if isinstance(event, lifeline.HostLine)]
    assert any("longline-1 sent more than 195.3 KiB" in line and "its ssh was ended" in line for line in lines), lines
    assert isinstance(events[-1], lifeline.HostEnded) and not any(isinstance(e, lifeline.HostReady) for e in events)
