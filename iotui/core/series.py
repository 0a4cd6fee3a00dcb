"""Bounded ring buffers and counter-to-rate conversion.

Every rolling series (sparklines, the last minute of samples) is a `Ring`, and every
monotonically increasing kernel or fio counter becomes a per-second rate through a
`CounterRate`. Keeping both here means one tested place decides what a gap, a reset
or a backwards counter does, instead of a special case per metric.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice


class Ring:
    """A fixed-capacity series of floats; `None` marks a sample that has no value.

    Appending beyond the capacity drops the oldest value, so memory stays flat over
    a run of any length.
    """

    __slots__ = ("_values",)

    def __init__(self, capacity: int, values: Iterable[float | None] = ()) -> None:
        if capacity < 1:
            raise ValueError(f"Ring capacity must be at least 1, got {capacity}")
        self._values: deque[float | None] = deque(values, maxlen=capacity)

    @property
    def capacity(self) -> int:
        """How many values the ring keeps before dropping the oldest."""
        # maxlen is never None: the constructor always sets it.
        return self._values.maxlen or 0

    def append(self, value: float | None) -> None:
        """Add the newest value (or `None` for "no value this time")."""
        self._values.append(value)

    def extend(self, values: Iterable[float | None]) -> None:
        """Add several values, oldest first."""
        self._values.extend(values)

    def clear(self) -> None:
        """Forget every value; the capacity stays."""
        self._values.clear()

    def values(self) -> list[float | None]:
        """A copy of the values, oldest first, `None` where a sample had no value."""
        return list(self._values)

    def last(self, count: int) -> list[float | None]:
        """The newest ``count`` values (fewer while the ring holds fewer), oldest first."""
        if count <= 0:
            return []
        if count >= len(self._values):
            return list(self._values)
        return list(islice(reversed(self._values), count))[::-1]

    def present(self) -> list[float]:
        """The values that exist, oldest first (gaps left out)."""
        return [value for value in self._values if value is not None]

    def latest(self) -> float | None:
        """The newest value, or `None` when the ring is empty or the newest is a gap."""
        return self._values[-1] if self._values else None

    def max(self) -> float | None:
        """The largest value present, or `None` when there is none."""
        present = self.present()
        return max(present) if present else None

    def min(self) -> float | None:
        """The smallest value present, or `None` when there is none."""
        present = self.present()
        return min(present) if present else None

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[float | None]:
        return iter(self._values)

    def __repr__(self) -> str:
        return f"Ring(capacity={self.capacity}, values={self.values()!r})"


class CounterRate:
    """Turns samples of a monotonically increasing counter into a per-second rate.

    `update(counter, now_s)` returns (counter delta) / (time delta) since the previous
    call. It returns `None` instead of a number when no honest rate exists:

    - on the first call (nothing to compare with yet);
    - when the counter went backwards (a reset, a wrapped counter, a process that
      left the tree) - the new value becomes the baseline for the next call;
    - when the clock did not advance;
    - when the counter is `None` (the source vanished); the next value re-baselines.
    """

    __slots__ = ("_last_counter", "_last_s")

    def __init__(self) -> None:
        self._last_counter: float | None = None
        self._last_s: float | None = None

    def reset(self) -> None:
        """Forget the baseline; the next `update` returns `None`."""
        self._last_counter = None
        self._last_s = None

    def update(self, counter: float | None, now_s: float) -> float | None:
        """Record `counter` read at monotonic time `now_s`; return its rate per second."""
        last_counter, last_s = self._last_counter, self._last_s
        if counter is None:
            self.reset()
            return None
        self._last_counter, self._last_s = counter, now_s
        if last_counter is None or last_s is None:
            return None
        elapsed_s = now_s - last_s
        delta = counter - last_counter
        if elapsed_s <= 0 or delta < 0:
            # The new reading is the baseline from now on; no rate for this interval.
            return None
        return delta / elapsed_s
