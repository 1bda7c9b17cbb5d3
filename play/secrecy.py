"""Checking that what a seat is shown tells nothing of what that seat cannot see.

The engines know what each player may know: ``GameState.resample(seat, rng)`` re-deals
everything hidden from ``seat`` consistently with what it saw, and rewrites the log so the
other world replays exactly. A message for ``seat`` leaks nothing when it is the same in
such other worlds: the same view, the same history of moves as that seat saw them. The
tests run this on every message of played games (terminal, web); the arena may too.
"""

from __future__ import annotations

import random

from catzoo.play.table import Table


def first_difference(a, b, path: str = "") -> str | None:
    """Where two JSON values differ (a readable path), or None when they are equal."""
    if type(a) is not type(b):
        return f"{path or '.'}: {a!r} != {b!r}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                return f"{path}.{key}: present on one side only"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{path or '.'}: {a!r} != {b!r}"


def other_world_view(state, seat: int, seats: list[str], names: list[str],
                     rng: random.Random, events: int | None) -> dict:
    """``seat``'s view of a world where what it cannot see was dealt again."""
    other = state.resample(seat, rng)
    return Table.from_log(other.action_log(), seats, names).view(seat, events)


def leak(message: dict, state, seat: int, seats: list[str], names: list[str],
         rng: random.Random, worlds: int = 2, events: int | None = None) -> str | None:
    """None if ``message`` (a view sent to ``seat`` while the game was at ``state``) is the
    same in ``worlds`` re-dealt worlds; else where it differs, a hidden fact it reveals."""
    from catzoo.play.views import EVENTS_SHOWN

    shown = EVENTS_SHOWN if events is None else events
    for _ in range(worlds):
        found = first_difference(message, other_world_view(state, seat, seats, names, rng, shown))
        if found:
            return found
    return None
