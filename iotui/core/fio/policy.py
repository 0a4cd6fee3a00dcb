"""The one option policy: what iotui lets reach fio, from every channel.

An allow-list, not a deny-list. Every name is first resolved the way the
channel that carries it to fio would (:mod:`iotui.core.fio.options`: any
unique prefix on fio's command line, exact names and aliases in a job file),
then judged by its canonical name *and* its value: options known to shape a
benchmark pass, everything else is refused with a sentence that says why and
that such a job can still be run with fio directly. Only canonical names come
out, so no abbreviation reaches fio's argv.

``--set``, ``--vary``, job files, user presets (options, jobs, sweep values)
and the app's option editor all go through :func:`check_options`.
Where tests run is :mod:`iotui.core.host.targets`.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping, TypedDict

from iotui.core.fio.file_lists import SPECIAL_FILES, file_list_parts
from iotui.core.fio.options import COMMAND_LINE, JOB_FILE, Channel, OptionNameError, OptionTable, default_table
from iotui.core.fio.values import RW_VALUES as RW_VALUES, fio_would_refuse
from iotui.core.fio.workload import is_write_workload as is_write_workload

FIO_DIRECTLY = "A job that needs it can still be run with fio directly."


class PolicyError(Exception):
    """An option iotui refuses: ``code`` says what kind, ``facts`` the details, str() a sentence.

    Codes: ``unknown-option``, ``ambiguous-option``, ``refused-option`` (the name
    is not on the allow-list), ``refused-value`` (an allowed name with a value
    that is not), ``refused-engine``, ``refused-key`` (a preset key that is
    not a fio option, such as ``target``). Facts: ``origin``, ``given`` (the
    name as written), ``option`` (fio's canonical name), ``value``, ``reason``,
    ``candidates``.
    """

    def __init__(self, message: str, *, code: str = "refused-option", facts: RefusalFacts | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.facts: RefusalFacts = facts.copy() if facts else {}


class RefusalFacts(TypedDict, total=False):
    """What a refusal was about: where it came from, the name as written and as fio reads it, the value, why."""

    origin: str
    given: str
    option: str | None
    value: str | None
    reason: str
    candidates: list[str]


def _visible(text: str) -> str:
    """``text`` with each control character written as its escape (``\\x85``), so a refusal never prints one."""
    return _CONTROL_CHARACTERS.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)


def refusal(code: str, *, origin: str, given: str, option: str | None, value: str | None, reason: str,
            candidates: Iterable[str] = ()) -> PolicyError:
    """A PolicyError whose sentence names the option as written (and as fio reads it) and why."""
    shown = _visible(given if value in (None, "") else f"{given}={value}")
    read_as = f" (fio reads '{given}' as '{option}')" if option and option != given else ""
    if code == "invalid-value":  # fio itself would refuse it: what fio accepts, not how to run fio directly
        message = f"{origin}: {shown}{read_as}: {reason}."
    else:
        message = f"{origin}: the option '{shown}'{read_as} is refused because {reason}. {FIO_DIRECTLY}"
    facts: RefusalFacts = {"origin": origin, "given": given, "option": option, "value": value, "reason": reason,
             "candidates": list(candidates)}
    return PolicyError(message, code=code, facts=facts)


# -- engines ----------------------------------------------------------------------

# Engines that do their I/O on the job's own files (iotui's private test directory).
SAFE_ENGINES = frozenset({
    "sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "posixaio", "mmap", "null",
    "splice", "falloc", "ftruncate", "filecreate", "filestat", "filedelete", "cpuio",
    "solarisaio", "windowsaio",
})
_NETWORK_ENGINES = frozenset({
    "net", "netsplice", "rdma", "nbd", "http", "rados", "rbd", "gfapi", "gfapi_async", "libhdfs",
    "libiscsi", "nfs", "dfs", "librpma_apm_client", "librpma_apm_server", "librpma_gpspm_client",
    "librpma_gpspm_server", "sheepdog",
})
_RUNS_COMMANDS = "it runs a command, and iotui runs nothing but fio itself"


def engine_refusal(engine: str, table: OptionTable | None = None) -> str | None:
    """Why an ioengine value (normalised: :func:`fio_value`) is refused (a clause after "because"), or None.

    Compared exactly: fio loads an engine by its exact name and ``dlopen()``s any
    other, so ``sync `` or ``libaio`` with a no-break space would be a library.
    """
    name = engine
    if name in SAFE_ENGINES:
        return None
    if name == "exec":
        return _RUNS_COMMANDS
    if name.startswith("external") or "/" in name or ".so" in name or ":" in name:
        return "it makes fio load an I/O engine's code from a file"
    if name in _NETWORK_ENGINES:
        return "that engine talks to another system over the network, not to the test file"
    if name == "e4defrag":
        return "that engine moves blocks between the test file and another file it names (donorname)"
    table = table or default_table()
    if name in table.engine_options:
        return "that engine works on devices or services, not on iotui's test file"
    return (
        "it is not an I/O engine this fio has, and fio would try to load a library of that name (code); "
        f"use one of {', '.join(sorted(SAFE_ENGINES - {'solarisaio', 'windowsaio'}))}"
    )


# -- the allow-list -----------------------------------------------------------------

# C0, DEL and C1: a C1 control (U+0080-U+009F) is as much a control as a C0 one.
_CONTROL_CHARACTERS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
# Values that are text of the user's own (labels, file names): any Unicode passes. Every other
# value is a word or a number fio compares byte by byte, so only ASCII is what it looks like.
_FREE_TEXT = frozenset({"description", "name", "filename", "directory", "filename_format"})


def fio_value(value: str) -> str:
    """The one spelling of a value that is judged and handed to fio: without surrounding ASCII spaces.

    fio's job-file parser drops those (C's isspace), its command line does not; a
    no-break space or another Unicode space is not dropped by either, so it stays
    (and :func:`value_refusal` refuses it outside free text).
    """
    return value.strip(" ")
_FALSE = ("0", "false", "no", "off", "none")

# Numbers of fio's tiobench profile (job-file names of fio's own): inert unless profile=tiobench, which
# is refused. fio's steadystate and waitfor examples write threads=1 where they mean 'thread'.
TIOBENCH_PROFILE_SETTINGS = frozenset({"threads", "numruns", "block"})

# Options that shape the benchmark and touch nothing but the job's own files.
ALLOWED_OPTIONS = frozenset({
    # labels and ordering
    "description", "name", "wait_for", "stonewall", "new_group", "exitall", "exit_what", "exitall_on_error",
    # where, inside iotui's private test directory (relative values only; see placement_refusal)
    "filename", "directory", "filename_format", "unique_filename", "lockfile", "nrfiles", "file_service_type",
    "openfiles", "allow_file_create", "create_serialize", "create_fsync", "create_on_open",
    "create_only", "pre_read", "fallocate", "fadvise_hint", "invalidate",
    # what and how
    "rw", "rw_sequencer", "bs", "ba", "bsrange", "bssplit", "bs_unaligned", "randrepeat", "randseed",
    "allrandrepeat", "norandommap", "random_generator", "random_distribution", "percentage_random",
    "ignore_error", "continue_on_error", "error_dump", "ioengine", "iodepth", "iodepth_batch",
    "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low", "serialize_overlap",
    "io_submit_mode", "size", "io_size", "filesize", "offset", "offset_increment", "offset_align", "number_ios",
    "fsync", "fdatasync", "write_barrier", "sync_file_range", "end_fsync", "fsync_on_close", "sync", "direct",
    "atomic", "buffered", "overwrite", "loops", "numjobs", "startdelay", "runtime", "time_based", "ramp_time",
    "clocksource", "mem", "lockmem", "hugepage-size", "write_hint", "unlink", "unlink_each_loop",
    "rwmixread", "rwmixwrite", "nice", "prio", "prioclass", "cpumask", "cpus_allowed", "cpus_allowed_policy",
    "numa_cpu_nodes", "numa_mem_policy", "thread", "gtod_reduce", "gtod_cpu",
    # data and verification (inside the test file)
    "zero_buffers", "refill_buffers", "scramble_buffers", "buffer_pattern", "buffer_compress_percentage",
    "buffer_compress_chunk", "dedupe_percentage", "dedupe_mode", "dedupe_working_set_percentage",
    "dedupe_global", "verify", "do_verify", "verify_only", "verify_interval", "verify_offset", "verify_pattern",
    "verify_fatal", "verify_dump", "verify_async", "verify_backlog", "verify_backlog_batch", "experimental_verify",
    "verify_state_save", "verify_state_load", "trim_percentage", "trim_verify_zero", "trim_backlog",
    "trim_backlog_batch",
    # pacing
    "thinktime", "thinktime_spin", "thinktime_blocks", "thinktime_blocks_type", "thinktime_iotime", "rate",
    "rate_min", "rate_process", "rate_cycle", "rate_ignore_thinktime", "rate_iops", "rate_iops_min",
    "max_latency", "latency_target", "latency_window", "latency_percentile", "latency_run", "flow_id", "flow",
    "flow_sleep", "steadystate", "steadystate_duration", "steadystate_ramp_time",
    # zones of a regular file
    "zonemode", "zonesize", "zonecapacity", "zonerange", "zoneskip", "read_beyond_wp", "max_open_zones",
    "job_max_open_zones", "ignore_zone_limits", "zone_reset_threshold", "zone_reset_frequency",
    # reporting (what fio counts, not where it writes)
    "group_reporting", "stats", "clat_percentiles", "lat_percentiles", "slat_percentiles", "percentile_list",
    "significant_figures", "disk_util", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement",
    "unified_rw_reporting", "block_error_percentiles", "bwavgtime", "iopsavgtime", "per_job_logs",
    "kb_base", "unit_base",
    # options of the engines above
    "hipri", "hipri_percentage", "uncached", "nowait", "cmdprio_percentage", "cmdprio_class", "cmdprio",
    "cmdprio_bssplit", "fixedbufs", "registerfiles", "sqthread_poll", "sqthread_poll_cpu", "nonvectored",
    "force_async", "userspace_reap", "thp", "cpuload", "cpuchunks", "cpumode", "exit_on_io_done", "stat_type",
}) | TIOBENCH_PROFILE_SETTINGS

_OTHER_FILES = "it makes fio read or write files of its own choosing, outside iotui's private test directory"
_LOGS = "it writes log files of its own, outside iotui's private test directory (iotui keeps fio's figures in the run record)"
# Why some options outside the allow-list are refused (the rest: "not on the list").
REFUSAL_REASONS: dict[str, str] = {
    "exec_prerun": _RUNS_COMMANDS, "exec_postrun": _RUNS_COMMANDS, "trigger": _RUNS_COMMANDS,
    "trigger-remote": _RUNS_COMMANDS, "trigger-file": _RUNS_COMMANDS, "trigger-timeout": _RUNS_COMMANDS,
    "program": _RUNS_COMMANDS, "arguments": _RUNS_COMMANDS, "std_redirect": _OTHER_FILES,
    "donorname": "it names another file whose blocks fio moves (the e4defrag engine truncated unrelated files)",
    "inplace": "it belongs to the e4defrag engine, which changes files other than the test file",
    "opendir": _OTHER_FILES, "read_iolog": "it replays an I/O log, which names files and devices of its own",
    "write_iolog": _LOGS, "write_bw_log": _LOGS, "write_lat_log": _LOGS, "write_iops_log": _LOGS,
    "write_hist_log": _LOGS, "bandwidth-log": _LOGS, "latency-log": _LOGS,
    "merge_blktrace_file": _LOGS, "merge-blktrace-only": _LOGS,
    "replay_redirect": "it sends replayed I/O to another device",
    "ioscheduler": "it changes the I/O scheduler of a whole device, for every program on the machine",
    "cgroup": "it creates a control group on the system", "cgroup_weight": "it creates a control group on the system",
    "cgroup_nodelete": "it leaves a control group on the system",
    "uid": "it switches fio to another user", "gid": "it switches fio to another group",
    "allow_mounted_write": "it lets fio write to a mounted block device, past fio's own guard",
    "fill_device": "it writes until the filesystem is full, whatever size was checked",
    "profile": "it loads a built-in fio profile that adds options of its own, device names included",
    "aux-path": _OTHER_FILES, "output": "iotui reads fio's report itself", "client": "it sends jobs to other machines",
    "server": "it turns fio into a server that accepts jobs from the network", "daemonize": _OTHER_FILES,
    "remote-config": "it hands a job file to a remote fio server", "inflate-log": _OTHER_FILES,
    "section": "iotui runs every section of the job (a sweep picks one with job=NAME)",
    "readonly": "iotui adds it itself when it runs on a raw block device",
    "file_append": "it makes fio write past the end of the file, beyond the size iotui checked against the free space",
}
_IOTUI_OWNS = "iotui sets how fio reports itself (JSON every second, no progress line) and reads that output"
for _name in ("output-format", "status-interval", "eta", "eta-newline", "eta-interval", "minimal", "append-terse",
              "terse-version", "debug", "idle-prof", "parse-only", "showcmd", "version", "help", "cmdhelp",
              "enghelp", "crctest", "cpuclock-test", "memcpytest", "warnings-fatal", "max-jobs", "alloc-size"):
    REFUSAL_REASONS[_name] = _IOTUI_OWNS
for _name in ("replay_no_stall", "replay_scale", "replay_align", "replay_time_scale", "replay_skip",
              "read_iolog_chunked", "merge_blktrace_scalars", "merge_blktrace_iters"):
    REFUSAL_REASONS[_name] = "it belongs to replaying I/O logs, which name files and devices of their own"
for _name in ("hostname", "port", "protocol", "listen", "pingpong", "interface", "ttl", "window_size", "mss",
              "nodelay", "bindname", "verb", "uri", "clustername", "pool", "clientname", "conf", "rbdname",
              "volume", "brick", "single-instance", "busy_poll", "touch_objects"):
    REFUSAL_REASONS[_name] = "it belongs to an engine that talks to another system over the network"
for _name in ("sg_write_mode", "readfua", "writefua", "stream_id", "skip_bad", "cmd_type"):
    REFUSAL_REASONS[_name] = "it belongs to an engine that works on devices, not on the test file"

_NOT_LISTED = "it is not on iotui's list of options known to be safe for a benchmark"


def _is_false(value: str) -> bool:
    return value.strip().lower() in _FALSE


def _only_off(name: str, why_on: str) -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        return None if value.strip() != "" and _is_false(value) else f"{why_on} ({name}=0 passes)"
    return check


def _pattern(value: str) -> str | None:
    # fio reads a file for a pattern in single quotes ('FILE'); hex, numbers and "strings" are data.
    if "'" in value:
        return "a pattern in single quotes makes fio read that file into the test data"
    return None


def _engine(value: str) -> str | None:
    return engine_refusal(value)


def _memory(value: str) -> str | None:
    if ":" in value:
        return "it names a file to memory-map (mmap:PATH, mmaphuge:PATH), outside the private test directory"
    return None


def _path_in_private_dir(value: str) -> str | None:
    """filename/directory/filename_format: relative paths are placed in the private test directory."""
    for part in file_list_parts(value):
        if part in SPECIAL_FILES:
            continue
        if part in ("", "-"):
            return "an empty name or '-' (standard input/output) is not a file in the private test directory"
        if part.startswith(("/", "~")) or "\\" in part:
            return (
                "it names a path outside iotui's private test directory (relative names are placed inside "
                "it; /dev/null and /dev/zero are allowed)"
            )
        if ".." in part.split("/"):
            return "'..' would leave iotui's private test directory"
    return None


_VALUE_RULES: dict[str, Callable[[str], str | None]] = {
    "ioengine": _engine,
    "mem": _memory,
    "buffer_pattern": _pattern,
    "verify_pattern": _pattern,
    "verify_state_save": _only_off("verify_state_save", "it writes verify state files outside the private test directory"),
    "verify_state_load": _only_off("verify_state_load", "it reads verify state files named by fio"),
    "unlink": _only_off("unlink", "iotui removes the test files itself after the run"),
    "unlink_each_loop": _only_off("unlink_each_loop", "iotui removes the test files itself after the run"),
    # Exact: fio compares the word as written (case and all), and the spelling judged is the one it gets.
    "zonemode": lambda value: None if value in ("none", "strided") else (
        "it drives a zoned block device, not iotui's test file (only none and strided are allowed)"),
    "filename": _path_in_private_dir,
    "directory": _path_in_private_dir,
    "filename_format": _path_in_private_dir,
}
_NEGATIVE_ALLOWED = frozenset({"nice", "prio", "description", "name", "filename", "directory", "filename_format"})


# fio's own naming in filename_format (the job's name and number, the file's number), not substitutions.
_FILENAME_FORMAT_KEYS = re.compile(r"\$(jobname|jobnum|filenum|clientuid)(?![A-Za-z0-9_])")


GLOBAL_SECTION = "global"
"""fio compares a job's name with this word by its first six letters (``strncmp(name, "global", 6)``
in parse_jobs_ini and in the command line's ``--name``): such a job is its global options, not a job."""


def value_refusal(option: str, value: str) -> str | None:
    """Why an allowed option's value is refused (a clause after "because"), or None."""
    if _CONTROL_CHARACTERS.search(value):
        return "its value contains a line break or another control character"
    if option == "name" and value.startswith(GLOBAL_SECTION):
        return (
            f"fio reads a job whose name starts with '{GLOBAL_SECTION}' as its [global] section, so that job would "
            "not run at all; choose another name"
        )
    if option not in _FREE_TEXT and not value.isascii():
        odd = next(character for character in value if not character.isascii())
        return (
            f"its value holds the character U+{ord(odd):04X}, which fio compares byte by byte, so it would not "
            "read the value as the word it looks like"
        )
    unsubstituted = _FILENAME_FORMAT_KEYS.sub("", value) if option == "filename_format" else value
    if "$" in unsubstituted and option not in ("description",):
        return (
            "its value holds a '$' substitution: $mb_memory, $ncpus and $pagesize are fio's own built-in "
            "values (this machine's memory in MiB, its CPU count and its page size) and ${NAME} reads an "
            "environment variable, so what runs would not be what iotui checked and shows"
        )
    if value.strip().startswith("-") and option not in _NEGATIVE_ALLOWED:
        return f"a negative value makes no sense for {option}"
    rule = _VALUE_RULES.get(option)
    return rule(value) if rule else None


def judge(option: str, value: str) -> tuple[str, str] | None:
    """(code, reason) when a canonical option with its value is refused, else None."""
    if option not in ALLOWED_OPTIONS:
        return "refused-option", REFUSAL_REASONS.get(option, _NOT_LISTED)
    reason = value_refusal(option, value)  # first: a '$' or a control character is why, whatever the word
    if reason is not None:
        return ("refused-engine" if option == "ioengine" else "refused-value"), reason
    accepted = fio_would_refuse(option, value)
    return None if accepted is None else ("invalid-value", accepted)


# -- the one function every channel goes through ------------------------------------------


def check_options(
    options: Mapping[str, object],
    origin: str,
    *,
    channel: Channel = COMMAND_LINE,
    engines: Iterable[str] = (),
    table: OptionTable | None = None,
) -> dict[str, str]:
    """Resolve every name as ``channel`` would, judge name and value, return them by canonical name.

    ``engines``: the I/O engine(s) in effect from outside (a job file's
    [global], a preset's global options); an ``ioengine`` among ``options``
    replaces them. Values come back in the one spelling that was judged
    (:func:`fio_value`), which is the one to hand to fio. Raises PolicyError for
    the first refused option.
    """
    table = table or default_table()
    engines = [fio_value(engine) for engine in engines if engine]
    items = [(str(key).strip(), fio_value("" if value is None else str(value))) for key, value in options.items()]
    # Pass 1: names without the engine's own options, to find the engine in effect here.
    resolved: dict[int, str] = {}
    engine_here: str | None = None
    for index, (given, value) in enumerate(items):
        try:
            resolved_name = table.resolve(given, channel)
        except OptionNameError:
            continue
        resolved[index] = resolved_name
        if resolved_name == "ioengine":
            engine_here = value
    in_effect = [engine_here] if engine_here else [engine for engine in engines if engine]
    if engine_here:
        # A refused engine is the reason, before any option of its own that this fio lacks.
        engine_index = max(index for index, name in resolved.items() if name == "ioengine")
        verdict = judge("ioengine", engine_here)
        if verdict is not None:
            raise refusal(verdict[0], origin=origin, given=items[engine_index][0], option="ioengine",
                          value=items[engine_index][1], reason=verdict[1])
    result: dict[str, str] = {}
    for index, (given, value) in enumerate(items):
        if not given:
            raise refusal("unknown-option", origin=origin, given=given, option=None, value=value,
                          reason="it has no name")
        name = resolved.get(index)
        if name is None:
            try:
                name = table.resolve(given, channel, in_effect)
            except OptionNameError as error:
                reason = error.reason()
                owners = [engine for candidate in error.candidates for engine in table.engines_with(candidate)]
                if given in table._engine_names(table.engines()):
                    owners = table.engines_with(given)
                    reason = (
                        f"it is an option of the {', '.join(owners)} engine{'s' if len(owners) > 1 else ''}, "
                        "which this job does not use"
                    )
                raise refusal(error.code, origin=origin, given=given, option=None, value=value, reason=reason,
                              candidates=error.candidates) from None
        verdict = judge(name, value)
        if verdict is not None:
            code, reason = verdict
            raise refusal(code, origin=origin, given=given, option=name, value=value, reason=reason)
        result.pop(name, None)
        result[name] = value
    return result


def check_option(
    key: str, value: str, origin: str, *, channel: Channel = COMMAND_LINE, engines: Iterable[str] = (),
    table: OptionTable | None = None,
) -> tuple[str, str]:
    """One option through :func:`check_options`; returns (canonical name, value)."""
    (name, checked), = check_options({key: value}, origin, channel=channel, engines=engines, table=table).items()
    return name, checked


# Kept for callers that compare names loosely (aliases are resolved by the table).
def normal_option_name(key: str) -> str:
    """A name as written, without leading dashes or surrounding spaces."""
    return key.strip().lstrip("-")


__all__ = ["PolicyError", "check_options", "check_option", "judge",
           "engine_refusal", "value_refusal", "is_write_workload", "ALLOWED_OPTIONS", "SAFE_ENGINES",
           "JOB_FILE", "COMMAND_LINE"]
