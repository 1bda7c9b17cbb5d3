"""The search bots' time budgets (``seconds=S``) and the clock they are counted on.

A bot given ``seconds`` works in steps (an ISMCTS iteration, a chunk of PIMC's re-deals, a
planner's simulation) and stops before a step it expects to end past the deadline, or at
the first check past it: a move never takes more than the budget plus one step.

Which clock counts is the process's choice, not the bot's: ``wall`` (``time.perf_counter``,
the default) at the tables, where a person waits, and ``cpu`` (``time.thread_time``, the
calling thread's CPU time) in measurements, where the same table should mean the same on
an idle or a loaded machine (the arena counts ``cpu``: docs/arena.md). The environment
variable ``CATZOO_SEARCH_CLOCK`` (``wall`` or ``cpu``) sets the default; ``use_clock``
sets it for a block. A bot's ``clock`` attribute, when set, overrides both (the tests give
bots a fake one).
"""

from __future__ import annotations

import contextlib
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}
ENV = "CATZOO_SEARCH_CLOCK"


def _from_env() -> str:
    name = os.environ.get(ENV, "wall").strip().lower() or "wall"
    if name not in CLOCKS:
        raise ValueError(f"{ENV}={name!r}: the search clock is one of {', '.join(CLOCKS)}")
    return name


_current = _from_env()


def clock_name() -> str:
    """The clock budgets are counted on in this process: ``wall`` or ``cpu``."""
    return _current


def set_clock(name: str) -> str:
    """Count budgets on ``name`` (``wall`` or ``cpu``) from now on; returns the previous."""
    global _current
    if name not in CLOCKS:
        raise ValueError(f"unknown search clock {name!r}: one of {', '.join(CLOCKS)}")
    previous, _current = _current, name
    return previous


@contextlib.contextmanager
def use_clock(name: str) -> Iterator[None]:
    previous = set_clock(name)
    try:
        yield
    finally:
        set_clock(previous)


def now() -> float:
    return CLOCKS[_current]()


class Budget:
    """``seconds`` from its creation on ``clock`` (default: the process's); ``None``
    seconds: no deadline. ``fits(step)``: whether a step expected to take ``step`` seconds
    ends by the deadline (the bots ask before each step but the first)."""

    def __init__(self, seconds: float | None, clock: Callable[[], float] | None = None):
        self.clock = clock or CLOCKS[_current]
        self.seconds = seconds
        self.start = self.clock()
        self.deadline = None if seconds is None else self.start + seconds

    def spent(self) -> float:
        return self.clock() - self.start

    def over(self) -> bool:
        return self.deadline is not None and self.clock() >= self.deadline

    def fits(self, step: float) -> bool:
        return self.deadline is None or self.clock() + step <= self.deadline


def sample_rounds(candidates: list[int], seeds: Iterable[int],
                  value: Callable[[int, int], float], budget: Budget) -> dict[int, float]:
    """Each candidate's mean ``value(candidate, seed)`` over rounds of samples, a round one
    seed for every candidate in turn (so candidates are compared on the same luck), until
    ``seeds`` run out or ``budget`` is spent: the clock is read between two values, so a
    move overruns by one value at most. A round the deadline cuts short is dropped, but
    the first, whose values then decide alone (-inf for the candidates it did not reach:
    the first candidate is always valued)."""
    totals = dict.fromkeys(candidates, 0.0)
    done = 0
    for seed in seeds:
        row: dict[int, float] = {}
        for action in candidates:
            if (done or row) and budget.over():
                break
            row[action] = value(action, seed)
        if len(row) < len(candidates):
            if not done:
                return {a: row.get(a, -math.inf) for a in candidates}
            break
        for action, v in row.items():
            totals[action] += v
        done += 1
    return {a: t / done for a, t in totals.items()}
