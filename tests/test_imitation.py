"""Imitation warm-start: demonstrations are consistent, cloning raises agreement with the
heuristic above a random player's, the config section is checked, and a run with a warm
start records it, resumes without cloning again and counts its CPU time."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from catzoo.training import config as config_mod
from catzoo.training import imitation
from catzoo.training.trainer import Run, build_model, make_vec_env, resume, train

ROOT = Path(__file__).resolve().parent.parent
TINY = ["network.hidden=[32]", "vec_env.n_envs=2", "ppo.n_steps=64", "ppo.batch_size=64",
        "ppo.n_epochs=1", "league.snapshot_interval=200", "league.partner_refresh_interval=100",
        "checkpoint_interval=256", "eval.interval=100000", "eval.games=2"]


def _config(*overrides):
    return config_mod.load(ROOT / "configs" / "sb3" / "catsle_builders.yaml",
                           ["env.num_players=3", *TINY, *overrides])


def test_demonstrations_are_legal_and_returns_are_each_seats_final_standing():
    config = _config("env.reward=standing", "ppo.gamma=1.0")
    demos = imitation.generate(config, games=3, seed=1)
    assert len(demos) > 100
    assert demos.obs.shape == (len(demos), 350) and demos.masks.shape == (len(demos), 125)
    assert demos.masks[np.arange(len(demos)), demos.actions].all()
    for g in range(3):
        # With the sparse standing reward and gamma 1, every decision of a seat carries
        # that seat's final standing; standings are zero-sum over the seats.
        finals = []
        for seat in range(3):
            got = np.unique(demos.returns[(demos.game_index == g) & (demos.seat == seat)])
            assert got.size == 1 and abs(got[0]) <= 1.0
            finals.append(got[0])
        assert sum(finals) == pytest.approx(0.0, abs=1e-6)
    assert demos.returns.min() < 0 < demos.returns.max()


def test_discounted_score_returns_are_non_negative_and_shrink_towards_the_end():
    config = _config("env.reward=score", "ppo.gamma=0.9")
    demos = imitation.generate(config, games=1, seed=2)
    assert demos.returns.min() >= 0 and demos.returns.max() > 0
    # The last decisions of the game are followed by at most the last round's score.
    assert demos.returns[-3:].max() <= demos.returns.max()


def test_split_keeps_games_whole():
    config = _config()
    demos = imitation.generate(config, games=10, seed=3)
    train_part, val = imitation.split(demos)
    assert len(train_part) + len(val) == len(demos)
    assert not set(train_part.game_index) & set(val.game_index)
    assert set(val.game_index) == {9}


def test_short_warm_start_agrees_with_the_heuristic_more_than_random(tmp_path):
    import torch

    torch.manual_seed(0)
    config = _config("imitation.games=24", "imitation.epochs=3", "imitation.batch_size=128",
                     "network.hidden=[64]")
    vec = make_vec_env(config, tmp_path / "league", seed=0)
    try:
        model = imitation.SB3Model(build_model(config, vec, seed=0).policy)
        demos = imitation.generate(config, 24, seed=4)
        _, val = imitation.split(demos)
        before = imitation.agreement(model, val)
        stats = imitation.pretrain(model, demos, config["imitation"], seed=0,
                                   log=lambda *_: None)
    finally:
        vec.close()
    assert stats["val_agreement"] == pytest.approx(imitation.agreement(model, val))
    assert stats["val_agreement"] > stats["random_agreement"] + 0.1
    assert stats["val_agreement"] > before + 0.1
    assert len(stats["epochs"]) == 3


def test_imitation_is_off_by_default_and_in_every_other_config():
    assert config_mod.DEFAULTS["imitation"]["games"] == 0
    # The configs of the runs that were warm-started; the others reproduce runs that were not.
    warm_started = {"catsle_builders", "ledges"}
    sb3 = [p for p in sorted((ROOT / "configs").rglob("*.yaml"))
           if "rllib" not in p.parts and config_mod.load(p)["trainer"] == "sb3"]
    assert {p.stem for p in sb3} >= warm_started
    for path in sb3:
        games = config_mod.load(path)["imitation"]["games"]
        assert (games > 0) == (path.stem in warm_started), path.name


@pytest.mark.parametrize(("override", "message"), [
    ("imitation.games=-1", "imitation.games must be non-negative"),
    ("imitation.epochs=0", "imitation.epochs must be positive"),
    ("imitation.batch_size=0", "imitation.batch_size must be positive"),
    ("imitation.learning_rate=0", "imitation.learning_rate must be positive"),
    ("imitation.vf_coef=-0.5", "imitation.vf_coef must be non-negative"),
    ("imitation.games=1.5", "config key 'imitation.games' must be of type int"),
    ("imitation.rate=1", "unknown config key 'imitation.rate'"),
    ("imitation.teacher=grandmaster", ("imitation.teacher: 'grandmaster' is not a bot of "
                                       "catsle_builders; choose one of heuristic, ismcts, pimc, planner")),
])
def test_bad_imitation_settings_are_errors(override, message):
    with pytest.raises(config_mod.ConfigError, match=message):
        _config(override)


def test_a_run_with_a_warm_start_records_it_and_resumes_without_cloning_again(
        tmp_path, monkeypatch):
    config = _config("imitation.games=4", "imitation.epochs=1", "total_steps=256")
    path = train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    meta = json.loads((path / "policy.json").read_text())
    stats = json.loads((tmp_path / "run" / "logs" / "imitation.json").read_text())
    assert meta["imitation"]["games"] == 4 and meta["imitation"]["decisions"] > 0
    assert meta["imitation"]["val_agreement"] == stats["val_agreement"]
    # The warm start's CPU time is part of the run's.
    assert meta["cpu_seconds"] >= stats["generate_cpu_seconds"] + stats["pretrain_cpu_seconds"]

    def no_cloning(*args, **kwargs):
        raise AssertionError("a resumed run must not clone the heuristic again")

    monkeypatch.setattr(imitation, "warm_start", no_cloning)
    path = resume(tmp_path / "run", ["total_steps=512"], progress=False, log=lambda *_: None)
    meta = json.loads((path / "policy.json").read_text())
    assert meta["steps"] >= 512 and meta["imitation"]["games"] == 4


def test_a_run_killed_after_the_warm_start_resumes_from_its_step_0_checkpoint(
        tmp_path, monkeypatch):
    config = _config("imitation.games=2", "imitation.epochs=1", "total_steps=128")
    run = Run.create(tmp_path / "run", config)

    class Killed(Exception):
        pass

    def killed(*args, **kwargs):
        raise Killed

    # Stop the run right after the warm start, as a kill would.
    monkeypatch.setattr("stable_baselines3.common.logger.configure", killed)
    with pytest.raises(Killed):
        run.train(progress=False, log=lambda *_: None)
    monkeypatch.undo()
    assert json.loads((tmp_path / "run" / "checkpoints" / "latest.json").read_text())["step"] == 0
    monkeypatch.setattr(imitation, "warm_start", lambda *a, **k: pytest.fail("cloned again"))
    path = resume(tmp_path / "run", progress=False, log=lambda *_: None)
    assert json.loads((path / "policy.json").read_text())["imitation"]["games"] == 2


def test_the_teacher_is_the_bot_whose_moves_are_recorded(monkeypatch):
    """``imitation.teacher`` names the bot that decides: a search bot here (through the AEC
    env, one bot a seat), whose moves differ from the heuristic's on the same views; the
    heuristic (batched on catzoo.vector, one bot for every slot) makes its own."""
    from catzoo.policies.heuristics.catsle_builders import CatsleBuildersHeuristic

    made = []
    real = imitation.make_policy

    def recording(spec, *args, **kwargs):
        made.append(spec)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(imitation, "make_policy", recording)
    demos = imitation.generate(_config("imitation.teacher=ismcts:iterations=8"), games=1, seed=4)
    assert made == ["ismcts:iterations=8"] * 4  # the one that picks the path, then a seat each
    heuristic = imitation.generate(_config(), games=4, seed=4)
    assert made[4:] == ["heuristic"]
    assert len(demos) > 20 and demos.masks[np.arange(len(demos)), demos.actions].all()

    def agreement_with_the_heuristic(d):
        bot = CatsleBuildersHeuristic(3, seed=0)
        return np.mean(bot.act_batch(d.obs[:, :350], d.masks.astype(np.int8)) == d.actions)

    # A fresh copy of the heuristic differs only on its ties, which its generator breaks
    # (87% agree here); the search bot's moves agree about as often as random ones (38%).
    assert agreement_with_the_heuristic(heuristic) > 0.8
    assert agreement_with_the_heuristic(demos) < 0.6


@pytest.mark.parametrize(("batched", "overrides"), [
    (True, ["env.reward=score", "ppo.zero_sum=true", "ppo.gamma=1.0", "ppo.reward_scale=0.1"]),
    (True, ["env.reward=standing", "ppo.zero_sum=false", "ppo.gamma=0.9"]),
    (False, ["env.reward=score", "ppo.zero_sum=true", "ppo.gamma=0.9", "ppo.reward_scale=0.1"]),
])
def test_demonstrations_are_games_the_aec_env_replays(monkeypatch, batched, overrides):
    """Either generator (batched on catzoo.vector with the heuristic's act_batch, or the AEC
    loop) against a replay in the AEC env: each recorded game, replayed from its seed, shows
    the recorded observations and masks at every decision, ends right after its last one,
    and gives each seat the recorded returns (the seat's transformed rewards up to the end,
    discounted decision to decision). Batched: two slots for five games, so slots deal
    games in turn."""
    from catzoo.envs import catsle_builders_v0
    from catzoo.training.rewards import zero_sum

    monkeypatch.setattr(imitation, "BATCH", 2)
    config = config_mod.load(ROOT / "configs" / "catsle_builders.yaml",
                             ["env.num_players=3", *overrides])
    demos = imitation.generate(config, games=5, seed=7, batched=batched)
    assert sorted(set(demos.game_index)) == [0, 1, 2, 3, 4]
    assert len(set(demos.game_seeds)) == 5
    gamma, scale = config["ppo"]["gamma"], config["ppo"]["reward_scale"]
    raw = catsle_builders_v0.raw_env(num_players=3, reward=config["env"]["reward"])
    size = raw.observation_space(raw.possible_agents[0])["observation"].shape[0]
    for g in range(5):
        rows = np.flatnonzero(demos.game_index == g)
        raw.reset(seed=int(demos.game_seeds[g]))
        after = np.zeros(rows.size)  # rewards from each decision to the seat's next one
        last = [-1, -1, -1]
        for k, row in enumerate(rows):
            p = raw.game.current_player
            o = raw.observe(raw.possible_agents[p])
            assert demos.seat[row] == p
            np.testing.assert_array_equal(demos.obs[row, :size], o["observation"])
            np.testing.assert_array_equal(demos.masks[row], o["action_mask"].astype(bool))
            last[p] = k
            raw.step(int(demos.actions[row]))
            step = np.array([raw.rewards[a] for a in raw.possible_agents])
            step = scale * (zero_sum(step) if config["ppo"]["zero_sum"] else step)
            for s in range(3):
                if last[s] >= 0:
                    after[last[s]] += step[s]
        assert raw.game.is_terminal()
        for s in range(3):
            ret, mine = 0.0, [k for k, row in enumerate(rows) if demos.seat[row] == s]
            for k in reversed(mine):
                ret = after[k] + gamma * ret
                assert demos.returns[rows[k]] == pytest.approx(ret, abs=1e-5)
