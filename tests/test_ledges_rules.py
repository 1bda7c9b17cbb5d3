"""Rules of Cats Knocking Things Off Ledges: turn flow, final round, ties, supply, masks,
replay. Scenarios use dexterity 0 and pinned platform cards; the end-of-game logic is
driven through the engine's turn scoring (``_end_turn``) where physics is beside the point.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

pytest.importorskip("mujoco")

from catzoo.games.base import TERMINAL, IllegalActionError, OptionsError
from catzoo.games.ledges import LedgesState
from catzoo.games.ledges import geometry as G
from catzoo.games.ledges import state as S
from tests.helpers import assert_replays, random_playout
from tests.ledges_scenarios import (
    RECT_SS,
    ROUND_SHORT,
    ROUND_TALL,
    exact,
    on_platform,
    on_table,
    pass_turn,
)


def test_options_are_checked():
    for bad in ({"num_players": 5}, {"num_players": 1}, {"dexterity": -1}, {"max_bats": 0},
                {"winning_score": 0}, {"colour": "red"}):
        with pytest.raises(OptionsError):
            LedgesState.new(seed=0, **bad)


def test_setup_and_first_turn():
    s = exact()
    assert s.num_actions == S.NUM_ACTIONS == 3539
    assert s.current_player == 0 and s.phase == S.BUILD
    # [S] a random rectangular card on 2 short pillars in the centre.
    assert s.build_order == [0] and s.plat_level[0] == 1
    assert s.supply() == (7, 8, 10, 12)
    assert s.chance[0] == 0
    legal = s.legal_actions()
    assert legal and max(legal) < S.NUM_BUILD  # a turn starts with building
    with pytest.raises(IllegalActionError):
        s.apply(S.cat_action(0))


def test_a_build_takes_its_pieces_from_the_supply():
    s = exact()
    s.apply(on_platform(0, 4, ROUND_TALL))
    assert s.build_order == [0, 8] and s.plat_base[8] == 0 and s.plat_level[8] == 3
    assert s.supply() == (7, 7, 10, 11)
    assert s.phase == S.CAT


def test_touching_platforms_are_masked():
    s = exact()
    # the start platform spans x -5..5 cm at level 1
    assert not s.is_legal(on_table(4, 3, RECT_SS))  # overlaps it
    assert not s.is_legal(on_table(5, 3, ROUND_SHORT))  # touches its rim
    assert s.is_legal(on_table(5, 3, ROUND_TALL))  # one level higher: clear
    assert s.is_legal(on_table(6, 3, RECT_SS))  # 2 cm away
    # a pillar going through the start platform is not legal either
    assert not s.is_legal(on_table(4, 3, ROUND_TALL))
    # pillars must stand wholly on a platform: rectangular across a round's rim is out
    s.apply(on_platform(0, 4, ROUND_SHORT))
    pass_turn(s)
    assert not any(s.is_legal(on_platform(8, k, v))
                   for k in range(1, 9) for v in range(2, 18))


def test_mask_respects_the_supply(monkeypatch):
    s = exact()
    monkeypatch.setattr(LedgesState, "supply", lambda self: (0, 8, 0, 1))
    ok = s._available_variants()
    # only round cards, and a single tall pillar: round on a tall pillar only
    assert ok.tolist() == [False, True] + [False] * 16
    monkeypatch.setattr(LedgesState, "supply", lambda self: (1, 0, 1, 1))
    ok = s._available_variants()
    names = [(G.VARIANTS[v][0], G.VARIANTS[v][1]) for v in np.flatnonzero(ok)]
    assert set(names) == {(G.RECT, (G.SHORT, G.TALL)), (G.RECT, (G.TALL, G.SHORT))}


def test_build_is_skipped_when_the_supply_is_out(monkeypatch):
    s = exact()
    s.apply(on_platform(0, 4, ROUND_TALL))
    monkeypatch.setattr(LedgesState, "supply", lambda self: (0, 0, 0, 0))
    pass_turn(s)
    # [S] not enough pieces: player 1 goes straight to placing the cat
    assert s.current_player == 1 and s.phase == S.CAT
    assert all(S.CAT_BASE <= a < S.TOY_BASE for a in s.legal_actions())


def test_cat_masks_previous_and_occupied_platforms():
    s = exact()
    s.apply(on_platform(0, 4, ROUND_TALL))
    assert s.legal_actions() == [S.cat_action(0), S.cat_action(8)]
    s.apply(S.cat_action(8))
    assert s.phase == S.TOY
    s.apply(S.toy_action(0, 0))
    s.apply(S.bat_action(0, 0))
    if s.phase == S.BAT:
        s.apply(S.STOP)
    # player 1: the platform with player 0's cat is taken
    s.apply(on_table(0, 3, RECT_SS))
    assert s.phase == S.CAT
    assert S.cat_action(8) not in s.legal_actions()
    assert set(s.legal_actions()) == {S.cat_action(0), S.cat_action(9)}
    s.apply(S.cat_action(0))
    pass_turn(s)
    # player 0 again: not back to #8, the platform its cat is leaving; #0 has a cat
    s.apply(on_table(6, 3, RECT_SS))
    assert s.cat_left == 8
    assert s.legal_actions() == [S.cat_action(9), S.cat_action(10)]


def test_final_round_gives_every_other_player_one_turn():
    s = exact(players=3)
    s._end_turn(4, "test")
    assert s.final_left == -1
    s._end_turn(10, "test")  # player 1 reaches 10
    assert s.final_left == 2 and s.current_player == 2
    s._end_turn(3, "test")
    assert not s.is_terminal() and s.current_player == 0 and s.final_left == 1
    s._end_turn(12, "test")  # player 0's final turn: does not start another final round
    assert s.is_terminal() and s.current_player == TERMINAL
    assert s.scores() == [16, 10, 3] and s.winners() == [0]
    assert s.legal_actions() == [] and not s.legal_mask().any()
    np.testing.assert_allclose(s.returns(), [1.0, 0.0, -1.0])


def test_ties_share_the_victory():
    s = exact(players=2)
    s._end_turn(10, "test")
    s._end_turn(10, "test")
    assert s.is_terminal() and s.winners() == [0, 1]
    np.testing.assert_allclose(s.returns(), [0.0, 0.0])


def test_max_rounds_ends_the_game():
    s = exact(players=2, max_rounds=2)
    for _ in range(3):
        s._end_turn(0, "test")
    assert not s.is_terminal()
    s._end_turn(1, "test")
    assert s.is_terminal() and s.winners() == [1]


def test_random_game_replays_exactly_from_its_log():
    s = LedgesState.new(seed=11, num_players=3, max_rounds=2)
    random_playout(s, random.Random(3))
    assert s.is_terminal() and s.turns_done == 6
    assert_replays(s)
    log = json.loads(s.to_json())
    assert log["game"] == "ledges" and log["options"]["dexterity"] == 1.0
    # without the recorded chance, seed and actions alone replay it too
    again = LedgesState.new(seed=11, num_players=3, max_rounds=2)
    for a in s.history:
        again.apply(a)
    np.testing.assert_array_equal(again.pose, s.pose)
    assert again.scores() == s.scores()


def test_resample_gives_fresh_noise_and_still_replays():
    s = LedgesState.new(seed=5, num_players=2, max_rounds=2)
    rng = random.Random(0)
    for _ in range(3):
        s.apply(rng.choice(s.legal_actions()))
    r = s.resample(s.current_player, random.Random(9))
    np.testing.assert_array_equal(r.pose, s.pose)
    random_playout(r, random.Random(4))
    assert_replays(r)


def test_action_strings_and_render():
    s = exact()
    assert s.action_to_string(on_table(6, 3, RECT_SS)) == (
        "build rectangular on short+short on the table at (+12, +0) cm turned 0 deg")
    assert s.action_to_string(S.cat_action(3)) == "place cat on platform 3"
    assert s.action_to_string(S.toy_action(2, 1)) == "move toy fish beside the cat (+y)"
    assert s.action_to_string(S.bat_action(2, 3)) == "bat N (whack)"
    assert s.action_to_string(S.STOP) == "stop batting"
    text = s.render()
    assert "Round 1/20" in text and "#0" in text and "supply" in text
