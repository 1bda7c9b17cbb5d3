"""Learner steps per CPU-second of Cats Knocking Things Off Ledges' training paths, the one
it trained on before and the batched one, in the same run.

* **before**: MaskablePPO through stable-baselines3 on the AEC env (``trainer: sb3``,
  configs/ledges.yaml at the given player count): 8 single-agent envs in one process, the
  learner at one seat of each game, the others played inside ``step()`` by the heuristic
  (80%) or a league snapshot (20%);
* **after**: the batched trainer (``trainer: ppo``, catzoo.training.ppo, configs/ledges_ppo.yaml)
  on ``catzoo.vector``: every game of the batch stepped in one call, the learner deciding
  for all of its seats in one forward pass, and learning from every seat it holds.

Both learners start from the same network (a quick clone of the aimer bot, made by the
batched trainer's imitation warm-start from ``--clone-games`` aimer games, on the plain
observation with the aiming features: the SB3 path reads no input features), so both
play the same kind of game: how a policy plays sets how long its shots are simulated.
Each figure is the learner decisions of ``--steps`` (rounded up to whole rollouts) over
the CPU time of this process while training (os.times: user + system), set-up (imports,
models, the clone) left out. ``--features`` adds the batched trainer as it trains the
shipped policies (its network reads the ``ledges_aimer`` input features too), from a clone
made on the same demonstrations.

    python benchmarks/ledges_training_speed.py                  # 2 players
    python benchmarks/ledges_training_speed.py --players 2 3 4 --features

Target (issue 42): the batched path at least 5x the SB3 path's learner steps per
CPU-second. The measured figures are in docs/training.md.

Each path's CPU in MuJoCo's simulations (``physics.simulate``: the stepping and the checks
between its chunks) is counted too, and printed as its share and as CPU-ms per learner
step; the last column is the ratio the batched path would reach if everything else it
does (engine rules, aiming features, network, PPO update) cost nothing: the physics,
which both paths run alike, bounds the ratio there.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 5.0


def cpu() -> float:
    t = os.times()
    return t.user + t.system


class PhysicsClock:
    """The CPU time spent in ``physics.simulate`` while active (the engine calls it through
    the module, so wrapping the module's function counts every simulation)."""

    def __init__(self):
        self.seconds = 0.0

    def __enter__(self):
        from catzoo.games.ledges import physics

        self._module, self._inner = physics, physics.simulate

        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return self._inner(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - t0

        physics.simulate = timed
        return self

    def __exit__(self, *exc):
        self._module.simulate = self._inner


def batched_config(players: int, steps: int, features: str, init: str = "",
                   imitation_games: int = 0) -> dict:
    from catzoo.training import config as config_mod

    return config_mod.load(ROOT / "configs" / "ledges_ppo.yaml", [
        f"env.num_players={players}", f"total_steps={steps}", f"network.features={features}",
        f"network.init={init}", f"imitation.games={imitation_games}", "eval.games=0",
        f"checkpoint_interval={100 * steps}", f"league.snapshot_interval={100 * steps}"])


def make_clone(players: int, games: int, features: str, tmp: Path) -> Path:
    """A behaviour clone of the aimer (the batched trainer's warm-start, then one rollout
    of PPO): the policy both paths start from."""
    from catzoo.training.ppo import train

    config = batched_config(players, 1, features, imitation_games=games)
    return train(config, tmp / f"clone-{players}p-{features or 'plain'}", progress=False,
                 log=lambda *_: None)


def measure_batched(players: int, steps: int, features: str, init: Path, tmp: Path) -> dict:
    """The batched trainer from ``init``; CPU time from the end of its set-up."""
    from catzoo.training import ppo
    from catzoo.training.run_dir import RunDir

    marks: dict[str, float] = {}

    class Timed(ppo.Trainer):
        def setup(self, ckpt):
            super().setup(ckpt)
            marks["start"] = cpu()

    config = batched_config(players, steps, features, init=str(init))
    run = RunDir.create(tmp / f"batched-{players}p-{features or 'plain'}", config)
    trainer = Timed(run, progress=False, log=lambda *_: None)
    with PhysicsClock() as physics:
        trainer.run()
    used = cpu() - marks["start"]
    return {"steps": trainer.step, "cpu": used, "physics": physics.seconds}


def measure_sb3(players: int, steps: int, init: Path, tmp: Path) -> dict:
    """MaskablePPO on configs/ledges.yaml, its actor copied from ``init`` (the critic
    fresh, as the batched trainer's network.init does), its league holding that actor."""
    import torch

    from catzoo.training import config as config_mod
    from catzoo.training.checkpoint import load_policy
    from catzoo.training.league import League
    from catzoo.training.policy_net import export_actor
    from catzoo.training.run_dir import policy_meta
    from catzoo.training.trainer import TRAINER, build_model, make_vec_env

    torch.set_num_threads(1)
    config = config_mod.load(ROOT / "configs" / "ledges.yaml", [f"env.num_players={players}"])
    league_dir = tmp / f"sb3-{players}p" / "league"
    vec = make_vec_env(config, league_dir, seed=0)
    model = build_model(config, vec, seed=0)
    weights = load_policy(init).actor.weights()
    state = model.policy.state_dict()
    hidden = sorted((k for k in state if k.startswith("mlp_extractor.policy_net.")
                     and k.endswith(".weight")), key=lambda k: int(k.split(".")[2]))
    with torch.no_grad():
        for i, key in enumerate(hidden):
            state[key].copy_(torch.from_numpy(weights[f"pi.{i}.weight"]))
            state[key[:-len("weight")] + "bias"].copy_(torch.from_numpy(weights[f"pi.{i}.bias"]))
        state["action_net.weight"].copy_(torch.from_numpy(weights["action.weight"]))
        state["action_net.bias"].copy_(torch.from_numpy(weights["action.bias"]))
    meta = policy_meta(config, int(vec.observation_space.shape[0]), int(vec.action_space.n), 0,
                       {"seed": 0}, {}, TRAINER)
    League(league_dir).add_snapshot(0, export_actor(model.policy), meta, 10)
    c0 = cpu()
    with PhysicsClock() as physics:
        model.learn(total_timesteps=steps)
    used = cpu() - c0
    vec.close()
    return {"steps": int(model.num_timesteps), "cpu": used, "physics": physics.seconds}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="*", default=[2])
    parser.add_argument("--steps", type=int, default=4096, help="learner steps per path")
    parser.add_argument("--clone-games", type=int, default=60,
                        help="aimer games the common starting clone learns from")
    parser.add_argument("--features", action="store_true",
                        help="also the batched trainer with the ledges_aimer input features")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        for n in args.players:
            w0 = time.perf_counter()
            clone = make_clone(n, args.clone_games, "", tmp)
            before = measure_sb3(n, args.steps, clone, tmp)
            after = measure_batched(n, args.steps, "", clone, tmp)
            row = {"players": n, "before": before, "after": after}
            if args.features:
                featured = make_clone(n, args.clone_games, "ledges_aimer", tmp)
                row["features"] = measure_batched(n, args.steps, "ledges_aimer", featured, tmp)
            row["wall"] = time.perf_counter() - w0
            rows.append(row)
            print(f"{n} players done in {row['wall']:.0f} s", file=sys.stderr, flush=True)
    print(f"learner steps per CPU-second, Cats Knocking Things Off Ledges ({args.steps} learner "
          f"steps per path, from a clone of the aimer on {args.clone_games} games)")
    print(f"{'players':>7} {'SB3 on the AEC env':>19} {'batched trainer':>16} {'ratio':>6}"
          + (f" {'batched, input features':>24}" if args.features else ""))
    worst = float("inf")
    for r in rows:
        b = r["before"]["steps"] / r["before"]["cpu"]
        a = r["after"]["steps"] / r["after"]["cpu"]
        worst = min(worst, a / b)
        line = f"{r['players']:>7} {b:>19.1f} {a:>16.1f} {a / b:>5.1f}x"
        if "features" in r:
            line += f" {r['features']['steps'] / r['features']['cpu']:>24.1f}"
        print(line)
    print(f"lowest ratio {worst:.1f}x: {'meets' if worst >= TARGET else 'MISSES'} the target "
          f"of {TARGET:g}x")
    print("\nMuJoCo's simulations (physics.simulate) in each path's CPU")
    print(f"{'players':>7} {'SB3: share, ms/step':>20} {'batched: share, ms/step':>24} "
          f"{'ratio, batched physics only':>28}")
    for r in rows:
        b, a = r["before"], r["after"]
        bound = (a["steps"] / a["physics"]) / (b["steps"] / b["cpu"]) if a["physics"] else 0.0
        print(f"{r['players']:>7} {b['physics'] / b['cpu']:>13.0%} "
              f"{1000 * b['physics'] / b['steps']:>6.1f} {a['physics'] / a['cpu']:>17.0%} "
              f"{1000 * a['physics'] / a['steps']:>6.1f} {bound:>27.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
