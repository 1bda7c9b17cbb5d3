"""Training throughput: CatZoo's single-agent env next to the PettingZoo SB3 tutorial's
wrapper, on the same game, with the same MaskablePPO hyper-parameters, in the same run.

    python benchmarks/training_speed.py --game cat_in_the_box --steps 20000

Figures (per second of wall time and of CPU time of this process and its workers):
* learner steps: transitions SB3 collects (its ``num_timesteps``);
* game moves: every move made in the game, the learner's and the other seats'.
The tutorial's wrapper lets the one model make every move (each one is a learner step);
ours collects only the learner seat's moves, the other seats being played by league
snapshots (numpy), bots, or both, as configured, inside ``step()``.
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


def ours(config: dict, league_dir: Path, counter: MoveCounter):
    from catzoo.training.trainer import make_vec_env

    vec = make_vec_env(config, league_dir, seed=0)
    if config["vec_env"]["kind"] == "dummy":
        for env in vec.envs:
            counter.attach(env.raw)
    return vec


def measure(label: str, build, config: dict, steps: int) -> dict:
    import torch

    from catzoo.training.trainer import build_model

    torch.set_num_threads(1)
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


def main(argv=None) -> int:
    from catzoo.games.registry import GAMES
    from catzoo.training import config as config_mod
    from catzoo.training.league import League
    from catzoo.training.policy_net import export_actor
    from catzoo.training.trainer import build_model, policy_meta

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="cat_in_the_box", choices=sorted(GAMES))
    p.add_argument("--steps", type=int, default=20_000, help="learner steps per measurement")
    p.add_argument("--players", type=int, help="player count (default: the config's)")
    args = p.parse_args(argv)

    overrides = [f"env.num_players={args.players}"] if args.players else []
    config = config_mod.load(ROOT / GAMES[args.game].config, overrides)
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
                           int(probe.action_space.n), 0, {"seed": 0})
        league = League(league_dir)
        league.add_snapshot(0, export_actor(model.policy), meta, 10)
        league.set_partner(0, export_actor(model.policy), meta)
        probe.close()

        tutorial_cfg = config_mod.resolve({**config, "vec_env": {"n_envs": 1, "kind": "dummy"},
                                           "ppo": {**config["ppo"], "n_steps": config["ppo"]["n_steps"]
                                                   * config["vec_env"]["n_envs"]}})
        rows.append(measure("PettingZoo SB3 tutorial wrapper (1 env, model plays every seat)",
                            lambda c: tutorial_wrapper(args.game, n, c), tutorial_cfg, args.steps))
        rows.append(measure(f"CatZoo, default settings ({config['vec_env']['n_envs']} envs "
                            f"{config['vec_env']['kind']}, league mix {config['league']['mix']})",
                            lambda c: ours(config, league_dir, c), config, args.steps))
        selfplay = config_mod.resolve({**config, "league": {**config["league"],
                                                           "mix": {"league": 1.0}}})
        rows.append(measure("CatZoo, league snapshots only (like-for-like with the tutorial)",
                            lambda c: ours(selfplay, league_dir, c), selfplay, args.steps))
    print(f"{args.game}, {n} players, {args.steps} learner steps each, network "
          f"{config['network']['hidden']}, torch threads 1, python {sys.version.split()[0]}")
    print(f"{'setting':<100} {'steps/s':>8} {'steps/CPU-s':>11} {'moves/s':>8} {'moves/CPU-s':>11}")
    for r in rows:
        moves = (f"{r['moves_per_s']:8.0f} {r['moves_per_cpu_s']:11.0f}" if r["moves_per_s"]
                 else f"{'-':>8} {'-':>11}")
        print(f"{r['label']:<100} {r['steps_per_s']:8.0f} {r['steps_per_cpu_s']:11.0f} {moves}")
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
