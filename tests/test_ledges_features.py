"""The observation's ``options`` block of Cats Knocking Things Off Ledges: the point-mass
model's per-option aiming features (games/ledges/features.py). A named scenario checks that
the predicted-best cat, toy and bat are the ones that score, and random play that the
features stay in bounds and appear only in their phase.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("mujoco")

from catzoo.envs import ledges_v0
from catzoo.games.ledges import LedgesState
from catzoo.games.ledges import features as F
from catzoo.games.ledges.layout import (
    BAT_OPTIONS,
    CAT_OPTIONS,
    OPTION_FEATURES,
    TOY_OPTIONS,
    layout_for,
)
from catzoo.games.ledges.state import (
    BAT,
    CAT,
    CAT_BASE,
    STOP,
    TOY,
    TOY_BASE,
    bat_action,
    cat_action,
    toy_action,
)
from tests.test_ledges_physics import FISH, SWIPE, WEST, tower_with_landing


def options(state, player=None):
    player = state.current_player if player is None else player
    return layout_for(state.num_players, True).decode(state.observation(player))["options"]


def test_layout_sizes_and_docstring():
    assert OPTION_FEATURES == BAT_OPTIONS + TOY_OPTIONS + CAT_OPTIONS == 192
    for n, size in ((2, 492), (3, 594), (4, 696)):
        assert layout_for(n).obs_size == size
        assert layout_for(n, True).obs_size == size + OPTION_FEATURES
        assert f"{n}: {size}" in ledges_v0.__doc__
    assert layout_for(4, True).describe() in ledges_v0.__doc__


def test_aim_features_are_opt_in():
    plain = ledges_v0.env(num_players=2)
    aimed = ledges_v0.env(num_players=2, aim_features=True)
    assert plain.observation_space("player_0")["observation"].shape == (492,)
    assert aimed.observation_space("player_0")["observation"].shape == (684,)
    with pytest.raises(Exception, match="aim_features"):
        ledges_v0.env(num_players=2, aim_features="yes")


def test_aim_features_change_nothing_but_the_observation():
    """The same seeded game between heuristic bots, with and without the features: the
    same moves and scores (computing the features draws nothing from the game's chance)."""
    from catzoo.policies.heuristics.ledges import LedgesHeuristic

    def play(aim):
        env = ledges_v0.env(num_players=2, max_rounds=2, aim_features=aim)
        env.reset(seed=3)
        bots = [LedgesHeuristic(2, seed=1), LedgesHeuristic(2, seed=2)]
        moves = []
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            move = None if terminated or truncated else bots[int(agent[-1])].act(obs)
            moves.append(move)
            env.step(move)
        return moves, env.unwrapped.game.scores()

    plain, aimed = play(False), play(True)
    assert len(plain[0]) > 10 and plain == aimed


def test_named_scenario_best_cat_toy_and_bat_score_the_drop():
    """#1 (level 3) in the middle, #2 (fish icon, level 1) 12 cm west: the model's best
    platform for the cat is #1, its best toy the fish, its best bat west, and that bat
    (no dexterity noise) scores 2 pillar lengths + 1 for the icon."""
    s = tower_with_landing(aim_features=True)
    assert s.phase == CAT
    cat = options(s)[BAT_OPTIONS + TOY_OPTIONS:].reshape(16, 2)
    assert np.array_equal(cat, F.cat_features(s).astype(np.float32))
    assert int(np.argmax(cat[:, 0])) == 1 and cat[1, 1] == 0.0
    assert cat[1, 0] == pytest.approx(3 / 5)  # 3 points expected
    assert (cat[[0, 2], 0] == 0).all() and (cat[[0, 2], 1] < 0).all()  # no lower platform in reach
    s.apply(cat_action(1))
    assert s.phase == TOY
    toy = options(s)[BAT_OPTIONS:BAT_OPTIONS + TOY_OPTIONS].reshape(4, 4, 2)  # toy, side, feature
    best_toy, best_side = divmod(int(np.argmax(toy[:, :, 0])), 4)
    assert best_toy == FISH and toy[FISH, best_side, 0] == pytest.approx(3 / 5)
    assert toy[FISH, :, 0].max() > toy[[0, 1, 3], :, 0].max()  # the icon's +1
    assert (toy[..., 1] <= 0).all() and toy[..., 1].max() == 0.0
    s.apply(toy_action(FISH, 2))  # west of the cat, facing #2
    assert s.phase == BAT
    bats = options(s)[:BAT_OPTIONS].reshape(32, 4)
    expected, regret, stays, blocked = bats.T
    best = int(np.argmax(expected))
    assert divmod(best, 4)[0] == WEST and expected[best] == pytest.approx(3 / 5)
    assert expected[WEST * 4 + SWIPE] == pytest.approx(3 / 5)
    assert regret[best] == 0.0 and (regret <= 0).all()
    assert stays[WEST * 4 + 0] == 1.0  # a tap stops on the platform
    assert blocked[0] == 1.0  # east: the cat stands in the way
    s.apply(bat_action(*divmod(best, 4)))
    assert s.last_turn == {"player": 1, "points": 3,
                           "reason": "the toy fell 2 pillar length(s) onto platform 2 with its icon"}


@pytest.mark.parametrize("players", [2, 3])
def test_features_stay_in_bounds_and_in_their_phase(players):
    s = LedgesState.new(seed=5, num_players=players, max_rounds=3, aim_features=True)
    rng = random.Random(7)
    seen = set()
    while not s.is_terminal():
        p = s.current_player
        opts = options(s)
        assert np.isfinite(opts).all()
        bats = opts[:BAT_OPTIONS].reshape(32, 4)
        toys = opts[BAT_OPTIONS:BAT_OPTIONS + TOY_OPTIONS].reshape(16, 2)
        cats = opts[BAT_OPTIONS + TOY_OPTIONS:].reshape(16, 2)
        mask = s.legal_mask().astype(bool)
        assert (opts <= 6 / 5).all() and (opts >= -6 / 5).all()
        if s.phase != BAT:
            assert not bats.any()
        else:
            seen.add(BAT)
            assert (bats[:, 0] >= 0).all() and (bats[:, 1] <= 0).all() and bats[:, 1].max() == 0
            assert ((bats[:, 2] >= 0) & (bats[:, 2] <= 1)).all()
            assert set(np.unique(bats[:, 3])) <= {0.0, 1.0}
            assert (bats[bats[:, 3] == 1, 0] == 0).all()  # a blocked bat expects nothing
        for phase, block, base in ((TOY, toys, TOY_BASE), (CAT, cats, CAT_BASE)):
            if s.phase != phase:
                assert not block.any()
            else:
                seen.add(phase)
                legal = mask[base:base + 16]
                assert (block[~legal, 0] == 0).all() and block[legal, 1].max() == 0
        for q in range(players):
            if q != p:  # the block is public: every seat sees the same values
                assert np.array_equal(options(s, q), opts)
        s.apply(rng.choice(s.legal_actions()))
    assert seen == {CAT, TOY, BAT}
    assert not options(s, 0).any()


def test_a_bat_predicted_to_stay_keeps_the_toy_on_its_platform():
    s = tower_with_landing(aim_features=True)
    s.apply(cat_action(1))
    s.apply(toy_action(FISH, 2))
    bats = options(s)[:BAT_OPTIONS].reshape(32, 4)
    assert bats[WEST * 4 + 0, 2] == 1.0
    s.apply(bat_action(WEST, 0))
    assert s.phase == BAT and s.is_legal(STOP) and s.bats_used == 1
    assert options(s)[:BAT_OPTIONS].reshape(32, 4)[:, 0].max() > 0


def test_observation_as_makes_either_encoding_from_any_state():
    """A state played without the features encodes the observation an env with them
    would show (and back), value for value, all along random games."""
    phases = set()
    for seed in range(4):
        plain = LedgesState.new(seed=seed, num_players=2, max_rounds=2)
        aimed = LedgesState.new(seed=seed, num_players=2, max_rounds=2, aim_features=True)
        rng = random.Random(seed)
        while True:
            for p in range(2):
                assert np.array_equal(plain.observation_as(p, aimed.options), aimed.observation(p))
                assert np.array_equal(aimed.observation_as(p, plain.options), plain.observation(p))
                assert np.array_equal(aimed.observation_as(p, aimed.options), aimed.observation(p))
            if plain.is_terminal():
                break
            phases.add(plain.phase)
            action = rng.choice(plain.legal_actions())
            plain.apply(action)
            aimed.apply(action)
    assert phases >= {CAT, TOY, BAT}


def test_observation_as_refuses_options_that_change_the_game():
    s = LedgesState.new(seed=1, num_players=2)
    other = LedgesState.new(seed=1, num_players=2, max_rounds=2, aim_features=True).options
    with pytest.raises(ValueError, match="max_rounds=2 wanted"):
        s.observation_as(0, other)
