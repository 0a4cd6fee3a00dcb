"""The cyclic garbage collector while fio runs: the heap that was there before fio is set aside.

Python's collector walks every object of the generation it collects. The oldest
generation holds the whole program (the app's widgets, Textual, every module:
some 80,000 objects in the app), and during a live run the objects each second
leaves behind (documents, samples, drawn lines) trigger a full collection every
twenty seconds or so: 68 ms each on a 2-core VM, about 3 ms a second of the
app's 15. While fio runs, the objects alive when it started are frozen
(``gc.freeze``): no collection walks them. They are still freed by reference
counting as usual; only cyclic garbage among them waits for the end of the run,
when they go back to the oldest generation (``gc.unfreeze``). Objects made during
the run are collected as always, the young ones less often: a second of a live run
leaves about a thousand container objects behind (a parsed document, a sample, the
drawn lines), nearly all freed by reference counting, and Python's default threshold
(700) walked the survivors once or twice a second for the few cycles among them. From
``YOUNG_THRESHOLD_DURING_RUN`` on, a young collection comes every several seconds;
the cyclic garbage waiting for it is a few thousand small objects at most.

Holds nest (a run inside something else that holds): the heap is given back
when the last hold ends.
"""

from __future__ import annotations

import gc

# Net new container objects between two young collections while fio runs (Python's default: 700).
YOUNG_THRESHOLD_DURING_RUN = 7000

_runs_holding = 0
_thresholds_before: tuple[int, int, int] | None = None


def hold_for_run() -> None:
    """fio is starting: set aside every object alive now; collect the young less often."""
    global _runs_holding, _thresholds_before
    _runs_holding += 1
    gc.freeze()
    if _thresholds_before is None:
        _thresholds_before = gc.get_threshold()
        young, middle, old = _thresholds_before
        gc.set_threshold(max(young, YOUNG_THRESHOLD_DURING_RUN), middle, old)


def release_after_run() -> None:
    """fio has ended: the last run to end gives every set-aside object back to the collector."""
    global _runs_holding, _thresholds_before
    _runs_holding = max(0, _runs_holding - 1)
    if not _runs_holding:
        gc.unfreeze()
        if _thresholds_before is not None:
            gc.set_threshold(*_thresholds_before)
            _thresholds_before = None


def age_new_objects() -> None:
    """Take every object alive now out of the young generations (a large document just parsed).

    They go to the oldest generation, or, during a run, join the set-aside objects;
    either way the next young collections do not walk them again.
    """
    gc.freeze()
    if not _runs_holding:
        gc.unfreeze()


def runs_holding() -> int:
    """How many runs hold the heap now (for tests and benchmarks)."""
    return _runs_holding
