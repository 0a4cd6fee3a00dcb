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
the run are collected as always.

Holds nest (a run inside something else that holds): the heap is given back
when the last hold ends.
"""

from __future__ import annotations

import gc

_runs_holding = 0


def hold_for_run() -> None:
    """fio is starting: set aside every object alive now."""
    global _runs_holding
    _runs_holding += 1
    gc.freeze()


def release_after_run() -> None:
    """fio has ended: the last run to end gives every set-aside object back to the collector."""
    global _runs_holding
    _runs_holding = max(0, _runs_holding - 1)
    if not _runs_holding:
        gc.unfreeze()


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
