"""Physics scenarios of Cats Knocking Things Off Ledges (MuJoCo, dexterity 0).

Each scenario pins the platform cards drawn (``chance``) and plays with no noise, so its
outcome is exact on one machine; the assertions are the rules' consequences (stands,
falls, what goes back to the supply, what scores), not raw coordinates.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from catzoo.games.ledges import LedgesState
from catzoo.games.ledges import geometry as G
from catzoo.games.ledges import physics as P
from catzoo.games.ledges.state import (
    BAT,
    BUILD,
    CAT,
    CAT0,
    KINDS,
    PILLAR0,
    STOP,
    TOY0,
    bat_action,
    cat_action,
    toy_action,
)
from tests.ledges_scenarios import (
    FISH,
    MOUSE,
    PUSH,
    RECT_SS,
    RECT_TT,
    ROUND_SHORT,
    ROUND_TALL,
    SWIPE,
    TAP,
    WEST,
    WHACK,
    YARN,
    exact,
    on_platform,
    on_table,
    pass_turn,
)


def tower_with_landing(**options):
    """Start platform #0 (level 1) in the middle, #1 on two tall pillars on it (level 3),
    and #2, a fish-icon rectangle on two short pillars on the table 12 cm west (level 1).
    Player 1 is to place a cat."""
    s = exact([0, 1, 2], **options)
    s.apply(on_platform(0, 4, RECT_TT))
    pass_turn(s)
    s.apply(on_table(0, 3, RECT_SS))
    assert s.build_order == [0, 1, 2] and s.phase == CAT
    assert [s.plat_level[c] for c in (0, 1, 2)] == [1, 3, 1]
    return s


def test_well_built_tower_stands_five_seconds():
    s = exact([0, 1, 9])
    s.apply(on_platform(0, 4, RECT_TT))
    pass_turn(s)
    s.apply(on_platform(1, 4, ROUND_TALL))
    assert s.phase == CAT and s.build_order == [0, 1, 9] and s.plat_level[9] == 5
    s.apply(cat_action(9))
    s.apply(toy_action(YARN, 0))
    assert s.phase == BAT
    idx = np.flatnonzero(s.onboard)
    kinds = tuple(KINDS[i] for i in idx)
    out, t, fell = P.simulate(kinds, s.pose[idx], max_time=5.0, until_rest=False)
    assert t == pytest.approx(5.0) and not fell
    moved = np.linalg.norm(out[:, :3] - s.pose[idx, :3], axis=1)
    assert moved.max() < 0.002
    tilt = np.degrees(G.tilt_of(G.rotations(out[:, 3:])))
    assert tilt.max() < 1.0


def test_pillar_at_a_platform_edge_topples_it():
    s = exact([0, 8, 9])
    s.apply(on_platform(0, 4, ROUND_SHORT))  # round #8 on the middle
    assert s.phase == CAT
    pass_turn(s)
    # Player 1 stands a short pillar on the rim of #8 (anchor 5: 2.2 cm out, -x): it tips.
    s.apply(on_platform(8, 5, ROUND_SHORT))
    assert s.last_turn == {"player": 1, "points": 0, "reason": "the tower fell while building"}
    assert s.current_player == 0 and s.phase == BUILD
    # #8 and #9 with their pillars are back in the supply; #0 on its two pillars stands.
    assert s.build_order == [0]
    assert not s.onboard[[8, 9]].any()
    legs = [PILLAR0 + p for p in s.plat_pillars[0]]
    assert s.onboard[legs].all() and s.onboard[PILLAR0:PILLAR0 + 24].sum() == 2
    assert s.supply() == (7, 8, 10, 12)
    assert s.total_scores == [0, 0]


def test_fully_fallen_tower_is_set_up_again():
    s = exact([0, 8, 9, 5])
    s.apply(on_platform(0, 4, ROUND_SHORT))
    pass_turn(s)
    s.apply(on_platform(8, 3, ROUND_SHORT))  # +y rim: everything falls
    assert s.last_turn["points"] == 0 and "fell" in s.last_turn["reason"]
    # [S] redo setup step 1: a rectangular card (the next drawn: #5) on 2 short pillars.
    assert s.build_order == [5]
    assert [G.pillar_size(p) for p in s.plat_pillars[5]] == [G.SHORT, G.SHORT]
    assert np.hypot(*s.pose[5, :2]) < 0.005 and s.plat_level[5] == 1
    assert s.supply() == (7, 8, 10, 12)


@pytest.mark.parametrize("toy, points", [(FISH, 3), (MOUSE, 2)])
def test_toy_batted_off_a_high_platform_scores_the_drop(toy, points):
    s = tower_with_landing()
    s.apply(cat_action(1))
    s.apply(toy_action(toy, 2))  # beside the cat on its west side, facing #2
    assert s.phase == BAT
    s.apply(bat_action(WEST, SWIPE))
    piece = TOY0 + 4 * 1 + toy
    assert s.onboard[piece] and s.support[piece] == 2
    # level 3 -> level 1: two pillar lengths; +1 on the fish icon of #2.
    assert s.last_turn["player"] == 1 and s.last_turn["points"] == points
    assert s.total_scores == [0, points]


def test_toy_landing_on_the_table_scores_zero():
    s = tower_with_landing()
    s.apply(cat_action(1))
    s.apply(toy_action(FISH, 2))
    s.apply(bat_action(WEST, WHACK))  # over the landing platform
    assert s.last_turn == {"player": 1, "points": 0, "reason": "the toy landed on the table"}
    assert not s.onboard[TOY0 + 4 + FISH]  # back in its owner's hand
    assert s.onboard[CAT0 + 1] and s.support[CAT0 + 1] == 1


def test_a_bat_short_of_the_edge_allows_more_bats_then_stop():
    s = tower_with_landing()
    s.apply(cat_action(1))
    s.apply(toy_action(FISH, 0))  # east of the cat: the cat is in the way west
    assert not s.is_legal(STOP)  # [D] no stopping before the first bat
    s.apply(bat_action(WEST, TAP))
    assert s.phase == BAT and s.bats_used == 1 and s.is_legal(STOP)
    s.apply(STOP)
    assert s.last_turn["points"] == 0 and s.current_player == 0


def test_simulation_is_deterministic_and_clones_copy_the_physics():
    s = tower_with_landing()
    s.apply(cat_action(1))
    s.apply(toy_action(FISH, 2))
    a, b = s.clone(), s.clone()
    a.apply(bat_action(WEST, PUSH))
    b.apply(bat_action(WEST, PUSH))
    np.testing.assert_array_equal(a.pose, b.pose)
    assert a.total_scores == b.total_scores
    # the clone's physics is its own: the original is untouched
    assert s.phase == BAT and s.bats_used == 0


def test_noise_moves_placements_by_a_few_millimetres():
    clean = LedgesState.new(seed=3, num_players=2, dexterity=0.0, chance=[0, 8])
    noisy = LedgesState.new(seed=3, num_players=2, dexterity=1.0, chance=[0, 8])
    for s in (clean, noisy):
        s.apply(on_platform(0, 4, ROUND_TALL))
    offset = np.linalg.norm(noisy.pose[8, :2] - clean.pose[8, :2])
    assert 0 < offset < 0.01
    assert len(noisy.chance) > len(clean.chance)  # the noise draws are recorded
