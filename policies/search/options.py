"""Typed ``key=value`` options of the search bots, checked with errors that name them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from catzoo.games.suggest import did_you_mean


class SearchOptionError(ValueError):
    pass


def require_state(bot: str, doing: str, state, player) -> None:
    """A search bot's move needs the engine's state and the seat to act (the arena, the
    table and ``play_match`` pass them; a bare observation is not enough)."""
    if state is None or player is None:
        raise SearchOptionError(
            f"{bot} {doing} the rules engine: call act(observation, state=..., "
            "player=...) (play_match and the arena pass them)"
        )


def check_options(bot: str, given: Mapping[str, Any], known: Mapping[str, tuple]) -> dict:
    """``known`` maps an option to (type, default, test, explanation of the test).

    Strings are converted (a policy spec on the command line gives strings); an unknown
    option or a value of the wrong type or range is an error naming the option.
    """
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise SearchOptionError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {bot}"
            f"{did_you_mean(unknown[0], known)}; known options: "
            + ", ".join(f"{k} (default {v[1]})" for k, v in known.items())
        )
    out = {}
    for key, (kind, default, test, explain) in known.items():
        value = given.get(key, default)
        if value is not None:
            try:
                value = _convert(kind, value)
            except (TypeError, ValueError):
                raise SearchOptionError(
                    f"{bot}: option {key}={value!r} must be {kind.__name__}"
                ) from None
            if not test(value):
                raise SearchOptionError(f"{bot}: option {key}={value!r} must be {explain}")
        out[key] = value
    return out


def _convert(kind: type, value):
    if kind is bool:
        if isinstance(value, str):
            if value.lower() not in ("true", "false", "1", "0"):
                raise ValueError(value)
            return value.lower() in ("true", "1")
        return bool(value)
    if kind is int:
        if isinstance(value, float) and not value.is_integer():
            raise ValueError(value)
        if isinstance(value, bool):
            raise TypeError(value)
        return int(value)
    return kind(value)
