"""Expert iteration's labels: how fast the labeller labels positions, what share of a run's
CPU it takes, and how it scales on a local Ray cluster of 2 workers against 1.

Run: ``python benchmarks/expert_labels.py [--game catsle_builders] [--players 3]
[--positions 512] [--iterations 4] [--no-ray]``. The search is the config's
``expert.search_options`` over the shipped network of that count (unless ``--set`` says
otherwise); the positions come from seeded random play.

* local: ``label_positions`` in this process, labels per CPU-second and per second;
* share: a short expert-iteration run (``--iterations`` rollouts, each labelling
  ``expert.states`` positions) and the share of its CPU seconds its labels took
  (``logs/expert.csv``);
* Ray: the same positions as tasks of ``expert.batch`` positions on a local Ray instance
  started with 1 CPU, then 2 (wall-clock labels per second: what parallel workers buy).
  Equal labels are checked on the way.
"""

from __future__ import annotations

import argparse
import csv
import random
import tempfile
import time
from pathlib import Path

import numpy as np

from catzoo.policies.registry import make_policy
from catzoo.training import config as config_mod
from catzoo.training.expert import label_positions, sample_positions

ROOT = Path(__file__).resolve().parent.parent


def job(config: dict, policy, positions, seeds) -> dict:
    actor = policy.actor
    return {"game": config["game"],
            "options": {"num_players": config["env"]["num_players"], **config["env"]["options"]},
            "weights": actor.weights(), "hidden": actor.hidden, "activation": actor.activation,
            "meta": {"num_players": config["env"]["num_players"], "features": policy.features,
                     "env_options": config["env"]["options"]},
            "positions": [(p.seed, p.moves, p.player) for p in positions],
            "search_seeds": seeds, "search_options": config["expert"]["search_options"],
            "batch": config["expert"]["batch"], "threads": 1}


def ray_rate(whole: dict, cpus: int) -> tuple[float, dict]:
    import ray

    from catzoo.arena.ray_backend import init_local
    from catzoo.training.expert_ray import RayLabeller

    init_local(ray, num_cpus=cpus, log_to_driver=False)
    try:
        size = whole["batch"]
        jobs = [{**whole, "positions": whole["positions"][i:i + size],
                 "search_seeds": whole["search_seeds"][i:i + size]}
                for i in range(0, len(whole["positions"]), size)]
        labeller = RayLabeller("local")
        labeller.label(jobs[:cpus])  # workers started and the modules imported
        start = time.perf_counter()
        parts = labeller.label(jobs)
        wall = time.perf_counter() - start
    finally:
        ray.shutdown()
    return len(whole["positions"]) / wall, {
        "values": np.concatenate([p["values"] for p in parts])}


def run_share(config: dict, iterations: int) -> tuple[float, float]:
    from catzoo.training import ppo

    per = config["ppo"]["rollout_steps"] * config["vector"]["num_envs"]
    cfg = config_mod.resolve(config, [f"total_steps={per * iterations}", "eval.games=0",
                                      "checkpoint_interval=1000000000",
                                      "league.snapshot_interval=1000000000"])
    with tempfile.TemporaryDirectory() as tmp:
        ppo.train(cfg, Path(tmp) / "run", progress=False, log=lambda *_: None)
        with open(Path(tmp) / "run" / "logs" / "expert.csv", newline="") as f:
            last = list(csv.DictReader(f))[-1]
    return float(last["label_cpu_s"]), float(last["run_cpu_s"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="catsle_builders")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--positions", type=int, default=512)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--no-ray", action="store_true")
    args = parser.parse_args(argv)
    config = config_mod.load(ROOT / "configs" / f"{args.game}.yaml", [
        f"env.num_players={args.players}", "imitation.games=0", "network.init=shipped",
        "ppo.enabled=false", "expert.value_coef=0", "expert.states=512",
        "vector.num_envs=256", "ppo.rollout_steps=16", "torch_threads=1", "vector.threads=1",
        *args.set])
    policy = make_policy("shipped", config["game"], args.players)
    positions = sample_positions(config["game"], args.players, args.positions, seed=1,
                                 options=config["env"]["options"])
    seeds = [random.Random(k).getrandbits(63) for k in range(len(positions))]
    whole = job(config, policy, positions, seeds)
    print(f"{config['game']}, {args.players} players, pimc over the shipped network, "
          f"{config['expert']['search_options']}")
    start_cpu, start = time.process_time(), time.perf_counter()
    local = label_positions(whole)
    cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
    print(f"local            {len(positions)} labels: {len(positions) / cpu:8.1f} labels/CPU-s, "
          f"{len(positions) / wall:8.1f} labels/s ({1000 * cpu / len(positions):.1f} CPU-ms each)")
    labels, total = run_share(config, args.iterations)
    print(f"run share        {args.iterations} iterations of {config['expert']['states']} "
          f"labels: {labels:.1f} of {total:.1f} CPU-s, {labels / total:.1%} of the run's CPU "
          f"(from the network's {policy.meta.get('cpu_seconds', 0)} CPU-s it starts from: "
          f"{labels / (total - policy.meta.get('cpu_seconds', 0)):.1%} of this session's)")
    if args.no_ray:
        return 0
    one, got1 = ray_rate(whole, 1)
    two, got2 = ray_rate(whole, 2)
    same = (np.array_equal(got1["values"], local["values"], equal_nan=True)
            and np.array_equal(got2["values"], local["values"], equal_nan=True))
    print(f"ray, 1 worker    {one:8.1f} labels/s")
    print(f"ray, 2 workers   {two:8.1f} labels/s: {two / one:.2f}x  (labels equal to the "
          f"local ones: {same})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
