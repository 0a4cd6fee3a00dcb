"""The lifeline's script and its command: what runs on each host (see :mod:`lifeline`).

The script is POSIX sh, sent to sh on the host's stdin with fio's arguments
(:mod:`iotui.core.remote.remote_program`). Its marks go to stderr so they never land inside a
JSON document.
"""

from __future__ import annotations

import re

from iotui.core.presets.model import NAME_PATTERN
from iotui.core.remote.remote_program import RemoteProgram, remote_program

READY_MARK = "IOTUI-READY"
FIO_MARK = "IOTUI-FIO"
EXIT_MARK = "IOTUI-EXIT"
ERROR_MARK = "IOTUI-ERROR"
PAUSED_MARK = "IOTUI-PAUSED"
RESUMED_MARK = "IOTUI-RESUMED"
CLOCK_MARK = "IOTUI-CLOCK"
CLOCK_EXCHANGES = 3  # the one with the shortest round trip is kept
STOP_GRACE_S = 1.5

LIFELINE_SCRIPT = r"""
t="$1"; hold="$2"; shift 2
[ -n "$t" ] || t="$HOME"
pid= go= stop= k= held=
umask 077
d=$(mktemp -d "$t/.iotui-remote.XXXXXXXX" 2>/dev/null) || { echo "IOTUI-ERROR cannot create a private directory in $t" >&2; exit 97; }
chmod 700 "$d"
cleanup() { cd / && rm -rf "$d"; }
# Opening the gate (a FIFO, held open for good) lets every job held in its prerun go on.
open_gate() { [ -p .iotui-go ] && exec 5<>.iotui-go; }
halt() {
  stop=1
  if [ -n "$pid" ]; then
    if [ -n "$held" ] && [ -z "$go" ]; then
      # Held before the barrier: nothing ran, nothing to report; fio ignores SIGINT while its
      # prerun runs, so it is killed, and the gate opened for the prerun's shell to end.
      kill -KILL "$pid" 2>/dev/null; open_gate
    else
      kill -INT "$pid" 2>/dev/null
      kill -CONT "$pid" 2>/dev/null
      [ -n "$k" ] || { ( sleep 1.5; kill -KILL "$pid" ) >/dev/null 2>&1 & k=$!; }
    fi
  fi
}
trap 'go=1' USR1
trap 'held=1' USR2
trap halt INT TERM HUP
trap '' PIPE
cd "$d" || { cleanup; echo "IOTUI-ERROR cannot enter $d" >&2; exit 97; }
[ -z "$hold" ] || mkfifo .iotui-go 2>/dev/null || hold=
exec 3<&0 </dev/null
me=$$
# The watcher: go opens the gate (fio's jobs wait there) and tells the lifeline; clock says this
# host's time (ns since the epoch, for the offset against iotui's clock); pause and resume stop and
# continue fio (the whole process: fio runs with --thread) and are acknowledged on stderr;
# any other line stops the run (fio is asked, and writes its final report). End-of-file means
# iotui is gone or gave up on this host: nobody will read a report, so fio is killed at once
# (asking it took seconds a host on a loaded machine), then the run stops as for a line.
( e=1
  while IFS= read -r l <&3; do
    case "$l" in
      go) open_gate; kill -USR1 "$me" ;;
      clock) printf '\n%s %s\n' IOTUI-CLOCK "$(date +%s%N 2>/dev/null)" >&4 ;;
      pause|resume)
        f=; read -r f < .iotui-fio 2>/dev/null
        if [ "$l" = pause ]; then s=STOP m=IOTUI-PAUSED; else s=CONT m=IOTUI-RESUMED; fi
        [ -n "$f" ] && kill -"$s" "$f" 2>/dev/null && printf '\n%s\n' "$m" >&4 ;;
      *) e=; break ;;
    esac
  done
  if [ -n "$e" ]; then f=; read -r f < .iotui-fio 2>/dev/null; [ -n "$f" ] && kill -KILL "$f" 2>/dev/null; fi
  kill -TERM "$me" ) 4>&2 >/dev/null 2>&1 &
w=$!
exec 3<&-
finish() {
  [ -n "$k" ] && kill "$k" 2>/dev/null
  kill "$w" 2>/dev/null
  # A prerun's shell that outlived a killed fio still waits at the gate: it goes too.
  open_gate
  cleanup
  # fio's last message may lack its newline ("...: Interrupted system call"): the mark starts a line.
  printf '\n%s %s\n' IOTUI-EXIT "$1" >&2
  exit "$1"
}
start_fio() {
  ( trap - PIPE; exec fio "$@" ) &
  pid=$!
  echo "$pid" > .iotui-fio
  [ -n "$stop" ] && halt
}
wait_fio() {
  wait "$pid"; status=$?
  # A trap interrupts wait (status > 128); waiting again gives fio's own status.
  while [ "$status" -gt 128 ]; do
    wait "$pid"; again=$?
    if [ "$again" -eq 127 ] || [ "$again" -eq "$status" ]; then break; fi
    status=$again
  done
  pid=
  rm -f .iotui-fio
  [ -n "$k" ] && kill "$k" 2>/dev/null
  k=
}
# Signals (USR1, USR2) end a wait at once; the sleep only bounds one that lands between the
# test and the wait. A short sleep here was 20 forks a second on each of 128 hosts.
pause_until() { while eval "$1"; do sleep 1 & s=$!; eval "$1" && wait $s 2>/dev/null; kill $s 2>/dev/null; done; }
# Lay the test files out first, so the barrier releases the jobs, not the layout.
start_fio --create_only=1 "$@" >/dev/null 2>.iotui-layout; wait_fio
if [ -n "$stop" ]; then finish 98; fi
if [ "$status" -ne 0 ]; then sed 's/^/IOTUI-ERROR /' .iotui-layout >&2; finish 97; fi
rm -f .iotui-layout
if [ -n "$hold" ]; then
  # fio starts now and holds each job in its prerun, after its set-up and before its clock
  # starts, until the gate opens: the barrier releases running jobs, not fio's start-up.
  start_fio "--exec_prerun=kill -USR2 $me 2>/dev/null; : < .iotui-go" "$@"
  pause_until '[ -z "$held$stop" ] && kill -0 "$pid" 2>/dev/null'
  trap '' USR2
  if [ -z "$held" ]; then
    wait_fio
    [ -n "$stop" ] && finish 98
    echo "IOTUI-ERROR fio ended (exit $status) before its jobs started" >&2; finish 97
  fi
fi
echo "IOTUI-READY $d" >&2
pause_until '[ -z "$go$stop" ]'
if [ -n "$stop" ]; then [ -n "$pid" ] && wait_fio; finish 98; fi
if [ -n "$hold" ]; then open_gate; else start_fio "$@"; fi
wait_fio
finish "$status"
"""


# On: fio starts before the barrier and holds each job in its prerun (128 fio starting after `go`
# spread the hosts' starts over 1 to 7 s on two cores). A rate-limited job paused after its clock
# started catches up after the resume (fio's rate clock counts the pause): fio's behaviour, with
# the hold or without; the app's pause test once passed without the hold only because its pause
# fell inside fio's start-up, before the job's clock.
HOLD_BEFORE_BARRIER = True


def can_hold(fio_args: list[str]) -> bool:
    """Whether fio can be started before the barrier and hold its jobs in a prerun.

    fio runs a prerun as ``sh -c "PRERUN > JOBNAME.prerun.txt 2>&1"``, the job's name unquoted:
    only names that no shell reads as more than a word (iotui's job-name rule) may be part of it.
    """
    names = [arg.split("=", 1)[1] for arg in fio_args if arg.startswith("--name=")]
    return bool(names) and all(NAME_PATTERN.fullmatch(name) for name in names)


def lifeline_program(target: str | None, fio_args: list[str], hold: bool = False) -> RemoteProgram:
    """The lifeline as the host runs it: ``LIFELINE_SCRIPT TARGET HOLD FIO-ARGS...``."""
    return remote_program("iotui-lifeline", LIFELINE_SCRIPT, [target or "", "hold" if hold else "", *fio_args])


def is_prerun_note(line: str) -> bool:
    """fio's own line for the lifeline's prerun (``JOB : Saving output of prerun in JOB.prerun.txt``)."""
    return _PRERUN_NOTE.fullmatch(line.strip()) is not None


_PRERUN_NOTE = re.compile(r"(?P<job>\S+) : Saving output of prerun in (?P=job)\.prerun\.txt")


def clock_offset(remote_ns_text: str, asked_wall_s: float, answered_wall_s: float) -> tuple[float, float] | None:
    """(the host's clock less iotui's, in ms; the round trip in ms) from one ``clock`` exchange.

    The host read its clock somewhere within the round trip, so the offset is known to half
    the round trip; None where its ``date`` has no nanoseconds (``%N``).
    """
    text = remote_ns_text.strip()
    if not (text.isascii() and text.isdigit() and 16 <= len(text) <= 20):
        return None
    rtt_ms = (answered_wall_s - asked_wall_s) * 1000.0
    return int(text) / 1e6 - (asked_wall_s + answered_wall_s) * 500.0, rtt_ms
