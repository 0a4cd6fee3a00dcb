"""What the app asks of the outside world, in one injectable object.

The screens never touch presets, targets, fio or the runs directory directly:
they ask a :class:`Services`. :class:`CoreServices` is the real one, built
from the command line; tests hand the app a subclass that lists fixed targets
and replays recorded fio documents (memray's ``TUIApp(reader=...)`` pattern).
This module never imports Textual.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Awaitable, Callable, Sequence

from iotui.ui.service_types import Overrides, PlanPreview, RunRequest, SkippedPreset, SweepSetup
from iotui.ui.service_words import (
    REMOTE_ADVICE as REMOTE_ADVICE, TARGET_ADVICE as TARGET_ADVICE, ServiceError as ServiceError, index_words,
    lock_refusal as lock_refusal, start_refusal as start_refusal, with_advice,
)

if TYPE_CHECKING:
    from iotui.core.compare.compare import Comparison
    from iotui.core.host.targets import TargetInfo
    from iotui.core.presets.model import Preset
    from iotui.core.presets.titles import PresetTitle
    from iotui.core.records.edit import Deleted
    from iotui.core.records.history_index import IndexedRun, SyncResult
    from iotui.core.sweep.record import SweepRecord
    from iotui.core.sweep.slo import Slo
    from iotui.core.records.record import RunRecord  # the preset and safety modules are only needed at run time
    from iotui.core.runs.protocols import Session
    from iotui.core.start import StartRequest
    from iotui.core.stream.metrics import MetricsServer
    from iotui.core.sweep.runner import SweepRunner
    from iotui.core.remedy.run import RemedyRun

# The preview shows the test file with a placeholder id (mktemp style): each run draws its own.
PREVIEW_RUN_ID = "X" * 12
# Presets listed first on Home, in this order; the rest follow by name.
HOME_FIRST = ("desktop", "desktop-nvme")

# The private test directory's name in the preview (each run draws a random one).
PREVIEW_PRIVATE_DIR = ".iotui-" + "X" * 16

RecordEntry = tuple[Path, "RunRecord | None", "str | None"]


def _home_order(preset: Preset | PresetTitle) -> int:
    """Sort key: the HOME_FIRST presets in their order, then the rest (a stable sort keeps them by name)."""
    return HOME_FIRST.index(preset.name) if preset.name in HOME_FIRST else len(HOME_FIRST)


class Services:
    """The real services: presets and targets from the core, fio from the command line."""

    def __init__(
        self,
        *,
        runs_dir: Path,
        fio: str | None = None,
        baseline_s: float = 2.0,
        cwd: str | None = None,
        lock_by: str = "the app",
    ) -> None:
        self.runs_dir = Path(runs_dir)
        # How this app names itself in the machine's run lock ("the app", "the app in a browser").
        self.lock_by = lock_by
        self.fio = fio
        self.baseline_s = baseline_s
        self.cwd = cwd or os.getcwd()
        self.cpu_count = os.cpu_count() or 1
        # Asked when some hosts of a multi-host run fail the check (the app sets it to its question):
        # (each left-out host and why, how many passed) -> start without them?
        self.ask_left_out: Callable[[list[tuple[str, str]], int], Awaitable[bool]] | None = None
        # ``iotui --metrics``: each run's (and sweep point's) live figures, served for Prometheus.
        self.metrics: MetricsServer | None = None
        # Seconds of fio per remedy when a run's remedies are tried from Results (iotui remedy's default).
        self.remedy_runtime_s = 15.0

    # -- fio ----------------------------------------------------------------
    def fio_binary(self) -> tuple[str, str | None]:
        """(the fio binary to show and run, a sentence when it cannot be found)."""
        from iotui.core.fio.runner import FioNotFoundError, resolve_fio

        try:
            return resolve_fio(self.fio), None
        except FioNotFoundError as error:
            return self.fio or "fio", str(error)

    # -- targets ------------------------------------------------------------
    def list_targets(self) -> list[TargetInfo]:
        """Mounted filesystems worth testing, the current directory first."""
        from iotui.core.host import targets as target_checks
        targets = list(target_checks.list_targets())
        if not any(str(target.path) == self.cwd for target in targets):
            try:
                targets.insert(0, target_checks.inspect_target(Path(self.cwd)))
            except (target_checks.TargetError, OSError):  # an unreadable cwd is simply not offered
                pass
        else:
            targets.sort(key=lambda target: str(target.path) != self.cwd)
        return targets

    def inspect_target(self, path: str) -> TargetInfo:
        """One typed path as a target, or a ServiceError saying what is wrong."""
        from iotui.core.host import targets as target_checks
        expanded = Path(path).expanduser()
        try:
            return target_checks.inspect_target(expanded)
        except target_checks.TargetError as error:
            raise ServiceError(with_advice(error, error.code)) from None
        except OSError as error:  # reads as a sentence
            raise ServiceError(str(error) or f"{expanded} cannot be used as a target.") from None

    # -- presets ------------------------------------------------------------
    def list_preset_titles(self) -> list[PresetTitle]:
        """Each preset file's name and description, unchecked: what Home lists at its first frame.

        Only ``list_presets``' checked presets are ever planned or run; they replace these
        right after the first frame (core/presets/titles.py says why).
        """
        from iotui.core.presets.dirs import preset_dirs
        from iotui.core.presets.titles import list_preset_titles

        titles = list_preset_titles(preset_dirs())
        return sorted(titles, key=_home_order)

    def list_presets(self) -> tuple[list[Preset], list[SkippedPreset]]:
        """The presets that load, and each preset file that does not, with its sentence."""
        from iotui.core.presets.files import list_presets
        loaded, errors = list_presets()
        # The desktop table leads the list: the one run most people come for.
        ordered = sorted(loaded, key=_home_order)
        return ordered, [SkippedPreset(error.path.stem if error.path else "", str(error)) for error in errors]

    def apply_overrides(self, preset: Preset, overrides: Overrides) -> Preset:
        """The preset with the home screen's changes, or a ServiceError sentence."""
        from iotui.core.fio.policy import PolicyError
        from iotui.core.presets.model import PresetError
        try:
            return overrides.applied_to(preset)
        except (PresetError, PolicyError) as error:  # already a sentence
            raise ServiceError(str(error)) from None

    def preview(self, preset: Preset, target: TargetInfo) -> PlanPreview:
        """The exact command, warnings and estimates for a preset on the chosen target (inspected
        when it was chosen: an option edit reads no mount table or sysfs again)."""
        from iotui.core.presets import argv as command
        from iotui.core.presets.estimate import estimate
        from iotui.core.fio.policy import PolicyError
        from iotui.core.runs.plan import PlanError, make_plan
        from iotui.core.presets.model import PresetError

        fio_binary, fio_problem = self.fio_binary()
        try:
            duration_s, disk_bytes = estimate(preset)
        except (ValueError, OverflowError):  # a size too large for a float: no estimate
            duration_s, disk_bytes = None, None
        try:
            plan = make_plan(
                preset, target, fio_binary=fio_binary, run_id=PREVIEW_RUN_ID,
                private_dir_name=PREVIEW_PRIVATE_DIR, preview=True,
            )
        except PlanError as error:
            try:
                argv = command.build_fio_argv(
                    preset, test_file=target.path / PREVIEW_PRIVATE_DIR / "testfile", fio_binary=fio_binary
                )
                text = command.format_command(argv)
            except (PolicyError, PresetError, ValueError):  # what the plan refused may not make an argv either
                text = ""
            return PlanPreview(text, [], with_advice(error, error.code), duration_s, disk_bytes)
        warnings = list(plan.warnings)
        if fio_problem:
            warnings.insert(0, ("fio-missing", fio_problem))
        return PlanPreview(
            command.format_command(plan.argv),
            warnings,
            None,
            plan.estimated_duration_s if plan.estimated_duration_s is not None else duration_s,
            disk_bytes,
        )

    # -- runs ---------------------------------------------------------------
    def start_request(self, request: RunRequest) -> StartRequest:
        """The screens' request as the core's: this app's runs directory, fio, baseline and lock name."""
        from iotui.core.start import StartRequest

        return StartRequest(
            # The target as chosen on Home, in its one form; with hosts: a path on each host.
            preset=request.preset, target=request.target_path if request.hosts else request.target,
            runs_dir=self.runs_dir,
            fio=self.fio, baseline_s=self.baseline_s, lock_by=self.lock_by, hosts=request.hosts,
            host_probes=request.host_probes, ask_left_out=self.ask_left_out,
        )

    async def start(self, request: StartRequest, on_event: Callable[[object], None]) -> Session:
        """A ready-to-run session from the core's one entry (this machine or every host); a refusal is
        the core's StartError. Tests replace it with a replay."""
        from iotui.core.start import start_run

        if self.metrics is None:
            return await start_run(request, on_event)
        from iotui.core.stream.translate import MetricsFeed

        feed = MetricsFeed(self.metrics.observe)

        def with_metrics(event: object) -> None:
            on_event(event)
            feed(event)

        session = await start_run(request, with_metrics)
        feed.begin(session)
        return session

    async def make_session(self, request: RunRequest, on_event: Callable[[object], None]) -> Session:
        """A ready-to-run session with the real sampler and probes; a refusal is a ServiceError sentence."""
        from iotui.core.start import StartError

        try:
            return await self.start(self.start_request(request), on_event)
        except StartError as error:
            raise ServiceError(start_refusal(error)) from None

    def ssh_hosts(self) -> list[str]:
        """The Host entries of the user's ssh config, to pick from."""
        from iotui.core.remote.transport import ssh_config_hosts

        return ssh_config_hosts()

    def list_records(self) -> list[RecordEntry]:
        """Every saved record (or its loading error), as the core lists them."""
        from iotui.core.records.files import list_records

        try:
            return list_records(self.runs_dir)
        except OSError as error:
            raise ServiceError(f"Cannot read the runs directory {self.runs_dir} ({error.strerror or error}).") from None

    # -- history (the index of the runs directory) -------------------------------------
    def sync_history(self, progress: Callable[[int, int], None] | None = None) -> SyncResult:
        """Bring the history index up to date (a SyncResult); a ServiceError sentence when it cannot."""
        import sqlite3

        from iotui.core.records.history_index import HistoryIndexError, sync

        try:
            return sync(self.runs_dir, progress)
        except HistoryIndexError as error:
            raise ServiceError(index_words(error)) from None
        except (OSError, sqlite3.Error) as error:
            raise ServiceError(f"Cannot index the runs directory {self.runs_dir} ({error}); check its permissions.") from None

    def history_index_exists(self) -> bool:
        """Whether an index of the runs directory was built before (History can list it at once)."""
        from iotui.core.records.history_index import index_path

        return index_path(self.runs_dir).exists()

    def query_history(self, filter_text: str, limit: int | None = None, **conditions: object) -> tuple[list[IndexedRun], int]:
        """(the indexed runs matching every word of ``filter_text``, newest first; how many match)."""
        import sqlite3

        from iotui.core.records.history_index import HistoryIndexError, RunFilter, query

        try:
            return query(self.runs_dir, RunFilter.from_text(filter_text, **conditions), limit=limit)
        except HistoryIndexError as error:
            raise ServiceError(index_words(error)) from None
        except (OSError, sqlite3.Error) as error:
            raise ServiceError(f"Cannot read the history index in {self.runs_dir} ({error}).") from None

    def still_matching(self, runs: list[IndexedRun], **conditions: object) -> list[IndexedRun]:
        """Of the runs the index selected to prune, those whose own records still match (read now)."""
        from iotui.core.records.history_index import RunFilter, still_matching

        return still_matching(self.runs_dir, runs, RunFilter.from_text("", **conditions))[0]

    def annotate_run(self, path: Path, *, notes: str | None = None, tags: str | None = None) -> None:
        """Write a note and/or tags (typed as words) into the run's record."""
        from iotui.core.records.edit import annotate, parse_tags
        from iotui.core.records.schema import RecordError

        try:
            annotate(path, notes=notes, tags=parse_tags(tags) if tags is not None else None)
        except RecordError as error:
            raise ServiceError(str(error)) from None

    def delete_runs(self, paths: list[Path]) -> Deleted:
        """Delete records and their reports (a Deleted: what was removed, what could not be)."""
        from iotui.core.records.edit import delete_records

        return delete_records(paths)

    # -- compare and export -----------------------------------------------------
    def reference_rows(self) -> tuple[list[RunRecord], list[str]]:
        """Every row of every shipped reference (a published table row is a record of its own)."""
        from iotui.core.records.schema import RecordError
        from iotui.core.records.references import REFERENCES_DIR, load_reference, reference_names, reference_rows

        rows: list[RunRecord] = []
        errors: list[str] = []
        for name in reference_names(REFERENCES_DIR):
            try:
                rows.extend(reference_rows(load_reference(name)))
            except (RecordError, OSError) as error:
                errors.append(str(error))
        return rows, errors

    def write_export(self, file_name: str, text: str) -> Path:
        """Write an exported table into the runs directory (the current one if that fails)."""
        from iotui.core.safe_files import write_file

        problems = []
        for directory in (self.runs_dir, Path(self.cwd)):
            path = directory / file_name
            try:
                directory.mkdir(parents=True, exist_ok=True)
                write_file(path, text.encode("utf-8"))
                return path
            except OSError as error:
                problems.append(f"{path} ({error.strerror or error})")
        raise ServiceError(f"Cannot write the table to {' or '.join(problems)}; free some space or check the permissions.")

    def write_report(self, records: Sequence[RunRecord] = (), comparison: Comparison | None = None, sweep: SweepRecord | None = None) -> Path:
        """``iotui report``'s page for runs (several: with their ``comparison``) or a ``sweep``, written
        beside the (first) record, or into the runs directory when that cannot be written. Slow (charts):
        call it from a thread."""
        from iotui.core.report.build import ReportError, require_charts, runs_html_path, runs_report, sweep_report, write_html

        try:
            require_charts()
            if sweep is not None:
                text, _ = sweep_report(sweep)
                name = (sweep.path.name.removesuffix(".toml") if sweep.path else f"sweep-{sweep.id[:8]}") + ".html"
                beside = sweep.path.with_name(name) if sweep.path else self.runs_dir / name
            else:
                text, _ = runs_report(list(records), comparison)
                beside = runs_html_path(list(records), self.runs_dir)
        except ReportError as error:
            raise ServiceError(str(error)) from None
        problems = []
        for path in dict.fromkeys((beside, self.runs_dir / beside.name)):
            try:
                return write_html(text, path)
            except ReportError as error:
                problems.append(str(error))
        raise ServiceError(" ".join(problems))

    # -- sweeps ---------------------------------------------------------------------
    def plan_sweep(
        self, preset: Preset, target_path: str, vary_text: str, overrides: Overrides | None = None,
        *, target_info: TargetInfo | None = None,
    ) -> SweepSetup:
        """The points of ``vary_text`` (``KEY=V1,V2``, several separated by ``;`` or spaces),
        their estimated time and disk space; a ServiceError sentence when it cannot be planned.
        ``target_info``: the target as Home inspected it, carried to the points' plans."""
        from iotui.core.fio.policy import PolicyError
        from iotui.core.presets.model import PresetError
        from iotui.core.sweep.plan import SYSBENCH_COMPARE_PRESET, SweepPlanError, describe_estimate, make_base
        from iotui.core.sweep.prepare import prepare_sweep
        from iotui.core.sweep.values import TOOL_KEY

        entries = [entry for entry in re.split(r"[;\s]+", vary_text.strip()) if entry]
        if not entries:
            raise ServiceError("Type what to vary as KEY=V1,V2 (for example numjobs=1,2,4,8); several keys separated by ';'.")
        if any(entry.split("=", 1)[0].strip() == TOOL_KEY for entry in entries):
            raise ServiceError("The app runs fio points only; for tool=sysbench use 'iotui sweep' on the command line.")
        overrides = overrides or Overrides()
        sets = {key: str(value) for key, value in overrides.as_kwargs().items() if key not in ("runtime_s", "size")}
        if "direct" in sets:
            sets["direct"] = "1" if overrides.direct else "0"
        base = make_base(
            preset_name=preset.name, job_file=None, target=target_path,
            runtime_s=overrides.runtime_s, size=overrides.size, sets=sets,
        )
        try:
            prepared = prepare_sweep(preset, vary=entries, target=target_path, base=base, baseline_s=self.baseline_s)
        except SweepPlanError as error:  # names the entry as typed, no flag
            raise ServiceError(with_advice(error, error.code)) from None
        except (PresetError, PolicyError, ValueError, OverflowError) as error:  # a preset the core cannot plan
            raise ServiceError(f"This sweep cannot be planned: {error}") from None
        plan, estimate = prepared.plan, prepared.estimate
        notes = [note for note in plan.notes if "sysbench" not in note]
        if preset.name == SYSBENCH_COMPARE_PRESET:
            notes.append("The app runs the fio side only; 'iotui sweep sysbench-compare' also runs real sysbench.")
        refusal = str(prepared.space_refusal) if prepared.space_refusal is not None else None
        description = describe_estimate(plan, estimate)
        return SweepSetup(plan, estimate, target_path, description, tuple(notes), refusal, target_info)

    def parse_slo(self, text: str) -> Slo | None:
        """A latency target typed on the sweep screen (None when empty), or a ServiceError sentence."""
        from iotui.core.sweep.slo import SloError, parse_slo
        if not text.strip():
            return None
        try:
            return parse_slo(text)
        except SloError as error:
            raise ServiceError(str(error)) from None

    def make_remedy(self, record: RunRecord, on_event: Callable[[object], None], *,
                    allow_system_disk: bool = False) -> RemedyRun:
        """``iotui remedy`` of a saved run: its preset and changed options on its target, not started yet."""
        from iotui.core.fio.policy import PolicyError
        from iotui.core.presets.model import PresetError
        from iotui.core.remedy.run import RemedyRun, record_workload
        from iotui.core.start import StartRequest

        presets, _ = self.list_presets()
        preset = next((preset for preset in presets if preset.name == record.preset), None)
        if preset is None:
            raise ServiceError(f"This run's preset {record.preset} is not among the presets, so its workload "
                               "cannot be run again; run iotui remedy with its job file.")
        try:
            workload = record_workload(record, preset, self.runs_dir, runtime_s=self.remedy_runtime_s,
                                       allow_system_disk=allow_system_disk)
        except (PresetError, PolicyError) as error:  # already a sentence
            raise ServiceError(str(error)) from None
        request = StartRequest(preset=workload.preset, target=str(workload.target), runs_dir=self.runs_dir,
                               fio=self.fio, baseline_s=self.baseline_s, lock_by=f"{self.lock_by} (remedy)")
        return RemedyRun(workload, request, on_event=on_event, word=start_refusal, lock_by=f"{self.lock_by} (remedy)")

    def make_sweep_runner(self, setup: SweepSetup, on_event: Callable[[object], None], slo: Slo | None = None) -> SweepRunner:
        """A runner for a fresh sweep record; each point's session comes from :meth:`start`.

        ``slo``: a parsed latency target (:func:`parse_slo`), or None.
        """
        from iotui.core.start import StartRequest
        from iotui.core.sweep.prepare import SweepPreparation, fresh_sweep_record, point_starter
        from iotui.core.sweep.runner import SweepRunner

        preparation = SweepPreparation(setup.plan, setup.estimate)
        request = StartRequest(
            preset=setup.plan.preset, target=setup.target_info if setup.target_info is not None else setup.target_path,
            runs_dir=self.runs_dir, fio=self.fio, baseline_s=self.baseline_s, lock_by=self.lock_by,
        )
        return SweepRunner(
            fresh_sweep_record(preparation),
            start_point=point_starter(setup.plan, request, word=start_refusal, start=self.start),
            runs_dir=self.runs_dir,
            on_event=on_event,
            estimates_s=setup.estimate.point_duration_s,
            slo=slo,
            lock_by=f"{self.lock_by} (sweep)",
        )
