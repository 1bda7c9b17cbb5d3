"""A move enters a table through one check, whose typed errors name what was wrong and
leave the game, its history and every seat's view as they were."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from catzoo.games.base import GameOverError, GameState, IllegalActionError, NotYourTurnError
from catzoo.play.table import BotError, Table


def snapshot(table: Table) -> str:
    return json.dumps([table.state.action_log(),
                       [table.view(seat) for seat in range(table.num_players)]], default=str)


@pytest.fixture
def table():
    return Table("cat_in_the_box", ["human", "human", "human"], seed=5)


def test_a_bad_move_raises_its_own_type_and_changes_nothing(table):
    p = table.to_act
    legal = table.legal()
    illegal = next(a for a in range(table.state.num_actions) if a not in legal)
    before = snapshot(table)
    for action, player, kind, message in [
        (legal[0], (p + 1) % 3, NotYourTurnError, f"it is not your turn (P{(p + 1) % 3})"),
        (illegal, None, IllegalActionError, f"action {illegal} ("),
        (illegal, p, IllegalActionError, f"is not legal for player {p}; legal actions: "),
        (table.state.num_actions, p, IllegalActionError, "out of range"),
        (-1, None, IllegalActionError, "out of range"),
        (str(legal[0]), p, IllegalActionError, "must be an integer"),
        (float(legal[0]), p, IllegalActionError, "must be an integer"),
        (True, p, IllegalActionError, "must be an integer"),
        (None, p, IllegalActionError, "must be an integer"),
    ]:
        with pytest.raises(kind, match=re.escape(message)) as info:
            table.apply(action, player=player)
        assert type(info.value) is kind, (action, player, info.value)
        assert snapshot(table) == before and table.events == []
    event = table.apply(np.int64(legal[0]), player=p)  # numpy integers are integers
    assert event.action == legal[0] and type(event.action) is int


def test_a_move_is_checked_once(table, monkeypatch):
    calls = []
    check = GameState.check_action

    def counted(state, action, player=None):
        calls.append(action)
        return check(state, action, player)

    monkeypatch.setattr(type(table.state), "check_action", counted)
    action = table.legal()[0]
    table.apply(action, player=table.to_act)
    assert calls == [action]


def test_a_finished_game_takes_no_move():
    table = Table("cat_tree", ["random", "random"], seed=2, options={"turns": 1})
    table.play_bots()
    assert table.over
    before = snapshot(table)
    for player in (None, 0):
        with pytest.raises(GameOverError, match="the game is over"):
            table.apply(0, player=player)
    assert snapshot(table) == before


def test_an_illegal_bot_move_is_the_bots_error_and_tells_no_hidden_card():
    table = Table("cat_in_the_box", ["random", "human", "human"], seed=5)
    assert table.bot_to_act()
    legal = table.legal()
    illegal = next(a for a in range(table.state.num_actions) if a not in legal)
    before = snapshot(table)
    with pytest.raises(BotError, match=f"chose move {illegal}, which is not legal") as info:
        table.apply_bot(illegal)
    assert "legal actions" not in str(info.value)  # the bot's legal moves are its hand
    assert snapshot(table) == before
    event = table.apply_bot(table.bot_action())
    assert event.player == 0 and table.to_act != 0
    with pytest.raises(RuntimeError, match="no bot is to act"):
        table.apply_bot(table.legal()[0])
