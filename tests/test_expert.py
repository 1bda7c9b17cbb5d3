"""Expert iteration in the batched trainer (training/expert.py): the labels are the search
bot's own move values, a run of every card game writes a policy that plays, a run killed
with SIGKILL resumes without duplicate rows, and Ray labels as a local run does."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from catzoo.cli.main import main
from catzoo.games.registry import get_game
from catzoo.policies.registry import make_policy
from catzoo.policies.search.pimc import PIMCPolicy
from catzoo.training import config as config_mod
from catzoo.training import expert, ppo
from catzoo.training.checkpoint import load_policy
from catzoo.training.expert import Position, label_positions, targets
from tests.helpers import rows, sigkill_past_a_checkpoint

ROOT = Path(__file__).resolve().parent.parent
SEARCH = {"determinizations": 3, "horizon": "deal", "playouts": 2, "mix": 0.5}
TINY = ["vector.num_envs=16", "ppo.rollout_steps=8", "ppo.num_minibatches=2", "ppo.n_epochs=1",
        "eval.games=0", "league.snapshot_interval=200", "checkpoint_interval=200",
        "imitation.games=0", "network.hidden=[32]", "network.features=", "expert.states=24",
        "expert.batch=8", "expert.minibatch=16", "expert.value_coef=0",
        "expert.search_options={determinizations: 3, horizon: deal, playouts: 2, mix: 0.5}"]
CARD_GAMES = ["cat_in_the_box", "lunar", "catsle_builders", "cat_tree"]


def positions_of(game: str, n: int, count: int, seed: int = 3) -> list[Position]:
    return expert.sample_positions(game, n, count, seed)


def job_for(game: str, n: int, policy, positions: list[Position], seeds: list[int]) -> dict:
    actor = policy.actor
    return {"game": game, "options": {"num_players": n}, "weights": actor.weights(),
            "hidden": actor.hidden, "activation": actor.activation,
            "meta": {"num_players": n, "features": policy.features,
                     "env_options": policy.meta.get("env_options", {})},
            "positions": [(p.seed, p.moves, p.player) for p in positions],
            "search_seeds": seeds, "search_options": SEARCH, "batch": 3, "threads": 1}


@pytest.mark.parametrize(("game", "n"), [("catsle_builders", 3), ("lunar", 4)])
def test_the_labels_are_the_pimc_bots_own_move_values(game, n):
    policy = make_policy("shipped", game, n)
    positions = positions_of(game, n, 5)
    seeds = [11 * (k + 1) for k in range(len(positions))]
    labels = label_positions(job_for(game, n, policy, positions, seeds))
    state_cls = get_game(game).engine_class()
    for k, pos in enumerate(positions):
        state = expert.replay(state_cls, state_cls.new(num_players=n, seed=0).options,
                              pos.seed, pos.moves)
        bot = PIMCPolicy(seed=seeds[k], **SEARCH)
        values = bot.values(state, pos.player, state.legal_actions(), policy)
        row = labels["values"][k]
        assert {a: row[a] for a in values} == values  # the very same numbers
        assert np.isnan(np.delete(row, list(values))).all()
        obs = {"observation": state.observation(pos.player), "action_mask": state.legal_mask()}
        assert labels["own"][k] == policy.act(obs)


def test_the_target_is_the_move_the_bot_plays_or_a_softmax_of_the_values():
    nan = np.nan
    values = np.array([[0.1, nan, 0.3, 0.3], [0.5, 0.2, nan, nan]])
    own = np.array([3, 1])
    p, v = targets(values, own, 0.0)
    # row 0: its own move is one of the best; row 1: it is not, the first best is the target
    np.testing.assert_array_equal(p, [[0, 0, 0, 1], [1, 0, 0, 0]])
    np.testing.assert_allclose(v, [0.3, 0.5])
    p, _ = targets(values, own, 0.1)
    np.testing.assert_allclose(p[0], np.array([np.exp(-2), 0, 1, 1]) / (2 + np.exp(-2)),
                               rtol=1e-6)
    assert p[1, 2] == p[1, 3] == 0 and p[1, 0] > p[1, 1] > 0


def test_the_value_range_is_the_median_spread_of_the_legal_move_values():
    nan = np.nan
    values = np.array([[0.1, nan, 0.3, 0.3], [0.5, 0.2, nan, nan], [1.0, 3.0, 2.0, nan]])
    assert expert.value_range(values) == pytest.approx(0.3)  # spreads 0.2, 0.3, 2.0


def test_a_temperature_above_the_values_spread_is_reported_once(tmp_path):
    # Standings (random playouts mixed in) spread over a tenth of what score margins do: a
    # temperature picked for margins leaves the targets the network's own policy.
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             [*TINY, "total_steps=400", "ppo.enabled=false",
                              "expert.targets=improvement", "expert.temperature=50"])
    said = []
    ppo.train(config, tmp_path / "run", progress=False, log=said.append)
    notes = [m for m in said if "temperature 50 is larger" in m]
    assert len(notes) == 1 and "value_range" in notes[0]
    watcher = expert.ExpertIteration.__new__(expert.ExpertIteration)
    watcher.ex, watcher.note = {"temperature": 0.1}, None
    watcher.check_scale(0.05)
    assert "temperature 0.1 is larger" in watcher.note
    watcher.note = None
    watcher.check_scale(0.2)
    assert watcher.note == ""


def test_a_position_replays_to_the_slot_it_was_drawn_from():
    positions = positions_of("cat_in_the_box", 4, 6)
    state_cls = get_game("cat_in_the_box").engine_class()
    options = state_cls.new(num_players=4, seed=0).options
    env = get_game("cat_in_the_box").load_env_module().env(num_players=4)
    for pos in positions:
        state = expert.replay(state_cls, options, pos.seed, pos.moves)
        env.reset(seed=pos.seed)  # the AEC env plays the slot's game from its seed
        for a in pos.moves.tolist():
            env.step(a)
        assert state.current_player == pos.player == env.unwrapped.game.current_player
        np.testing.assert_array_equal(state.observation(pos.player),
                                      env.unwrapped.game.observation(pos.player))


@pytest.mark.parametrize("game", CARD_GAMES)
def test_a_short_expert_iteration_run_writes_a_policy_that_plays_legal_moves(game, tmp_path):
    config = config_mod.load(ROOT / "configs" / f"{game}.yaml",
                             [*TINY, "total_steps=400", "ppo.enabled=false"])
    path = ppo.train(config, tmp_path / "run", progress=False, log=lambda *_: None)
    policy = load_policy(path)
    assert policy.meta["expert"]["labels"] > 0 and policy.meta["cpu_seconds"] > 0
    logged = rows(tmp_path / "run" / "logs" / "expert.csv")
    assert logged and int(logged[-1]["labels"]) == policy.meta["expert"]["labels"]
    assert all(0 <= float(r["agreement"]) <= 1 for r in logged if r["agreement"])
    assert any(float(r["value_range"]) > 0 for r in logged if r["value_range"])
    state = get_game(game).engine_class().new(num_players=config["env"]["num_players"],
                                              seed=5)
    for _ in range(40):
        if state.is_terminal():
            break
        p = state.current_player
        a = policy.act({"observation": state.observation(p), "action_mask": state.legal_mask()})
        assert state.is_legal(a)
        state.apply(a)


def test_a_cpu_budget_stops_the_run_at_the_end_of_an_iteration(tmp_path, monkeypatch):
    from catzoo.training import run_dir

    spent = iter(range(0, 10**6, 10))  # each reading of the process's CPU clock: 10 s later
    monkeypatch.setattr(run_dir, "cpu_seconds", lambda: float(next(spent)))
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             [*TINY, "total_steps=100000", "ppo.enabled=false",
                              "cpu_budget=55"])
    lines: list[str] = []
    path = ppo.train(config, tmp_path / "run", progress=False, log=lines.append)
    policy = load_policy(path)
    assert 0 < policy.meta["steps"] < 100000
    assert any("cpu_budget: " in line and "stopping" in line for line in lines)
    steps = [int(r["step"]) for r in rows(tmp_path / "run" / "logs" / "train.csv")]
    assert steps[-1] == policy.meta["steps"]  # stopped after a whole iteration
    with pytest.raises(config_mod.ConfigError, match="cpu_budget"):
        config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", [*TINY, "cpu_budget=-1"])


def test_expert_iteration_beside_ppo_in_standing_units_and_its_errors():
    config = config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml",
                             [*TINY, "expert.value_coef=0.5", "ppo.zero_sum=false",
                              "env.reward=standing"])
    assert config["ppo"]["enabled"] and config["expert"]["value_coef"] == 0.5
    bad = [("ppo.enabled=false", "expert.states=0"),
           ("expert.value_coef=0.5", "ppo.zero_sum=true"),
           ("expert.search=ismcts",), ("expert.search_options.determinizations=0",),
           ("expert.search_options.policy=heuristic",), ("expert.value_target=future",),
           ("expert.search_options.playouts=0", "expert.value_target=search",
            "expert.value_coef=1")]
    messages = ["nothing would train the network", "critic in standing units",
                "expert.search='ismcts'", "determinizations=0 must be at least 1",
                "the network being trained", "value_target='future'", "standing units"]
    for overrides, message in zip(bad, messages):
        with pytest.raises(config_mod.ConfigError, match=message):
            config_mod.load(ROOT / "configs" / "cat_in_the_box.yaml", [*TINY, *overrides])


def test_sigkill_mid_run_then_resume_without_duplicate_rows(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "-m", "catzoo.cli.main", "train",
           "--config", str(ROOT / "configs" / "cat_in_the_box.yaml"), "--run-dir", str(run),
           "--no-progress", "--steps", "3000", "--set", "env.num_players=2",
           *[a for o in TINY for a in ("--set", o)]]
    log = run / "logs" / "expert.csv"
    killed_at = sigkill_past_a_checkpoint(cmd, run, log, timeout=240)
    labels_then = json.loads((run / "checkpoints" / f"step_{killed_at:010d}" / "policy" /
                              "policy.json").read_text())["expert"]["labels"]
    assert main(["train", "--resume", str(run), "--no-progress"]) == 0
    for name in ("train.csv", "expert.csv"):
        steps = [int(r["step"]) for r in rows(run / "logs" / name)]
        assert steps == sorted(set(steps)), name  # no row twice, in order
    expert_rows = rows(log)
    resumed = [r for r in expert_rows if int(r["step"]) > killed_at]
    assert int(resumed[0]["labels"]) > labels_then  # counted on from the checkpoint
    assert load_policy(run / "policy").meta["steps"] >= 3000


@pytest.mark.xdist_group("ray")
def test_ray_workers_label_as_a_local_run_does(ray_cluster):
    from catzoo.training.expert_ray import RayLabeller

    policy = make_policy("shipped", "catsle_builders", 3)
    positions = positions_of("catsle_builders", 3, 7)
    seeds = [random.Random(k).getrandbits(63) for k in range(7)]
    job = job_for("catsle_builders", 3, policy, positions, seeds)
    local = label_positions(job)
    jobs = [{**job, "positions": job["positions"][i:i + 3], "search_seeds": seeds[i:i + 3]}
            for i in range(0, 7, 3)]
    labeller = RayLabeller("local")
    try:
        parts = labeller.label(jobs)
    finally:
        labeller.close()
    np.testing.assert_array_equal(np.concatenate([p["values"] for p in parts]), local["values"])
    np.testing.assert_array_equal(np.concatenate([p["own"] for p in parts]), local["own"])
    assert ray_cluster.is_initialized()  # the caller's Ray is left as it was
