"""Replay files: a finished (or unfinished) game as JSON, rebuilt exactly by its engine.

A replay holds the engine's own action log (``GameState.action_log()``: game, options,
seed, chance outcomes, actions) plus who sat where and the result. Loading checks that the
log replays and reaches the recorded result; saving what was loaded writes the same bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from catzoo.games import safe_json
from catzoo.games.base import ReplayError
from catzoo.games.log_check import MAX_LOG_BYTES
from catzoo.games.registry import UnknownGameError, get_game

FORMAT = "catzoo-replay"
VERSION = 1
# A replay is its log plus seat names and the result.
MAX_REPLAY_BYTES = MAX_LOG_BYTES + 2**16


@dataclass
class Replay:
    log: dict
    seats: list[str] = field(default_factory=list)
    result: dict | None = None

    @classmethod
    def from_state(cls, state, seats: list[str] | None = None) -> Replay:
        # Through JSON once, so that the in-memory log equals a loaded one (tuples -> lists).
        log = json.loads(json.dumps(state.action_log()))
        result = None
        if state.is_terminal():
            result = {"scores": _plain(state.scores()), "winners": list(state.winners())}
        return cls(log, list(seats or [f"P{i}" for i in range(state.num_players)]), result)

    @property
    def game(self) -> str:
        return self.log["game"]

    def to_dict(self) -> dict:
        return {"format": FORMAT, "version": VERSION, "game": self.game, "seats": self.seats,
                "result": self.result, "log": self.log}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n"

    def engine_class(self):
        return get_game(self.game).engine_class()

    def state(self):
        """The game at its last recorded action (every field of the log checked first)."""
        try:
            return self.engine_class().replay(self.log)
        except ReplayError:
            raise
        except ValueError as err:
            raise ReplayError(str(err)) from None

    def states(self):
        """The game before each action, then at the end: ``(state, action or None)`` pairs.
        Each yielded state is the live one; copy it to keep it."""
        cls = self.engine_class()
        log = dict(self.log, actions=[])
        state = cls.replay(log)
        for action in self.log["actions"]:
            yield state, action
            state.apply(action)
        yield state, None


def seat_views(log: dict, seats: list[str], names: list[str], seat: int) -> list[dict]:
    """``seat``'s view of a recorded game after each of its moves (0 to all), for a
    replay stepped backwards and forwards: one pass, each view what the seat saw then
    (its moves left out: a replay is watched, not played)."""
    from catzoo.play.table import Table

    table = Table.from_log(dict(log, actions=[]), seats, names)
    out = []
    for action in [None, *log["actions"]]:
        if action is not None:
            table.apply(action)
        view = table.view(seat)
        view["moves"] = []
        out.append(view)
    return out


def save_replay(path, replay_or_state, seats: list[str] | None = None) -> Replay:
    """Write a replay of ``replay_or_state`` (a ``Replay``, an engine state or an action log
    dict such as ``MatchResult.log``) to ``path``; returns the ``Replay``."""
    replay = _as_replay(replay_or_state, seats)
    with open(path, "w", encoding="utf-8") as f:
        f.write(replay.to_json())
    return replay


def _as_replay(value, seats) -> Replay:
    if isinstance(value, Replay):
        return value
    if isinstance(value, dict):
        state = get_game(value["game"]).engine_class().replay(value)
        return Replay.from_state(state, seats)
    return Replay.from_state(value, seats)


def load_replay(path) -> Replay:
    """The replay in file ``path``; its size is bounded before it is read."""
    data = safe_json.load_file(path, limit=MAX_REPLAY_BYTES, source=f"replay {path}",
                               error=ReplayError)
    return _from_data(data, str(path))


def parse_replay(text: str | bytes, source: str = "replay") -> Replay:
    return _from_data(safe_json.loads(text, limit=MAX_REPLAY_BYTES, source=source,
                                      error=ReplayError), source)


def _from_data(data, source: str) -> Replay:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ReplayError(f"{source} is not a CatZoo replay (no \"format\": \"{FORMAT}\")")
    if data.get("version") != VERSION:
        raise ReplayError(f"{source}: replay version {data.get('version')!r} is not supported "
                          f"(this CatZoo reads version {VERSION})")
    log = data.get("log")
    if not isinstance(log, dict) or not isinstance(log.get("actions"), list):
        raise ReplayError(f"{source}: the replay has no action log")
    try:
        get_game(str(log.get("game")))
    except UnknownGameError as err:
        raise ReplayError(f"{source}: {err}") from None
    seats = data.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise ReplayError(f"{source}: \"seats\" must be a list of names")
    result = data.get("result")
    if result is not None and not isinstance(result, dict):
        raise ReplayError(f"{source}: \"result\" must be an object (scores, winners) or null")
    replay = Replay(log, seats, result)
    try:
        state = replay.state()
    except ReplayError as err:
        raise ReplayError(f"{source}: {err}") from None
    if len(seats) != state.num_players:
        raise ReplayError(f"{source}: \"seats\" names {len(seats)} players; the game has "
                          f"{state.num_players}")
    if (replay.result is not None and state.is_terminal()
            and _plain(state.scores()) != replay.result.get("scores")):
            raise ReplayError(f"{source}: the log replays to scores {_plain(state.scores())}, "
                              f"not the recorded {replay.result.get('scores')}")
    return replay


def _plain(values) -> list:
    out = []
    for v in values:
        v = float(v)
        out.append(int(v) if v.is_integer() else v)
    return out
