"""What a seat is shown (views and move history) reveals nothing hidden from it.

Checked against the engines' own notion of hidden information: in a world re-dealt by
``GameState.resample(seat)``, the seat must be shown exactly the same thing.
"""

from __future__ import annotations

import json
import random

import pytest

from catzoo.games.registry import GAMES
from catzoo.play import Table
from catzoo.play.secrecy import leak
from catzoo.play.views import for_game, moves

SHORT = {name: dict(info.quick_options) for name, info in GAMES.items()}  # the records'
# Ledges hides nothing and replays slowly (physics): one player count is enough there.
CASES = [(g, n) for g, info in GAMES.items() for n in info.players
         if g != "ledges" or n == info.default_players]


def played_log(game: str, n: int, seed: int) -> dict:
    table = Table(game, ["random"] * n, seed=seed, options=SHORT.get(game))
    table.play_bots()
    assert table.over
    return table.state.action_log()


def prefix(log: dict, t: int) -> dict:
    return dict(log, actions=log["actions"][:t])


@pytest.mark.parametrize(("game", "n"), CASES)
def test_views_hide_what_the_seat_cannot_see(game, n):
    log = played_log(game, n, seed=11)
    total = len(log["actions"])
    seats, names = ["human"] * n, [f"P{i}" for i in range(n)]
    rng = random.Random(5)
    turns = sorted({0, total, *(int(total * k / 7) for k in range(1, 7))})
    for t in turns:
        table = Table.from_log(prefix(log, t), seats, names)
        for seat in range(n):
            view = table.view(seat)
            json.dumps(view)  # plain JSON, nothing numpy
            assert (view["moves"] != []) == (table.to_act == seat)
            found = leak(view, table.state, seat, seats, names, rng, worlds=2)
            assert found is None, f"{game}: P{seat} at move {t} is shown a hidden fact: {found}"


def test_the_check_catches_a_view_showing_another_hand(monkeypatch):
    module = for_game("cat_in_the_box")
    honest = module.board

    def leaky(state, seat):
        out = honest(state, seat)
        out["spy"] = [list(row) for row in state.counts]
        return out

    monkeypatch.setattr(module, "board", leaky)
    table = Table("cat_in_the_box", ["random"] * 3, seed=2, options=SHORT["cat_in_the_box"])
    found = leak(table.view(0), table.state, 0, ["human"] * 3, ["a", "b", "c"],
                 random.Random(1), worlds=3)
    assert found is not None and "spy" in found


def test_hidden_moves_are_described_without_their_content():
    table = Table("cat_in_the_box", ["random"] * 3, seed=4)
    event = table.apply(table.bot_action())  # P0 sets a card aside, face down
    assert event.texts[0].startswith("set aside a ")
    assert event.texts[1] == event.texts[2] == "sets a card aside"
    tree = Table("cat_tree", ["random"] * 2, seed=4)
    keep = tree.apply(tree.bot_action())
    assert keep.texts[0].startswith("keep the ") and keep.texts[1] == "keeps one of their two cards"


@pytest.mark.parametrize("game", list(GAMES))
def test_moves_name_every_legal_action_once(game):
    info = GAMES[game]
    table = Table(game, ["random"] * info.default_players, seed=1, options=SHORT.get(game))
    for _ in range(5):
        listed = moves(table, table.to_act)
        assert sorted(m["action"] for m in listed) == table.legal()
        assert all(m["label"] for m in listed)
        assert moves(table, (table.to_act + 1) % table.num_players) == []
        table.apply(table.bot_action())
