"""The single-agent training env: Gymnasium/SB3 conformance, rewards, seats, masks."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from catzoo.games.registry import GAMES
from catzoo.policies.random_policy import RandomPolicy
from catzoo.training.single_agent import SingleAgentEnv, fixed_opponents


class Recording(RandomPolicy):
    """A random opponent that notes who moved last."""

    def __init__(self, seed, log):
        super().__init__(seed)
        self.log = log

    def act(self, observation, *, state=None, player=None):
        self.log.append("opponent")
        return super().act(observation)


def play_episode(env, rng, log):
    obs, info = env.reset()
    rewards, total = [], 0.0
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert env.observation_space.contains(obs)
        log.append("learner")
        obs, reward, terminated, _truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        rewards.append(reward)
        total += reward
        if terminated:
            return rewards, total, info


@pytest.mark.parametrize("game", sorted(GAMES))
def test_check_env_passes(game):
    from stable_baselines3.common.env_checker import check_env

    n = GAMES[game].default_players
    env = SingleAgentEnv(game, n, fixed_opponents(lambda s: RandomPolicy(s)))
    check_env(env, warn=True, skip_render_check=True)


@pytest.mark.parametrize("num_players", [2, 3])
def test_learner_gets_its_terminal_reward_when_an_opponent_ends_the_game(num_players):
    log: list[str] = []
    env = SingleAgentEnv("cat_in_the_box", num_players,
                         fixed_opponents(lambda s: Recording(s, log)), options={"rounds": "single"})
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    ended_by_opponent, losses_on_their_move = 0, False
    for _ in range(40):
        log.clear()
        rewards, total, info = play_episode(env, rng, log)
        game = env.raw.game
        expected = float(game.returns()[env.seat])
        # Standing reward: nothing before the end, the whole standing on the last step.
        assert rewards[-1] == pytest.approx(expected) and total == pytest.approx(expected)
        assert info["learner_return"] == pytest.approx(expected)
        ended_by_opponent += log[-1] == "opponent"
        if log[-1] == "opponent" and expected < 0:
            losses_on_their_move = True  # the case the tutorial's wrapper drops
    assert ended_by_opponent >= 5
    assert losses_on_their_move


def test_score_reward_includes_what_other_players_moves_caused():
    env = SingleAgentEnv("cat_in_the_box", 3, fixed_opponents(lambda s: RandomPolicy(s)),
                         reward="score")
    env.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(5):
        _, total, _ = play_episode(env, rng, [])
        assert total == pytest.approx(env.raw.game.scores()[env.seat])


def test_seat_is_drawn_per_episode_and_fixed_on_request():
    env = SingleAgentEnv("cat_in_the_box", 4, fixed_opponents(lambda s: RandomPolicy(s)))
    env.reset(seed=0)
    seats = {env.reset()[1]["seat"] for _ in range(40)}
    assert seats == {0, 1, 2, 3}
    fixed = SingleAgentEnv("cat_in_the_box", 4, fixed_opponents(lambda s: RandomPolicy(s)), seat=2)
    assert {fixed.reset(seed=i)[1]["seat"] for i in range(10)} == {2}
    with pytest.raises(ValueError, match="seat 7 is out of range"):
        SingleAgentEnv("cat_in_the_box", 4, fixed_opponents(lambda s: RandomPolicy(s)), seat=7)


def test_illegal_learner_action_raises_or_ends_the_episode_with_a_penalty():
    from catzoo.games.base import IllegalActionError

    env = SingleAgentEnv("cat_in_the_box", 2, fixed_opponents(lambda s: RandomPolicy(s)),
                         illegal_action="raise")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(IllegalActionError, match="not legal; legal actions"):
        env.step(illegal)
    env = SingleAgentEnv("cat_in_the_box", 2, fixed_opponents(lambda s: RandomPolicy(s)))
    env.reset(seed=0)
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def _make():
    return SingleAgentEnv("cat_in_the_box", 2, fixed_opponents(lambda s: RandomPolicy(s)))


def test_maskable_ppo_reads_masks_through_dummy_and_subproc_vec_envs():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    for cls in (DummyVecEnv, SubprocVecEnv):
        vec = cls([_make, _make])
        try:
            vec.seed(5)
            vec.reset()
            for _ in range(60):  # past at least one episode end and auto-reset
                masks = get_action_masks(vec)
                assert masks.shape == (2, 50) and masks.any(axis=1).all()
                actions = [int(np.flatnonzero(m)[0]) for m in masks]
                vec.step(np.array(actions))
        finally:
            vec.close()


def test_partners_come_from_the_partner_copy_and_opponents_from_the_mix(tmp_path):
    from catzoo.training.league import League, LeagueSeats
    from catzoo.training.policy_net import expected_shapes

    game = "cat_in_the_box"
    probe = SingleAgentEnv(game, 4, fixed_opponents(lambda s: RandomPolicy(s)))
    size, actions = int(probe.observation_space.shape[0]), int(probe.action_space.n)
    rng = np.random.default_rng(0)
    weights = {k: rng.normal(size=s).astype(np.float32)
               for k, s in expected_shapes(size, actions, [8]).items()}
    meta = {"game": game, "env_version": 0, "num_players": 4, "env_options": {},
            "reward": "standing", "observation_size": size, "num_actions": actions,
            "architecture": {"type": "mlp", "hidden": [8], "activation": "tanh"}}
    league = League(tmp_path)
    league.add_snapshot(0, weights, meta, max_snapshots=5)
    league.set_partner(0, weights, meta)
    config = {"mix": {"league": 1.0}, "scheme": {"latest": 1.0}, "weighted_power": 2.0,
              "opponent_deterministic": False}
    seats = LeagueSeats(tmp_path, game, 4, {}, [[0, 2], [1, 3]], config, seed=0)
    filled = seats(1, 4, rng)
    assert filled[1] == (None, None)
    assert filled[3][0].name == "checkpoint:partner-0000000000" and filled[3][1] is None
    assert filled[0][1] == filled[2][1] == "s0000000000"
    # Results against snapshots shift the weighted scheme towards those the learner loses to.
    league.add_snapshot(10, weights, meta, max_snapshots=5)
    league.record([{"opponents": ["s0000000000"] * 3, "learner_return": 1.0}] * 20)
    league.record([{"opponents": ["s0000000010"], "learner_return": -1.0}] * 20)
    league.save()
    seats._refresh()
    w = seats._weights(["s0000000000", "s0000000010"])
    assert w[1] > 10 * w[0]


def test_config_without_teams_takes_the_game_partnerships():
    from catzoo.training.config import load

    assert load("configs/lunar.yaml", ["teams=[]"])["teams"] == [[0, 2], [1, 3]]
    assert load("configs/cat_tree.yaml", ["teams=[]"])["teams"] == [[0, 1]]
    assert load("configs/cat_in_the_box.yaml")["teams"] == []


def test_episode_statistics_are_sb3s_vec_monitors(tmp_path):
    """The env writes no ``info["episode"]`` of its own; the trainer's ``VecMonitor`` does,
    from the rewards and steps PPO saw."""
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    from catzoo.training import config as config_mod
    from catzoo.training.trainer import make_vec_env

    env = SingleAgentEnv("cat_in_the_box", 2, fixed_opponents(lambda s: RandomPolicy(s)),
                         options={"rounds": "single"})
    env.reset(seed=0)
    assert "episode" not in play_episode(env, np.random.default_rng(0), [])[2]

    config = config_mod.resolve({"game": "cat_in_the_box", "trainer": "sb3"}, [
        "env.num_players=2", "env.options={rounds: single}", "env.reward=score",
        "vec_env.n_envs=2"])
    vec = make_vec_env(config, tmp_path / "league", seed=0)
    try:
        assert isinstance(vec, VecMonitor)
        vec.seed(3)
        vec.reset()
        returns, lengths, ended = np.zeros(2), np.zeros(2, dtype=int), 0
        for _ in range(120):
            actions = [int(np.flatnonzero(m)[-1]) for m in get_action_masks(vec)]
            _, rewards, dones, infos = vec.step(np.array(actions))
            returns += rewards
            lengths += 1
            for i in np.flatnonzero(dones):
                episode = infos[i]["episode"]
                assert episode["r"] == pytest.approx(returns[i], abs=1e-5)
                assert episode["l"] == lengths[i]
                returns[i], lengths[i] = 0.0, 0
                ended += 1
        assert ended >= 4
    finally:
        vec.close()
