"""catzoo.integrations.rllib: the multi-agent env wrapper on every game, the masked module
and its export (the checkpoint computes the module's logits), the league's seating, and a
short PPO run through RLlib (local Ray of 2 CPUs, 2 env runners) whose checkpoint loads and
plays only legal moves in the arena, the terminal table and the browser's catalogue."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="RLlib is not installed (pip install 'catzoo[rllib]')")
pytest.importorskip("torch", reason="torch is not installed (pip install 'catzoo[rllib]')")

from catzoo.games.registry import GAMES
from catzoo.integrations.rllib import CatZooMultiAgentEnv, LeagueMapping

ROOT = Path(__file__).resolve().parent.parent


def play_through(env: CatZooMultiAgentEnv, seed: int, max_steps: int = 100_000):
    """A random legal game through the wrapper; every observation checked on the way."""
    rng = random.Random(seed)
    obs, _ = env.reset(seed=seed)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(max_steps):
        assert len(obs) == 1
        agent, o = next(iter(obs.items()))
        assert set(o) == {"observations", "action_mask"}
        assert o["action_mask"].dtype == np.float32 and o["observations"].dtype == np.float32
        assert env.observation_spaces[agent].contains(o)
        raw = env.raw
        assert agent == raw.agent_selection
        assert np.array_equal(o["action_mask"], raw.game.legal_mask().astype(np.float32))
        legal = np.flatnonzero(o["action_mask"]).tolist()
        obs, rewards, terminated, truncated, infos = env.step({agent: rng.choice(legal)})
        for a, r in rewards.items():
            returns[a] += r
        assert not truncated["__all__"]
        if terminated["__all__"]:
            assert set(obs) == set(env.possible_agents)
            return returns, infos
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("game", [g for g in GAMES if g != "ledges"])
def test_the_wrapper_plays_every_card_game_to_its_end(game):
    env = CatZooMultiAgentEnv({"game": game})
    returns, infos = play_through(env, seed=3)
    standing = env.raw.game.returns()
    # Standing rewards: everything arrives at the end, and the sum is each player's result.
    for i, a in enumerate(env.possible_agents):
        assert returns[a] == pytest.approx(standing[i])
        assert infos[a]["standing"] == pytest.approx(standing[i])


def test_the_wrapper_gives_dense_rewards_to_whom_they_concern():
    env = CatZooMultiAgentEnv({"game": "cat_in_the_box", "num_players": 3, "reward": "score"})
    returns, _ = play_through(env, seed=5)
    assert [returns[a] for a in env.possible_agents] == pytest.approx(env.raw.game.scores())


def test_the_wrapper_seats_ledges():
    pytest.importorskip("mujoco")
    env = CatZooMultiAgentEnv({"game": "ledges"})
    obs, _ = env.reset(seed=0)
    agent, o = next(iter(obs.items()))
    assert env.observation_spaces[agent].contains(o)


def test_an_illegal_action_ends_the_game_with_the_penalty_or_raises():
    from catzoo.games.base import IllegalActionError

    env = CatZooMultiAgentEnv({"game": "cat_tree"})
    obs, _ = env.reset(seed=1)
    agent, o = next(iter(obs.items()))
    bad = int(np.flatnonzero(o["action_mask"] == 0)[0])
    obs, rewards, terminated, _, infos = env.step({agent: bad})
    assert terminated["__all__"] and rewards[agent] == -1.0
    assert infos[agent]["illegal_action"] and "standing" not in infos[agent]
    strict = CatZooMultiAgentEnv({"game": "cat_tree", "illegal_action": "raise"})
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError):
        strict.step({agent: bad})


def module_for(game: str, n: int, hidden=(32, 16)):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from catzoo.integrations.rllib import MaskedMLPModule

    env = CatZooMultiAgentEnv({"game": game, "num_players": n})
    a = env.possible_agents[0]
    spec = RLModuleSpec(module_class=MaskedMLPModule, observation_space=env.observation_spaces[a],
                        action_space=env.action_spaces[a],
                        model_config={"hidden": list(hidden), "activation": "relu"})
    return env, spec.build()


def test_the_module_masks_and_its_checkpoint_computes_its_logits(tmp_path):
    """Differential: the exported checkpoint (numpy) against the module (torch)."""
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.utils.torch_utils import FLOAT_MIN

    from catzoo.integrations.rllib import export_policy
    from catzoo.integrations.rllib.trainer import policy_meta
    from catzoo.training import load_policy
    from catzoo.training.config import resolve

    env, module = module_for("cat_in_the_box", 3)
    rng = random.Random(0)
    obs, _ = env.reset(seed=2)
    batch_obs, batch_mask = [], []
    while len(batch_obs) < 40:
        agent, o = next(iter(obs.items()))
        batch_obs.append(o["observations"])
        batch_mask.append(o["action_mask"])
        obs, _, term, _, _ = env.step({agent: rng.choice(np.flatnonzero(o["action_mask"]))})
        if term["__all__"]:
            obs, _ = env.reset(seed=len(batch_obs))
    x, mask = torch.tensor(np.array(batch_obs)), torch.tensor(np.array(batch_mask))
    with torch.no_grad():
        out = module.forward_inference({Columns.OBS: {"observations": x, "action_mask": mask}})
    logits = out[Columns.ACTION_DIST_INPUTS].numpy()
    assert np.all(logits[mask.numpy() == 0] <= FLOAT_MIN / 2)
    config = resolve({"game": "cat_in_the_box", "env": {"num_players": 3},
                      "network": {"hidden": [32, 16], "activation": "relu"}})
    path = export_policy(module, tmp_path / "policy", policy_meta(config, 0))
    policy = load_policy(path, game="cat_in_the_box", num_players=3)
    legal = mask.numpy() > 0
    for i in range(len(x)):
        ours = policy.logits(x[i].numpy())
        assert np.allclose(ours[legal[i]], logits[i][legal[i]], atol=1e-5)
        greedy = policy.act({"observation": x[i].numpy(), "action_mask": legal[i].astype(np.int8)})
        assert greedy == int(np.argmax(logits[i]))


def test_the_league_mapping_seats_the_learner_once_per_side_and_draws_per_episode():
    league = {"mix": {"league": 0.5, "heuristic": 0.5, "random": 0.0},
              "scheme": {"latest": 0.0, "uniform": 0.0, "weighted": 1.0}, "weighted_power": 2.0}
    # The learner beat s1 every time and lost to s2 every time: s2 is drawn far more.
    mapping = LeagueMapping(4, [[0, 2], [1, 3]], league, ["s1", "s2"],
                            {"s1": [50, 50.0], "s2": [50, -50.0]}, bots=["heuristic"], seed=0)

    class Episode:
        def __init__(self, k):
            import uuid

            self.id_ = uuid.UUID(int=k + 1).hex

    drawn = []
    for k in range(400):
        ep = Episode(k)
        seating = [mapping(f"player_{s}", ep) for s in range(4)]
        assert seating == [mapping(f"player_{s}", ep) for s in range(4)]
        learner = [s for s in range(4) if seating[s] == "learner"]
        assert learner in ([0, 2], [1, 3])  # the learner and its partner
        drawn += [m for m in seating if m != "learner"]
    assert set(drawn) <= {"s1", "s2", "heuristic"}
    assert drawn.count("s2") > 5 * drawn.count("s1") and drawn.count("heuristic") > 200
    free = LeagueMapping(2, [], {**league, "mix": {"league": 1.0}}, [], {}, bots=[], seed=0)
    assert free("player_1", Episode(0)) in ("learner", "random")  # no snapshot yet: random


@pytest.mark.xdist_group("ray")
def test_a_short_rllib_ppo_run_makes_a_checkpoint_that_plays_legal_moves(ray_cluster,
                                                                          tmp_path, capsys):
    """PPO through RLlib on Cat in the Box, 2 env runners on the shared local Ray; the
    arena's guard stops at any illegal move, so a finished arena is one of legal moves."""
    from catzoo.arena import run_arena
    from catzoo.cli.main import main
    from catzoo.play.table import Table
    from catzoo.training import load_policy
    from catzoo.web.catalogue import Catalogue

    run = tmp_path / "run"
    assert main(["train", "--config", str(ROOT / "configs" / "rllib" / "cat_in_the_box.yaml"),
                 "--steps", "2000", "--run-dir", str(run), "--no-progress",
                 "--set", "env.num_players=2", "--set", "ppo.train_batch_size=500",
                 "--set", "ppo.minibatch_size=250", "--set", "ppo.num_epochs=2",
                 "--set", "league.snapshot_interval=1000"]) == 0
    assert "env steps/s" in capsys.readouterr().out
    assert ray_cluster.is_initialized()  # the caller's Ray is left running
    policy = load_policy(run / "policy", game="cat_in_the_box", num_players=2)
    meta = policy.meta
    assert meta["trainer"].startswith("catzoo.integrations.rllib") and meta["env_steps"] >= 2000
    league = json.loads((run / "league" / "league.json").read_text())
    assert [s["step"] for s in league["snapshots"]][:1] == [0] and len(league["snapshots"]) >= 2
    assert league["stats"]["s0000000000"][0] > 0  # the learner met the first snapshot
    snapshot = str(run / "league" / league["snapshots"][-1]["id"])
    result = run_arena("cat_in_the_box", [str(run / "policy"), "random", snapshot], games=12,
                       num_players=2, seed=4)
    assert result.failure is None and len(result.records) == 12
    table = Table("cat_in_the_box", [str(run / "policy"), "heuristic"], seed=1)
    table.play_bots()
    assert table.over
    catalogue = Catalogue([str(run)])
    assert catalogue.resolve("cat_in_the_box", 2, "checkpoint:policy") == str(run / "policy")
