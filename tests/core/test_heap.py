"""The collector while fio runs: what existed before is set aside, and given back after, whatever the ending."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest

from iotui.core import heap
from iotui.core.runs.events import IntervalUpdate
from iotui.core.runs.session import RunSession
from tests.conftest import FIO_FIXTURES
from tests.core.test_session import _fake_runner, _plan


@pytest.fixture(autouse=True)
def nothing_frozen():
    assert heap.runs_holding() == 0 and gc.get_freeze_count() == 0
    yield
    # A failing test must not leave the heap held for the next one.
    while heap.runs_holding():
        heap.release_after_run()
    gc.unfreeze()


def test_a_hold_sets_aside_what_exists_and_not_what_comes_after() -> None:
    before = [object() for _ in range(10)]  # noqa: F841 - alive through the hold
    heap.hold_for_run()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    made_during = [[] for _ in range(1000)]
    assert gc.get_freeze_count() == frozen  # new objects stay collectable
    assert gc.is_tracked(made_during[0])
    heap.release_after_run()
    assert gc.get_freeze_count() == 0 and heap.runs_holding() == 0


def test_holds_nest_and_the_heap_is_given_back_by_the_last() -> None:
    thresholds = gc.get_threshold()
    heap.hold_for_run()
    heap.hold_for_run()
    heap.release_after_run()
    assert gc.get_freeze_count() > 0 and heap.runs_holding() == 1
    assert gc.get_threshold()[0] == heap.YOUNG_THRESHOLD_DURING_RUN
    heap.release_after_run()
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == thresholds
    heap.release_after_run()  # one release too many changes nothing
    assert heap.runs_holding() == 0


def test_the_young_generation_is_collected_less_often_during_a_run_and_as_before_after() -> None:
    young, middle, old = gc.get_threshold()
    heap.hold_for_run()
    assert gc.get_threshold() == (heap.YOUNG_THRESHOLD_DURING_RUN, middle, old)
    collections = gc.get_stats()[0]["collections"]
    kept = [[n] for n in range(3 * young)]  # three default thresholds' worth of new containers
    assert gc.get_stats()[0]["collections"] == collections
    heap.release_after_run()
    assert gc.get_threshold() == (young, middle, old)
    kept += [[n] for n in range(3 * young)]
    assert gc.get_stats()[0]["collections"] > collections
    del kept


def test_a_large_document_leaves_the_young_generations_with_or_without_a_run() -> None:
    heap.age_new_objects()
    assert gc.get_freeze_count() == 0  # outside a run: into the oldest generation
    heap.hold_for_run()
    frozen = gc.get_freeze_count()
    document = [[n] for n in range(500)]  # lists are tracked (a dict of plain numbers is not)
    heap.age_new_objects()
    assert gc.get_freeze_count() >= frozen + 500  # during a run: set aside with the rest
    del document
    heap.release_after_run()
    assert gc.get_freeze_count() == 0


@pytest.mark.parametrize("mode", ["replay", "crash"])
async def test_the_heap_is_held_while_fio_runs_and_given_back_when_it_ends(tmp_path: Path, monkeypatch, mode) -> None:
    monkeypatch.setenv("FAKE_FIO_REPLAY", str(FIO_FIXTURES / "randrw-rate200-json+.txt"))
    monkeypatch.setenv("FAKE_FIO_MODE", mode)
    monkeypatch.setenv("FAKE_FIO_DELAY_S", "0.01")
    seen: list[tuple[int, int]] = []

    def on_event(event: object) -> None:
        if isinstance(event, IntervalUpdate):
            seen.append((heap.runs_holding(), gc.get_freeze_count()))

    target = tmp_path / "target"
    target.mkdir()
    session = RunSession(_plan(target), fio_version="fio-3.33-fake", runs_dir=tmp_path / "runs",
                         on_event=on_event, runner_factory=_fake_runner)
    record = await session.run()
    assert seen, "fio's intervals should have arrived"
    assert all(holding == 1 and frozen > 1000 for holding, frozen in seen)
    assert heap.runs_holding() == 0 and gc.get_freeze_count() == 0
    assert record.status == ("completed" if mode == "replay" else "failed")
