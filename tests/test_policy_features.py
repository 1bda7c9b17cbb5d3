"""Input features (catzoo.policies.features): what the CATsle Builders set holds, and a
policy that reads them loads, plays and refuses bad checkpoints like any other."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from catzoo import vector
from catzoo.games.catsle_builders import CatsleBuildersState
from catzoo.policies import features
from catzoo.policies.heuristics.catsle_builders import CatsleBuildersHeuristic
from catzoo.training import CheckpointError, load_policy, save_policy
from catzoo.training import config as config_mod
from catzoo.training.policy_net import expected_shapes

ROOT = Path(__file__).resolve().parent.parent
SET = "catsle_heuristic"


def batch(n, steps=40, envs=32):
    """(observations, masks) of the acting players over some random-ish play."""
    bot = CatsleBuildersHeuristic(n, seed=0)
    vg = vector.make("catsle_builders", num_envs=envs, num_players=n, seed=9, threads=1)
    rng = np.random.default_rng(1)
    obs, mask, _ = vg.reset()
    out_obs, out_mask = [], []
    try:
        for _ in range(steps):
            out_obs.append(obs.copy())
            out_mask.append(mask.copy())
            noise = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, _, _, _ = vg.step(np.where(rng.random(envs) < 0.3, noise,
                                                  bot.act_batch(obs, mask)))
    finally:
        vg.close()
    return np.concatenate(out_obs), np.concatenate(out_mask)


@pytest.mark.parametrize("n", [3, 5])
def test_the_flag_marks_the_heuristics_move_and_only_playable_cards_carry_estimates(n):
    obs, mask = batch(n)
    x = features.augment(SET, obs, mask, n)
    assert x.shape == (obs.shape[0], obs.shape[1] + features.width(SET, n))
    np.testing.assert_array_equal(x[:, :obs.shape[1]], obs)
    extra = x[:, obs.shape[1]:]
    play, flag, beat = extra[:, :60], extra[:, 60:120], extra[:, 120:180]
    playing = mask[:, :60].any(axis=1)
    assert playing.any() and (~playing).any()
    # The heuristic's move is flagged (several cards when they tie).
    moves = CatsleBuildersHeuristic(n, seed=0).act_batch(obs[playing], mask[playing])
    assert flag[playing][np.arange(moves.size), moves].all()
    assert not flag[~playing].any() and not play[~playing].any()
    assert not (flag[playing] * (mask[playing, :60] == 0)).any()
    hand = CatsleBuildersHeuristic(n).layout.decode(obs)["hand"] > 0
    assert not beat[~hand].any() and (beat >= 0).all() and (beat <= 1).all()


def test_a_viewer_not_to_act_gets_no_play_estimates():
    obs, mask = batch(4, steps=10)
    x = features.augment(SET, obs, np.zeros_like(mask), 4)[:, obs.shape[1]:]
    assert not x[:, :120].any() and x[:, 180:].any()


@pytest.mark.parametrize("game, value, message", [
    ("catsle_builders", "telepathy", "unknown feature set 'telepathy'"),
    ("cat_in_the_box", SET, "is for catsle_builders, not cat_in_the_box"),
])
def test_a_config_with_an_unknown_or_foreign_feature_set_is_refused(game, value, message):
    with pytest.raises(config_mod.ConfigError, match=message):
        config_mod.load(ROOT / "configs" / f"{game}.yaml", [f"network.features={value}"])


def make_checkpoint(path, feature_set=SET, n=4, width=None):
    probe = CatsleBuildersState.new(num_players=n)
    size = probe.observation_size + (features.width(SET, n) if width is None else width)
    rng = np.random.default_rng(0)
    weights = {k: rng.normal(scale=0.3, size=s).astype(np.float32)
               for k, s in expected_shapes(size, probe.num_actions, [16]).items()}
    meta = {"game": "catsle_builders", "env_version": CatsleBuildersState.env_version,
            "num_players": n, "env_options": {}, "reward": "score",
            "observation_size": probe.observation_size, "num_actions": probe.num_actions,
            "architecture": {"type": "mlp", "hidden": [16], "activation": "tanh"},
            "features": feature_set, "steps": 0, "seeds": {"seed": 0}, "eval": {}}
    return save_policy(path, weights, meta), weights


def test_a_policy_with_features_plays_from_the_plain_observation(tmp_path):
    path, w = make_checkpoint(tmp_path / "p")
    policy = load_policy(path, game="catsle_builders", num_players=4)
    state = CatsleBuildersState.new(num_players=4, seed=3)
    for _ in range(60):
        p = state.current_player
        o = {"observation": state.observation(p), "action_mask": state.legal_mask()}
        x = features.augment(SET, o["observation"][None], o["action_mask"][None], 4)[0]
        logits = w["action.weight"] @ np.tanh(w["pi.0.weight"] @ x + w["pi.0.bias"]) + w["action.bias"]
        legal = np.flatnonzero(o["action_mask"])
        action = policy.act(o)
        assert action == legal[np.argmax(logits[legal])]
        state.apply(action)


def test_a_checkpoint_naming_an_unknown_set_or_sized_without_it_is_refused(tmp_path):
    path, _ = make_checkpoint(tmp_path / "forged", feature_set="__import__('os')")
    with pytest.raises(CheckpointError, match="field 'features': unknown feature set"):
        load_policy(path)
    path, _ = make_checkpoint(tmp_path / "plain", width=0)  # weights for the bare observation
    with pytest.raises(CheckpointError, match="holds tensors|has shape"):
        load_policy(path)


def test_the_trainer_feeds_the_features_to_its_network_and_the_bare_observation_to_bots(
        tmp_path, monkeypatch):
    """A short CATsle Builders run against the heuristic only: every heuristic batch is
    the env's observation, the warm start's inputs and the policy's carry the features,
    and policy.json records them."""
    import json

    from catzoo.training import imitation
    from catzoo.training.ppo import train
    from tests.test_training_ppo import TINY, quiet

    env_size = CatsleBuildersState.new(num_players=3).observation_size
    sizes = set()
    plain_act_batch = CatsleBuildersHeuristic.act_batch

    def spy(self, observations, masks):
        sizes.add(observations.shape[1])
        return plain_act_batch(self, observations, masks)

    monkeypatch.setattr(CatsleBuildersHeuristic, "act_batch", spy)
    config = config_mod.load(ROOT / "configs" / "catsle_builders.yaml", [
        *TINY, "env.num_players=3", "total_steps=300", "eval.games=0", "league.self_play=0",
        "league.mix={league: 0, heuristic: 1, random: 0}", "imitation.games=4"])
    assert config["network"]["features"] == SET
    demos = imitation.generate(config, 2, seed=0)
    assert demos.obs.shape[1] == env_size + features.width(SET, 3)
    path = train(config, tmp_path / "run", progress=False, log=quiet)
    assert sizes == {env_size}
    meta = json.loads((path / "policy.json").read_text())
    assert meta["features"] == SET and meta["observation_size"] == env_size
    policy = load_policy(path)
    assert policy.input_size == env_size + features.width(SET, 3)
