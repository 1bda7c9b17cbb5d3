"""catzoo.integrations.sb3.vec_env: stable-baselines3's VecEnv over the batched engine.

MaskablePPO trains on it and its policy, exported, is a CatZoo checkpoint that plays the
model's moves; the VecEnv keeps SB3's conventions (autoreset with the terminal
observation, masks through env_method); ``trainer: sb3`` draws its games' opponents from
the league on it."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.vec_env import VecMonitor

from catzoo import vector
from catzoo.integrations.sb3 import export_policy, vec_env
from catzoo.training import load_policy

GAME = {"num_players": 2, "rounds": "single"}


def standing_of(policy, games: int, seed: int) -> np.ndarray:
    """``policy``'s final standing in each of ``games`` Cat in the Box games (2 players, one
    round) against random: one per sub-env, the deals and seats of ``seed``."""
    envs = vector.single_agent("cat_in_the_box", games, opponents=("random",), seed=seed, **GAME)
    obs, infos = envs.reset()
    out = np.full(games, np.nan)
    while np.isnan(out).any():
        obs, _, term, _, infos = envs.step(policy.act_batch(obs, infos["action_mask"]))
        first = term & np.isnan(out)
        if first.any():
            out[first] = infos["standing"][first]
    return out


def test_maskable_ppo_learns_on_vec_env_and_its_policy_is_a_catzoo_checkpoint(tmp_path):
    torch.manual_seed(0)
    torch.set_num_threads(1)
    env = VecMonitor(vec_env("cat_in_the_box", 64, opponents=("random",), seed=1, **GAME))
    assert is_masking_supported(env)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, n_epochs=4, seed=1,
                        device="cpu",
                        policy_kwargs={"net_arch": {"pi": [128, 128], "vf": [128, 128]}})
    before = standing_of(load_policy(str(export_policy(model, env, tmp_path / "before")),
                                     game="cat_in_the_box", num_players=2,
                                     env_options={"rounds": "single"}), 512, 41_000_000)
    model.learn(8192)
    path = export_policy(model, env, tmp_path / "after")
    policy = load_policy(str(path), game="cat_in_the_box", num_players=2,
                         env_options={"rounds": "single"})
    assert policy.meta["steps"] == model.num_timesteps >= 8192
    assert policy.meta["trainer"].startswith("stable-baselines3 MaskablePPO")
    # the checkpoint plays the model's own greedy moves
    obs = env.reset()
    masks = get_action_masks(env)
    mine, _ = model.predict(obs, action_masks=masks, deterministic=True)
    np.testing.assert_array_equal(policy.act_batch(obs, masks.astype(np.int8)), mine)
    after = standing_of(policy, 512, 41_000_000)
    # ahead of random (0 on average, two seats, zero-sum), and of where it started on the
    # same deals and seats, by three standard errors each: odds under 1 in 700 by chance
    gain = after - before
    for x in (after, gain):
        se = x.std(ddof=1) / np.sqrt(x.size)
        assert x.mean() > 3 * se, (x.mean(), se)
    env.close()


def test_a_game_that_ends_is_dealt_the_next_with_its_terminal_observation():
    kwargs = {"opponents": ("random",), "seed": 4, **GAME}
    sb3 = vec_env("cat_in_the_box", 4, **kwargs)
    gym = vector.single_agent("cat_in_the_box", 4, **kwargs)  # NEXT_STEP: the reference
    np.testing.assert_array_equal(sb3.reset(), gym.reset()[0])
    rng = np.random.default_rng(0)
    for _ in range(60):
        masks = np.stack(sb3.env_method("action_masks"))
        np.testing.assert_array_equal(masks, sb3.action_masks())
        actions = (rng.random(masks.shape) + masks).argmax(1)
        obs, rewards, dones, infos = sb3.step(actions)
        ref_obs, ref_rewards, ref_term, _, ref_infos = gym.step(actions)
        np.testing.assert_array_equal(rewards, ref_rewards)
        np.testing.assert_array_equal(dones, ref_term)
        for i in np.flatnonzero(dones):
            np.testing.assert_array_equal(infos[i]["terminal_observation"], ref_obs[i])
            assert infos[i]["learner_return"] == ref_infos["standing"][i]
            assert infos[i]["opponent"] == "random" and not infos[i]["TimeLimit.truncated"]
        if dones.any():  # the reference deals on its next step what SB3 returned now
            ref_obs, *_ = gym.step((rng.random(masks.shape) + sb3.action_masks()).argmax(1))
            for i in np.flatnonzero(dones):
                np.testing.assert_array_equal(obs[i], ref_obs[i])
            break
    else:
        pytest.fail("no game ended")


def test_the_vec_env_answers_sb3s_questions():
    env = vec_env("lunar", 3, num_players=2, opponents=("random",))
    assert env.has_attr("action_masks") and not env.has_attr("nonsense")
    assert env.get_attr("render_mode") == [None] * 3
    assert env.get_attr("game", indices=[0, 2]) == ["lunar", "lunar"]
    assert env.env_is_wrapped(VecMonitor) == [False] * 3
    with pytest.raises(AttributeError, match="set_opponents"):
        env.set_attr("opponents", ["heuristic"])
    env.seed(11)
    first = env.reset()
    env.seed(11)
    np.testing.assert_array_equal(env.reset(), first)
    assert env.envs.game_seeds.tolist() == vector.slot_seeds(11, 3)
    with pytest.raises(ValueError, match="autoreset"):
        vec_env("lunar", 2, autoreset_mode="NextStep")


def test_the_sb3_trainer_draws_its_games_opponents_from_the_league(tmp_path):
    from catzoo.training import config as config_mod
    from catzoo.training.league import League
    from catzoo.training.policy_net import export_actor
    from catzoo.training.run_dir import policy_meta
    from catzoo.training.trainer import LeagueVecEnv, build_model, make_vec_env

    config = config_mod.resolve({"game": "lunar", "trainer": "sb3"}, [
        "env.num_players=4", "vec_env.n_envs=32", "network.hidden=[16]", "ppo.n_steps=8",
        "league.mix={league: 0.5, heuristic: 0.5}", "league.opponent_deterministic=true"])
    league_dir = tmp_path / "league"
    vec = make_vec_env(config, league_dir, seed=0)
    games = vec.venv
    assert isinstance(games, LeagueVecEnv)
    # no snapshot yet: the league's share plays as the random bot; no partner copy: the
    # heuristic sits at the learner's partner's seat
    assert set(games.games.envs.opponent_specs) == {"heuristic", "random"}
    model = build_model(config, vec, seed=0)
    meta = policy_meta(config, games.games.envs.obs_size, games.games.envs.num_actions, 0, {}, {},
                       "test")
    league = League(league_dir)
    league.add_snapshot(100, export_actor(model.policy), meta, 10)
    league.set_partner(100, export_actor(model.policy), meta)
    vec.refresh_league()
    snapshot = str(league_dir / "s0000000100")
    assert set(games.games.envs.opponent_specs) == {"heuristic", snapshot}
    vec.reset()
    envs = games.games.envs
    for i in range(32):  # the partner copy at the learner's partner's seat
        seat = int(envs.seats[i])
        partner = envs._specs[int(envs.owner[i, (seat + 2) % 4])]
        assert partner == str(league_dir / "partner-0000000100")
    rng = np.random.default_rng(0)
    reported = []
    for _ in range(400):
        masks = get_action_masks(vec)
        _, _, dones, infos = vec.step((rng.random(masks.shape) + masks).argmax(1))
        for i in np.flatnonzero(dones):
            reported.append((infos[i]["opponent"], infos[i]["opponents"]))
            assert "episode" in infos[i]  # VecMonitor's
        if len(reported) >= 12:
            break
    assert reported
    for spec, tags in reported:
        assert tags == (["s0000000100"] if spec == snapshot else [])
    assert any(spec == snapshot for spec, _ in reported)
    vec.close()
