"""ppo.zero_sum: each seat learns its reward minus the others' mean, by hand-worked cases,
over random arrays, in the warm start's returns and in the batched trainer's rollout."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

pytest.importorskip("torch")

from catzoo.training import config as config_mod
from catzoo.training import imitation, ppo
from catzoo.training.rewards import zero_sum

ROOT = Path(__file__).resolve().parent.parent


def test_each_seat_gets_its_margin_over_the_others_mean():
    # 3 players: seat 0 scored 6, seat 2 scored 3; the others' means are 1.5, 4.5 and 3.
    np.testing.assert_allclose(zero_sum(np.array([6.0, 0.0, 3.0])), [4.5, -4.5, 0.0])
    # 4 players in two teams, partners sharing a score: 2/3 of the team margin each.
    np.testing.assert_allclose(zero_sum(np.array([2.0, 0.0, 2.0, 0.0])),
                               [4 / 3, -4 / 3, 4 / 3, -4 / 3])
    # Heads-up it is the difference of the two scores.
    np.testing.assert_allclose(zero_sum(np.array([[5.0, 1.0]])), [[4.0, -4.0]])


@settings(max_examples=50, deadline=None)
@given(arrays(np.float32, st.tuples(st.integers(1, 4), st.integers(2, 5)),
              elements=st.floats(-100, 100, width=32)))
def test_zero_sum_rewards_sum_to_zero_and_keep_every_gap(r):
    z = zero_sum(r)
    assert z.dtype == r.dtype and z.shape == r.shape
    np.testing.assert_allclose(z.sum(-1), 0.0, atol=1e-3)
    # Seats' order between each other is unchanged: a transform of the margins only.
    p = r.shape[-1]
    np.testing.assert_allclose(z[:, :, None] - z[:, None, :],
                               (r[:, :, None] - r[:, None, :]) * p / (p - 1), atol=1e-2)


def test_the_warm_start_critic_learns_the_margins_when_zero_sum_is_on():
    base = ["env.num_players=3", "imitation.games=2", "ppo.gamma=1.0", "ppo.reward_scale=1"]
    path = ROOT / "configs" / "catsle_builders.yaml"
    plain = imitation.generate(config_mod.load(path, [*base, "ppo.zero_sum=false"]), 2, seed=5)
    margin = imitation.generate(config_mod.load(path, [*base, "ppo.zero_sum=true"]), 2, seed=5)
    np.testing.assert_array_equal(plain.actions, margin.actions)  # the same games
    for g in range(2):
        # Every seat decides before the first round is scored, so with gamma 1 a seat's
        # first return is its final score here and its final margin there.
        first = [np.flatnonzero((plain.game_index == g) & (plain.seat == s))[0] for s in range(3)]
        scores = plain.returns[first]
        assert scores.min() >= 0 and scores.max() > 0
        np.testing.assert_allclose(margin.returns[first], zero_sum(scores), atol=1e-4)


@pytest.mark.parametrize("on", [False, True])
def test_the_batched_trainer_learns_the_transformed_rewards_only_when_asked(tmp_path,
                                                                            monkeypatch, on):
    calls: list[tuple] = []

    def spy(rewards):
        calls.append(rewards.shape)
        return zero_sum(rewards)

    monkeypatch.setattr(ppo, "zero_sum", spy)
    config = config_mod.load(ROOT / "configs" / "catsle_builders.yaml", [
        "env.num_players=3", "network.hidden=[16]", "vector.num_envs=8", "vector.threads=1",
        "torch_threads=1", "ppo.rollout_steps=4", "ppo.n_epochs=1", "ppo.num_minibatches=1",
        "total_steps=64", "eval.games=0", "imitation.games=0", f"ppo.zero_sum={str(on).lower()}"])
    path = ppo.train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    assert bool(calls) == on
    assert json.loads((path / "policy.json").read_text())["zero_sum"] is on
    assert all(shape == (8, 3) for shape in calls)


def test_zero_sum_must_be_a_boolean():
    with pytest.raises(config_mod.ConfigError, match="ppo.zero_sum"):
        config_mod.load(ROOT / "configs" / "lunar.yaml", ["ppo.zero_sum=1"])


def test_zero_sum_is_refused_where_every_seat_is_one_team():
    with pytest.raises(config_mod.ConfigError, match="ppo.zero_sum=true in a game where every"):
        config_mod.load(ROOT / "configs" / "cat_tree.yaml", ["ppo.zero_sum=true"])
