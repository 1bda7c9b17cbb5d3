"""Property tests of Cats Knocking Things Off Ledges over random legal games, and the env
(PettingZoo api/seed/render tests, rewards, rgb rendering). Few, short games: every step
runs MuJoCo."""

from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("mujoco")

from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.envs import ledges_v0
from catzoo.games.ledges import LedgesState
from catzoo.games.ledges.state import (
    BAT,
    BAT_BASE,
    BUILD,
    CAT,
    CAT_BASE,
    NUM_BUILD,
    PILLAR0,
    STOP,
    TOY,
    TOY_BASE,
)
from catzoo.policies.heuristics.ledges import LedgesHeuristic
from catzoo.policies.random_policy import RandomPolicy
from tests.helpers import assert_replays, pettingzoo_conformance, play_env_randomly

PHASE_ACTIONS = {BUILD: (0, NUM_BUILD), CAT: (CAT_BASE, TOY_BASE), TOY: (TOY_BASE, BAT_BASE),
                 BAT: (BAT_BASE, STOP + 1)}


def check_invariants(s: LedgesState) -> None:
    legal = s.legal_actions()
    assert np.flatnonzero(s.legal_mask()).tolist() == legal
    if not s.is_terminal():
        lo, hi = PHASE_ACTIONS[s.phase]
        assert legal and all(lo <= a < hi for a in legal)
        assert (STOP in legal) == (s.phase == BAT and s.bats_used > 0)
    for p in range(s.num_players):
        obs = s.observation(p)
        assert obs.shape == (s.observation_size,) and obs.dtype == np.float32
        assert np.isfinite(obs).all() and np.abs(obs).max() <= 4.0
    # every piece is on the table or in the supply, never both or neither
    rect, rnd, short, tall = s.supply()
    on = s.onboard
    assert rect + on[0:8].sum() == 8 and rnd + on[8:16].sum() == 8
    assert short + on[16:28].sum() == 12 and tall + on[28:40].sum() == 12
    assert sorted(s.build_order) == np.flatnonzero(on[:16]).tolist()
    legs = sorted(PILLAR0 + p for c in s.build_order for p in s.plat_pillars[c])
    assert legs == (np.flatnonzero(on[16:40]) + 16).tolist()
    for c in s.build_order:
        assert len(s.plat_pillars[c]) == (2 if c < 8 else 1)
        assert s.plat_base[c] == -1 or s.plat_base[c] in s.build_order
    assert all(v >= 0 for v in s.scores())


@settings(max_examples=5, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), players=st.sampled_from([2, 3, 4]),
       dexterity=st.sampled_from([0.0, 1.0]))
def test_random_legal_games_keep_the_invariants(seed, players, dexterity):
    rng = random.Random(seed)
    s = LedgesState.new(seed=seed, num_players=players, dexterity=dexterity, max_rounds=1)
    last_scores = s.scores()
    clone_at = rng.randrange(6)
    step = 0
    while not s.is_terminal():
        check_invariants(s)
        action = rng.choice(s.legal_actions())
        if step == clone_at:
            twin = s.clone()
            twin.apply(action)
        s.apply(action)
        if step == clone_at:
            np.testing.assert_array_equal(twin.state_vector(), s.state_vector())
            assert twin.chance == s.chance
        scores = s.scores()
        assert all(a >= b for a, b in zip(scores, last_scores))
        last_scores = scores
        step += 1
    check_invariants(s)
    assert s.turns_done == players
    assert_replays(s)


def test_heuristic_beats_random():
    wins = 0
    for game in range(3):
        hseat = game % 2
        bots = [LedgesHeuristic(2, seed=game) if p == hseat else RandomPolicy(seed=game)
                for p in range(2)]
        s = LedgesState.new(seed=game, num_players=2, max_rounds=10)
        while not s.is_terminal():
            p = s.current_player
            s.apply(bots[p].act({"observation": s.observation(p), "action_mask": s.legal_mask()}))
        scores = s.scores()
        wins += scores[hseat] > scores[1 - hseat]
    assert wins == 3


def test_pettingzoo_conformance():
    pettingzoo_conformance(ledges_v0, num_cycles=12, num_players=2, max_rounds=2)


def test_rgb_array_render_is_an_image():
    env = ledges_v0.env(num_players=3, render_mode="rgb_array")
    blank = env.unwrapped.render()
    assert blank.shape == (400, 800, 3) and blank.dtype == np.uint8
    env.reset(seed=1)
    image = env.render()
    assert image.shape == (400, 800, 3) and image.dtype == np.uint8
    assert (image < 250).any()  # something is drawn


def test_dense_rewards_add_up_to_the_scores():
    env = ledges_v0.env(num_players=2, reward="score", max_rounds=3)
    total = play_env_randomly(env, seed=4)
    scores = env.unwrapped.game.scores()
    assert [total[a] for a in env.unwrapped.possible_agents] == pytest.approx(scores)


def test_standing_rewards_are_the_game_result():
    env = ledges_v0.env(num_players=3, max_rounds=1)
    total = play_env_randomly(env, seed=2)
    returns = env.unwrapped.game.returns()
    assert [total[a] for a in env.unwrapped.possible_agents] == pytest.approx(returns.tolist())
