"""Replay files: saved, loaded and saved again byte for byte; the log rebuilds the game."""

from __future__ import annotations

import json

import pytest

from catzoo.games.registry import GAMES
from catzoo.play import Table, load_replay, save_replay
from catzoo.play.replay import ReplayError, parse_replay
from catzoo.policies.match import play_match
from catzoo.policies.registry import make_policy

SHORT = {name: dict(info.quick_options) for name, info in GAMES.items()}  # the records'


@pytest.mark.parametrize("game", list(GAMES))
def test_a_replay_round_trips_exactly(game, tmp_path):
    n = GAMES[game].default_players
    table = Table(game, ["random"] * n, seed=21, options=SHORT.get(game))
    table.play_bots()
    path = tmp_path / "r.json"
    saved = save_replay(path, table.replay())
    text = path.read_text()
    loaded = load_replay(path)
    assert loaded.to_json() == text
    assert loaded.log == json.loads(json.dumps(table.state.action_log()))
    again = tmp_path / "again.json"
    save_replay(again, loaded)
    assert again.read_bytes() == path.read_bytes()
    state = loaded.state()
    assert state.is_terminal() and state.scores() == table.state.scores()
    assert loaded.result == {"scores": saved.result["scores"], "winners": table.state.winners()}
    steps = list(loaded.states())
    assert len(steps) == len(loaded.log["actions"]) + 1 and steps[-1][1] is None
    assert steps[-1][0].scores() == table.state.scores()


def test_an_arena_match_log_saves_as_a_replay(tmp_path):
    policies = [make_policy("heuristic", "lunar", 2, seed=i) for i in range(2)]
    result = play_match("lunar", policies, seed=4, rounds="single")
    path = tmp_path / "m.json"
    save_replay(path, result.log, seats=["heuristic", "heuristic"])
    loaded = load_replay(path)
    assert loaded.result["scores"] == result.scores and loaded.seats == ["heuristic"] * 2


def tampered(path, change) -> str:
    data = json.loads(path.read_text())
    change(data)
    return json.dumps(data)


def test_broken_replays_are_refused_with_the_reason(tmp_path):
    table = Table("cat_tree", ["random", "random"], seed=3, options={"turns": 2})
    table.play_bots()
    path = tmp_path / "r.json"
    save_replay(path, table.replay())
    cases = [
        ("{nope", "is not JSON"),
        ("[1, 2]", "is not a CatZoo replay"),
        (tampered(path, lambda d: d.update(version=99)), "replay version 99 is not supported"),
        (tampered(path, lambda d: d["log"].update(game="chess")), "unknown game 'chess'"),
        (tampered(path, lambda d: d.pop("log")), "has no action log"),
        (tampered(path, lambda d: d["log"]["actions"].__setitem__(0, 9999)), "does not replay"),
        (tampered(path, lambda d: d["result"]["scores"].__setitem__(0, 12345)), "not the recorded"),
        (tampered(path, lambda d: d.update(seats="me")), "must be a list of names"),
    ]
    for text, message in cases:
        with pytest.raises(ReplayError, match=message):
            parse_replay(text, "r.json")
