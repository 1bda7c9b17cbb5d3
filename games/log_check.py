"""Every field of an action log checked against the rules before any of it reaches an
engine (``GameState.replay`` calls ``check_log``).

A log is JSON from anywhere (a replay file, a stranger's upload), and the engines trust
their input: the compiled cores index C arrays without bounds checks, and a deal of 30
cards or a start player of 99 would be played (or crash) as if legal. The fields every
log has (game, format, env version, options, seed, actions) are checked here; the chance
outcomes, whose shape is each game's own (deals, decks, start players, noise), by the
game's ``log_check`` module (``catzoo.games.<game>.log_check.check_chance``), from the
game's options and constants. A failure is a ``ReplayError`` naming the field.
"""

from __future__ import annotations

import importlib
import math
from collections import Counter
from typing import Any

from catzoo.games import safe_json
from catzoo.games.base import (
    LOG_FORMAT,
    OptionsError,
    ReplayError,
    SeedError,
    _tupled,
    check_seed,
    is_int,
    options_from_json,
)

# A log of the longest game (Ledges, 4 players, 200 rounds of noise draws) is a few MB.
MAX_LOG_BYTES = 16 * 2**20


def parse_log_text(text: str | bytes, source: str = "log") -> Any:
    return safe_json.loads(text, limit=MAX_LOG_BYTES, source=source, error=ReplayError)


def check_log(cls, log) -> tuple[Any, int | None, tuple, list[int]]:
    """The options, seed, chance outcomes (as the engine stores them) and actions of
    ``log``, an action log of ``cls``'s game; ``ReplayError`` names any bad field."""
    game = cls.game_name
    if not isinstance(log, dict):
        raise ReplayError(f"a {game} log must be a JSON object, got {type(log).__name__}")
    if log.get("game") != game:
        raise ReplayError(f"this log is of game {log.get('game')!r}, not {game!r}")
    if "format" in log and log["format"] != LOG_FORMAT:
        raise ReplayError(f"{game}: log format {log['format']!r} is not supported "
                          f"(this CatZoo writes format {LOG_FORMAT})")
    if "env_version" in log and log["env_version"] != cls.env_version:
        raise ReplayError(f"{game}: the log is of env version {log['env_version']!r}; the "
                          f"installed rules are version {cls.env_version}")
    if "options" not in log:
        raise ReplayError(f"{game}: the log has no options")
    try:
        options = options_from_json(cls.options_cls, game, log["options"])
    except OptionsError as err:
        raise ReplayError(f"{game}: the log's options: {err}") from None
    try:
        seed = check_seed(log.get("seed"), "seed")
    except SeedError as err:
        raise ReplayError(f"{game}: the log's {err}") from None
    chance = log.get("chance", [])
    if not isinstance(chance, list):
        raise ReplayError(f"{game}: the log's chance must be a list of outcomes, "
                          f"got {type(chance).__name__}")
    _game_checks(game).check_chance(options, chance)
    actions = log.get("actions")
    if not isinstance(actions, list):
        raise ReplayError(f"{game}: the log's actions must be a list of action numbers")
    for step, action in enumerate(actions):
        if not is_int(action) or action < 0:
            raise ReplayError(f"{game}: actions[{step}] = {_short(action)} is not an action "
                              "number (a non-negative integer)")
    return options, seed, _tupled(chance), actions


def _game_checks(game: str):
    return importlib.import_module(f"catzoo.games.{game}.log_check")


# --- helpers for the games' check_chance ----------------------------------------------------
def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def fail(game: str, where: str, message: str):
    raise ReplayError(f"{game}: {where}: {message}")


def rounds(game: str, chance: list, most: int, what: str = "deal") -> None:
    if len(chance) > most:
        fail(game, "chance", f"{len(chance)} outcomes, but the game has at most {most} "
                             f"({what} per round)")


def sequence(game: str, where: str, value, length: int | None = None) -> list:
    """``value`` as a list (JSON array), of ``length`` items if given."""
    if not isinstance(value, list):
        fail(game, where, f"{_short(value)} must be a list")
    if length is not None and len(value) != length:
        fail(game, where, f"holds {len(value)} items, not {length}")
    return value


def integers(game: str, where: str, value, low: int, high: int, length: int | None = None,
             what: str = "card") -> list[int]:
    """A list of integers in ``low..high`` (inclusive)."""
    items = sequence(game, where, value)
    if length is not None and len(items) != length:
        fail(game, where, f"holds {len(items)} {what}s, not {length}")
    for i, v in enumerate(items):
        if not is_int(v) or not low <= v <= high:
            fail(game, f"{where}, item {i}", f"{_short(v)} is not a {what} ({low} to {high})")
    return items


def integer(game: str, where: str, value, low: int, high: int, what: str) -> int:
    if not is_int(value) or not low <= value <= high:
        fail(game, where, f"{_short(value)} is not a {what} ({low} to {high})")
    return value


def composition(game: str, where: str, cards, expected: Counter, name=str) -> None:
    """``cards`` hold exactly the multiset ``expected`` (a deck)."""
    got = Counter(cards)
    if got == expected:
        return
    for card in sorted(got - expected):  # a card dealt twice is the likelier forgery
        fail(game, where, f"holds {got[card]} of card {name(card)}; the deck has "
                          f"{expected[card]}")
    for card in sorted(expected - got):
        fail(game, where, f"holds {got[card]} of card {name(card)}; the deck has "
                          f"{expected[card]}")


def finite_numbers(game: str, where: str, value, lengths: tuple[int, ...], limit: float) -> None:
    items = sequence(game, where, value)
    if len(items) not in lengths:
        fail(game, where, f"holds {len(items)} numbers, not "
                          + " or ".join(map(str, lengths)))
    for i, v in enumerate(items):
        if (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                or abs(v) > limit):
            fail(game, f"{where}, item {i}", f"{_short(v)} is not a finite number within "
                                        f"+-{limit:g}")
