"""Training throughput: the batched self-play trainer (catzoo.training.ppo on
catzoo.vector) beside the stable-baselines3 path (CatZoo's single-agent env) and the
PettingZoo SB3 tutorial's wrapper, on the same game, in the same run; with ``--rllib``, PPO
through RLlib (catzoo.integrations.rllib, configs/rllib/GAME.yaml: 2 env runners on a local
Ray instance of 2 CPUs, the same network and league mix) too.

    python benchmarks/training_speed.py --game cat_in_the_box --steps 20000 --batched-steps 400000
    python benchmarks/training_speed.py --game cat_in_the_box --steps 20000 --rllib 40000

The batched trainer runs its game's shipped config (configs/GAME.yaml: its network, its
vector size and threads, its league mix) with evaluation and checkpoints off, and its
figure is the learner decisions of its rollouts and updates per second of wall time
(set-up excluded). The SB3 rows use configs/sb3/GAME.yaml's MaskablePPO settings (its
network, PPO update, rollout size and league mix): on the single-game envs the SB3 path
ran on before (8 envs, ``SingleAgentEnv``, the rollout split over them), and, for a game
with a compiled core, on ``catzoo.integrations.sb3.vec_env`` as ``trainer: sb3`` runs it
(the config's ``vec_env.n_envs`` games on the batched engine). Targets: the batched
trainer at least 20,000 learner decisions/s on 2 cores and at least 15x the SB3 path on
single-game envs in the same run (issue 23); MaskablePPO on vec_env at least 5x it
(issue 43).

Figures (per second of wall time and of CPU time of this process and its workers):
* learner steps: transitions SB3 collects (its ``num_timesteps``);
* game moves: every move made in the game, the learner's and the other seats'.
The tutorial's wrapper lets the one model make every move (each one is a learner step);
ours collects only the learner seat's moves, the other seats being played by league
snapshots (numpy), bots, or both, as configured, inside ``step()``. RLlib's env steps are
game moves (every seat's, each computed by its module in the env runners); its learner
steps are the moves of the seats mapped to the learner. Its CPU time (the env runners are
other processes, alive while measured) is not counted: wall time only, with the Ray
instance's start and the algorithm's set-up left out.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class MoveCounter:
    """Counts game moves by wrapping the engine's ``apply_unchecked`` of a raw env."""

    def __init__(self):
        self.moves = 0

    def attach(self, raw_env):
        original = raw_env.reset

        def reset(*args, **kwargs):
            original(*args, **kwargs)
            game = raw_env.game
            apply = game.apply_unchecked

            def counted(action):
                self.moves += 1
                apply(action)
            game.apply_unchecked = counted
        raw_env.reset = reset


def tutorial_wrapper(game: str, num_players: int, counter: MoveCounter):
    """The wrapper of PettingZoo's "SB3: Action Masked PPO" tutorial, verbatim in
    substance (tutorials/SB3/connect_four/sb3_connect_four_action_mask.py). The one change:
    it also subclasses ``gymnasium.Env``, which Gymnasium 1.x requires of anything
    ``ActionMasker`` wraps (the tutorial predates that check)."""
    import gymnasium
    import pettingzoo.utils
    from sb3_contrib.common.wrappers import ActionMasker

    from catzoo.games.registry import get_game

    class SB3ActionMaskWrapper(pettingzoo.utils.BaseWrapper, gymnasium.Env):
        def reset(self, seed=None, options=None):
            super().reset(seed, options)
            self.observation_space = super().observation_space(self.possible_agents[0])[
                "observation"]
            self.action_space = super().action_space(self.possible_agents[0])
            return self.observe(self.agent_selection), {}

        def step(self, action):
            current_agent = self.agent_selection
            super().step(action)
            next_agent = self.agent_selection
            return (self.observe(next_agent), self._cumulative_rewards[current_agent],
                    self.terminations[current_agent], self.truncations[current_agent],
                    self.infos[current_agent])

        def observe(self, agent):
            return super().observe(agent)["observation"]

        def action_mask(self):
            return super().observe(self.agent_selection)["action_mask"]

    env = get_game(game).load_env_module().env(num_players=num_players)
    counter.attach(env.unwrapped)
    env = SB3ActionMaskWrapper(env)
    env.reset(seed=0)
    return ActionMasker(env, lambda e: e.action_mask())


def ours(config: dict, league_dir: Path, counter: MoveCounter, batched: bool = False):
    """The SB3 trainer's env: ``n_envs`` single-game envs (``batched`` False), or
    ``n_envs`` games on the batched engine (catzoo.integrations.sb3.vec_env)."""
    from catzoo.training.trainer import make_vec_env

    vec = make_vec_env(config, league_dir, seed=0, batched=batched)
    if batched:
        games = vec.venv.venv.envs._games
        step = games.step

        def counted(slots, actions):
            counter.moves += len(slots)
            return step(slots, actions)
        games.step = counted
    elif config["vec_env"]["kind"] == "dummy":
        for env in vec.envs:
            counter.attach(env.raw)
    return vec


def measure(label: str, build, config: dict, steps: int) -> dict:
    import torch

    from catzoo.training.trainer import build_model

    torch.set_num_threads(config["torch_threads"])
    counter = MoveCounter()
    env = build(counter)
    model = build_model(config, env, seed=0)
    w0, c0 = time.perf_counter(), cpu()
    model.learn(total_timesteps=steps)
    wall, used = time.perf_counter() - w0, cpu() - c0
    env.close()
    n = model.num_timesteps
    moves = counter.moves or None
    return {"label": label, "learner_steps": n, "wall": wall, "cpu": used,
            "steps_per_s": n / wall, "steps_per_cpu_s": n / used,
            "moves_per_s": moves / wall if moves else None,
            "moves_per_cpu_s": moves / used if moves else None}


def measure_rllib(game: str, num_players: int, env_steps: int) -> dict:
    """PPO through RLlib on a local Ray of 2 CPUs with 2 env runners, timed over whole
    training iterations once the algorithm is built."""
    import ray
    from ray.rllib.utils.metrics import (
        ENV_RUNNER_RESULTS,
        NUM_ENV_STEPS_SAMPLED_LIFETIME,
        NUM_MODULE_STEPS_SAMPLED_LIFETIME,
    )

    from catzoo.integrations.rllib import config as rllib_config
    from catzoo.integrations.rllib.trainer import ppo_config

    config = rllib_config.load(ROOT / "configs" / "rllib" / f"{game}.yaml",
                               [f"env.num_players={num_players}"])
    from catzoo.arena.ray_backend import init_local

    init_local(ray, num_cpus=2)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            algo = ppo_config(config, tmp).build_algo()
            try:
                steps = learner = 0
                w0 = time.perf_counter()
                while steps < env_steps:
                    runners = algo.train()[ENV_RUNNER_RESULTS]
                    steps = int(runners[NUM_ENV_STEPS_SAMPLED_LIFETIME])
                    learner = int(runners[NUM_MODULE_STEPS_SAMPLED_LIFETIME]["learner"])
                wall = time.perf_counter() - w0
            finally:
                algo.stop()
    finally:
        ray.shutdown()
    return {"label": "RLlib PPO, catzoo.integrations.rllib (2 env runners, local Ray of 2 CPUs, "
                     "configs/rllib)",
            "learner_steps": learner, "wall": wall, "cpu": None,
            "steps_per_s": learner / wall, "steps_per_cpu_s": None,
            "moves_per_s": steps / wall, "moves_per_cpu_s": None}


def main(argv=None) -> int:
    from catzoo import vector
    from catzoo.games.registry import GAMES
    from catzoo.training import config as config_mod
    from catzoo.training.league import League
    from catzoo.training.policy_net import export_actor
    from catzoo.training.run_dir import policy_meta
    from catzoo.training.trainer import TRAINER, build_model

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="cat_in_the_box", choices=sorted(GAMES))
    p.add_argument("--steps", type=int, default=20_000, help="learner steps per measurement")
    p.add_argument("--players", type=int, help="player count (default: the config's)")
    p.add_argument("--batched-steps", type=int, default=400_000,
                   help="learner decisions of the batched trainer's measurement")
    p.add_argument("--rllib", type=int, default=0, metavar="ENV_STEPS",
                   help="add the RLlib row, trained for this many env steps (needs Ray)")
    args = p.parse_args(argv)

    overrides = [f"env.num_players={args.players}"] if args.players else []
    sb3_path = ROOT / "configs" / "sb3" / f"{args.game}.yaml"
    config = config_mod.load(sb3_path if sb3_path.exists() else
                             ROOT / "configs" / f"{args.game}.yaml", overrides)
    n = config["env"]["num_players"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        league_dir = Path(tmp) / "league"
        # A league holding one (untrained) snapshot and partner, as at the start of a run.
        from stable_baselines3.common.vec_env import DummyVecEnv

        from catzoo.policies.random_policy import RandomPolicy
        from catzoo.training.single_agent import SingleAgentEnv, fixed_opponents

        probe = DummyVecEnv([lambda: SingleAgentEnv(args.game, n, fixed_opponents(RandomPolicy),
                                                    options=config["env"]["options"])])
        model = build_model(config, probe, seed=0)
        meta = policy_meta(config, int(probe.observation_space.shape[0]),
                           int(probe.action_space.n), 0, {"seed": 0}, {}, TRAINER)
        league = League(league_dir)
        league.add_snapshot(0, export_actor(model.policy), meta, 10)
        league.set_partner(0, export_actor(model.policy), meta)
        probe.close()

        rollout = config["ppo"]["n_steps"] * config["vec_env"]["n_envs"]
        tutorial_cfg = config_mod.resolve({**config, "vec_env": {"n_envs": 1, "kind": "dummy"},
                                           "ppo": {**config["ppo"], "n_steps": rollout},
                                           "torch_threads": 1})
        rows.append(measure("PettingZoo SB3 tutorial wrapper (1 env, model plays every seat)",
                            lambda c: tutorial_wrapper(args.game, n, c), tutorial_cfg, args.steps))
        # The SB3 path on single-game envs, as it ran before vec_env: 8 envs, the same
        # rollout size and every other setting of the config.
        single = config_mod.resolve({**config, "vec_env": {"n_envs": 8, "kind": "dummy"},
                                     "ppo": {**config["ppo"], "n_steps": rollout // 8},
                                     "torch_threads": 1})
        rows.append(measure(f"CatZoo SB3 path on single-game envs (8 envs dummy, league mix "
                            f"{config['league']['mix']})",
                            lambda c: ours(single, league_dir, c), single, args.steps))
        selfplay = config_mod.resolve({**single, "league": {**config["league"],
                                                           "mix": {"league": 1.0}}})
        rows.append(measure("CatZoo SB3 path on single-game envs, league snapshots only "
                            "(like-for-like with the tutorial)",
                            lambda c: ours(selfplay, league_dir, c), selfplay, args.steps))
        if config["torch_threads"] > 1:  # what the single-game envs make of more threads
            more = config_mod.resolve({**single, "torch_threads": config["torch_threads"]})
            rows.append(measure(f"CatZoo SB3 path on single-game envs, torch threads "
                                f"{config['torch_threads']}",
                                lambda c: ours(more, league_dir, c), more, args.steps))
        if vector.has_core(args.game):
            rows.append(measure(
                f"MaskablePPO on catzoo.integrations.sb3.vec_env ({config['vec_env']['n_envs']} "
                f"games x {config['ppo']['n_steps']} steps, the same league mix, torch threads "
                f"{config['torch_threads']})",
                lambda c: ours(config, league_dir, c, batched=True), config, args.steps))
        batched = measure_batched(args.game, n, args.batched_steps, Path(tmp))
        rows.insert(0, batched)
    if args.rllib:
        rows.append(measure_rllib(args.game, n, args.rllib))
    print(f"{args.game}, {n} players, {args.steps} learner steps each for SB3 (network "
          f"{config['network']['hidden']}; torch threads 1 unless said), python "
          f"{sys.version.split()[0]}")
    print(f"{'setting':<100} {'steps/s':>8} {'steps/CPU-s':>11} {'moves/s':>8} {'moves/CPU-s':>11}")

    def cell(value, width):  # "-": not measured (no moves counted, or no CPU time)
        return f"{value:{width}.0f}" if value else f"{'-':>{width}}"

    for r in rows:
        print(f"{r['label']:<100} {cell(r['steps_per_s'], 8)} {cell(r['steps_per_cpu_s'], 11)} "
              f"{cell(r['moves_per_s'], 8)} {cell(r['moves_per_cpu_s'], 11)}")
    sb3 = rows[2]["steps_per_s"]
    print(f"batched trainer: {batched['steps_per_s']:,.0f} learner decisions/s "
          f"(target 20,000: {'met' if batched['steps_per_s'] >= 20_000 else 'NOT met'}); "
          f"{batched['steps_per_s'] / sb3:.1f}x the SB3 path on single-game envs "
          f"(target 15x: {'met' if batched['steps_per_s'] >= 15 * sb3 else 'NOT met'})")
    if vector.has_core(args.game):
        vec = next(r for r in rows if "vec_env" in r["label"])
        ratio = vec["steps_per_s"] / sb3
        print(f"MaskablePPO on vec_env: {vec['steps_per_s']:,.0f} learner decisions/s, "
              f"{ratio:.1f}x the SB3 path on single-game envs (per CPU-s "
              f"{vec['steps_per_cpu_s'] / rows[2]['steps_per_cpu_s']:.1f}x; target 5x: "
              f"{'met' if ratio >= 5 else 'NOT met'})")
    return 0


def measure_batched(game: str, num_players: int, steps: int, tmp: Path) -> dict:
    """The batched trainer on the game's shipped config, evaluation and checkpoints off."""
    import csv

    from catzoo.training import config as config_mod
    from catzoo.training.ppo import train

    config = config_mod.load(ROOT / "configs" / f"{game}.yaml", [
        f"env.num_players={num_players}", f"total_steps={steps}", "eval.games=0",
        f"checkpoint_interval={10 * steps}"])
    c0 = cpu()
    train(config, tmp / "batched", progress=False, log=lambda *_: None)
    used = cpu() - c0
    with open(tmp / "batched" / "logs" / "train.csv", newline="") as f:
        log = list(csv.DictReader(f))
    seconds = sum(float(r["seconds"]) for r in log)
    learner = int(log[-1]["step"])
    agent = sum(float(r["agent_steps_per_s"]) * float(r["seconds"]) for r in log)
    net, vec = config["network"]["hidden"], config["vector"]
    return {"label": f"CatZoo batched trainer (catzoo.training.ppo: {vec['num_envs']} games, "
                     f"{vec['threads']} threads, torch threads {config['torch_threads']}, "
                     f"network {net})",
            "learner_steps": learner, "wall": seconds, "cpu": used,
            "steps_per_s": learner / seconds, "steps_per_cpu_s": learner / used,
            "moves_per_s": agent / seconds, "moves_per_cpu_s": agent / used}


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
