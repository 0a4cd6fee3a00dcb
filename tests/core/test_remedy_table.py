"""The remedy table's verdict: the remedy that keeps the desktop responsive at the least cost to fio."""

from __future__ import annotations

from iotui.core.remedy.plan import fio_overrides, scheduler_of
from iotui.core.remedy.table import RemedyRow, lasting_command, verdict


def _row(remedy: str, level: str, iops_change_pct: float | None, status: str = "completed") -> RemedyRow:
    return RemedyRow(remedy, status, 1000.0, 1e9, iops_change_pct, iops_change_pct, {}, level)


def test_the_cheapest_remedy_that_reaches_ok_is_named_with_the_command_that_makes_it_last() -> None:
    rows = [_row("as-is", "sluggish", 0.0), _row("scheduler=kyber", "sluggish", 2.0),
            _row("scheduler=bfq", "ok", -12.0), _row("prioclass=3", "ok", -30.0)]
    found = verdict(rows, "vda")
    assert (found.kind, found.remedy, found.level, found.as_is_level) == ("remedy", "scheduler=bfq", "ok", "sluggish")
    assert found.command == 'ACTION=="add|change", KERNEL=="vda", ATTR{queue/scheduler}="bfq"'


def test_a_better_level_short_of_ok_still_counts_and_none_helped_is_said() -> None:
    rows = [_row("as-is", "unresponsive", 0.0), _row("scheduler=bfq", "sluggish", -5.0), _row("prioclass=3", "unresponsive", 1.0)]
    assert verdict(rows, "vda").remedy == "scheduler=bfq"
    rows = [_row("as-is", "sluggish", 0.0), _row("scheduler=bfq", "sluggish", -5.0), _row("prioclass=3", "sluggish", 1.0)]
    assert verdict(rows, "vda").kind == "none-helped"
    # A remedy whose point failed never wins, whatever its figures.
    rows = [_row("as-is", "sluggish", 0.0), _row("scheduler=bfq", "ok", 5.0, status="failed")]
    assert verdict(rows, "vda").kind == "none-helped"


def test_responsive_as_it_is_and_no_as_is() -> None:
    assert verdict([_row("as-is", "ok", 0.0), _row("scheduler=bfq", "ok", 3.0)], "vda").kind == "responsive-as-is"
    assert verdict([_row("as-is", "ok", 0.0, status="failed")], "vda").kind == "no-as-is"


def test_each_remedy_names_what_it_changes() -> None:
    assert scheduler_of("scheduler=mq-deadline") == "mq-deadline" and scheduler_of("prioclass=3") is None
    assert fio_overrides("prioclass=3") == {"prioclass": "3"} and fio_overrides("scheduler=bfq") == {}
    assert lasting_command("prioclass=3", None) == "ionice -c3 CMD"


def test_without_root_or_on_the_system_disk_the_schedulers_are_skipped_and_the_idle_class_still_runs(tmp_path) -> None:
    from pathlib import Path

    from iotui.commands.remedy_words import skipped_sentence
    from iotui.core.remedy.plan import plan_remedies
    from iotui.core.remedy.schedulers import device_of

    device = device_of(tmp_path)
    if device is None or device_of(Path("/")) is None or device_of(Path("/")).name != device.name:
        import pytest

        pytest.skip("needs the temporary directory on the disk that holds / with a scheduler choice")
    plan = plan_remedies(tmp_path, allow_system_disk=False, is_root=False)
    assert plan.values == ("as-is", "prioclass=3") and plan.device is None  # nor the cgroup weight, without root
    assert [(s.remedy, s.code) for s in plan.skipped] == [("schedulers", "not-root"), ("cgroup", "not-root")]
    assert "needs root" in skipped_sentence(plan.skipped[0])
    plan = plan_remedies(tmp_path, allow_system_disk=False, is_root=True, cgroup="no-io-controller")
    assert plan.values == ("as-is", "prioclass=3")
    assert [(s.code, s.holds) for s in plan.skipped] == [("system-disk", "/"), ("no-io-controller", None)]
    assert "--allow-system-disk" in skipped_sentence(plan.skipped[0])
    allowed = plan_remedies(tmp_path, allow_system_disk=True, is_root=True, cgroup="no-io-controller")
    assert allowed.device is not None and allowed.values[0] == "as-is" and allowed.values[-1] == "prioclass=3"
    assert all(value.startswith("scheduler=") for value in allowed.values[1:-1]) and len(allowed.values) >= 4
    # A tmpfs has no scheduler to choose.
    shm = Path("/dev/shm")
    if shm.is_dir():
        skipped = plan_remedies(shm, allow_system_disk=True, is_root=True, cgroup="no-io-controller").skipped
        assert [s.code for s in skipped if s.remedy == "schedulers"] == ["no-block-device"]


def test_none_helped_names_the_level_no_remedy_went_below_even_when_one_was_worse() -> None:
    from iotui.core.remedy.words import verdict_sentence

    rows = [_row("as-is", "sluggish", 0.0), _row("scheduler=bfq", "sluggish", -27.0), _row("prioclass=3", "unresponsive", -12.0)]
    sentence = verdict_sentence(verdict(rows, "loop0"))
    assert sentence.startswith("None of the remedies helped: none brought the level below sluggish")
    found = verdict([_row("as-is", "sluggish", 0.0), _row("scheduler=bfq", "ok", -66.0)], "vda")
    assert verdict_sentence(found) == (
        "scheduler bfq keeps the desktop ok (as it is: sluggish), at -66% of fio's IOPS. To make it last, a udev rule "
        '(e.g. /etc/udev/rules.d/60-iosched.rules): ACTION=="add|change", KERNEL=="vda", ATTR{queue/scheduler}="bfq"')
