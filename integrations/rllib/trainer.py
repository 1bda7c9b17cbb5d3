"""PPO through RLlib with CatZoo's league: ``catzoo train --config configs/rllib/GAME.yaml``.

A run directory holds::

    config.yaml     the resolved configuration
    league/         the league's snapshots (CatZoo checkpoints) and league.json
    logs/progress.csv   per iteration: env and learner steps, time, the learner's standing
                    against each kind of opponent, league size
    policy/         the final policy, a CatZoo checkpoint (safetensors + JSON)

Ray: the run joins the Ray its caller initialised, or ``ray.address`` (``ray.init``'s
conventions), or starts a local instance of ``ray.num_cpus`` CPUs; what it started it
shuts down at the end.
"""

from __future__ import annotations

import csv
import functools
import time
from pathlib import Path

from catzoo.integrations.rllib import config as config_mod
from catzoo.integrations.rllib.env import CatZooMultiAgentEnv
from catzoo.integrations.rllib.export import export_policy
from catzoo.integrations.rllib.modules import BotModule, MaskedMLPModule
from catzoo.integrations.rllib.selfplay import (
    LEARNER,
    LeagueCallback,
    LeagueMapping,
    league_results,
)
from catzoo.training.checkpoint import atomic_write_text

TRAINER = "catzoo.integrations.rllib (RLlib PPO, league self-play)"


class RunError(ValueError):
    """A run directory that cannot be used, with the reason."""


def env_config(config: dict) -> dict:
    return {"game": config["game"], "num_players": config["env"]["num_players"],
            "reward": config["env"]["reward"], "options": dict(config["env"]["options"])}


def policy_meta(config: dict, steps: int, learner_steps: int | None = None) -> dict:
    """The checkpoint metadata, as CatZoo's trainers write it (one source:
    ``training.run_dir.policy_meta``), naming this trainer."""
    from catzoo.games.registry import get_game
    from catzoo.training.run_dir import policy_meta as catzoo_meta

    probe = get_game(config["game"]).engine_class().new(
        seed=0, num_players=config["env"]["num_players"], **config["env"]["options"])
    meta = catzoo_meta(config, probe.observation_size, probe.num_actions, steps,
                       {"seed": config["seed"]}, {}, TRAINER)
    meta["env_steps"] = steps
    if learner_steps is not None:
        meta["learner_steps"] = learner_steps
    return meta


def ppo_config(config: dict, run_dir: str | Path):
    """The ``PPOConfig`` of a run: the env, the modules, the league's mapping and callback."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    env_cfg = env_config(config)
    probe = CatZooMultiAgentEnv(env_cfg)
    agent = probe.possible_agents[0]
    spaces = {"observation_space": probe.observation_spaces[agent],
              "action_space": probe.action_spaces[agent]}
    n = config["env"]["num_players"]
    specs = {LEARNER: RLModuleSpec(module_class=MaskedMLPModule, **spaces,
                                   model_config=dict(config["network"]))}
    for k, bot in enumerate(config["bots"]):
        specs[bot] = RLModuleSpec(module_class=BotModule, **spaces, model_config={
            "spec": bot, "game": config["game"], "num_players": n,
            "seed": config["seed"] * 100 + k})
    mapping = LeagueMapping(n, config["teams"], config["league"], [], {}, config["bots"],
                            config["seed"])
    ppo, runners = config["ppo"], config["env_runners"]
    return (
        PPOConfig()
        .environment(CatZooMultiAgentEnv, env_config=env_cfg)
        .env_runners(num_env_runners=runners["num_env_runners"],
                     num_envs_per_env_runner=runners["num_envs_per_env_runner"])
        .learners(num_learners=0)
        .training(lr=ppo["lr"], train_batch_size_per_learner=ppo["train_batch_size"],
                  minibatch_size=ppo["minibatch_size"], num_epochs=ppo["num_epochs"],
                  gamma=ppo["gamma"], lambda_=ppo["lambda"], clip_param=ppo["clip_param"],
                  entropy_coeff=ppo["entropy_coeff"], vf_loss_coeff=ppo["vf_loss_coeff"],
                  grad_clip=ppo["grad_clip"], use_kl_loss=False)
        .multi_agent(policies=set(specs), policy_mapping_fn=mapping,
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .callbacks(functools.partial(LeagueCallback, settings=config, run_dir=str(run_dir),
                                     meta=functools.partial(policy_meta, config)))
        .debugging(seed=config["seed"])
    )


def _ray_address(config: dict) -> str | None:
    return config["ray"]["address"] or None


def train(config: dict, run_dir: str | Path, progress: bool = True, log=print) -> Path:
    """Start a run; returns the final policy checkpoint's path."""
    import torch
    from ray.rllib.utils.metrics import (
        ENV_RUNNER_RESULTS,
        NUM_ENV_STEPS_SAMPLED_LIFETIME,
        NUM_MODULE_STEPS_SAMPLED_LIFETIME,
    )
    from tqdm import tqdm

    from catzoo.arena.ray_backend import connection

    run_dir = Path(run_dir)
    if run_dir.exists() and any(run_dir.iterdir()):
        raise RunError(f"run directory {str(run_dir)!r} already exists and is not empty; "
                       "choose another --run-dir")
    (run_dir / "logs").mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / "config.yaml", config_mod.dump(config))
    torch.set_num_threads(config["torch_threads"])
    total = config["total_steps"]
    with connection(_ray_address(config), config["ray"]["num_cpus"] or None):
        algo = ppo_config(config, run_dir).build_algo()
        bar = tqdm(total=total, disable=not progress, unit="step", dynamic_ncols=True,
                   desc=f"{config['game']} (rllib)")
        steps = learner_steps = 0
        start = time.perf_counter()
        try:
            while steps < total:
                result = algo.train()
                runners = result.get(ENV_RUNNER_RESULTS, {})
                steps = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, steps))
                learner_steps = int((runners.get(NUM_MODULE_STEPS_SAMPLED_LIFETIME) or {})
                                    .get(LEARNER, learner_steps))
                bar.update(min(steps, total) - bar.n)
                _log_progress(run_dir, result, steps, learner_steps,
                              time.perf_counter() - start)
            path = export_policy(algo.get_module(LEARNER),
                                 run_dir / "policy", policy_meta(config, steps, learner_steps))
        finally:
            bar.close()
            algo.stop()
    seconds = time.perf_counter() - start
    log(f"{steps} env steps ({learner_steps} learner steps) in {seconds:.0f} s: "
        f"{steps / seconds:.0f} env steps/s; policy written to {path}")
    return path


def _log_progress(run_dir: Path, result: dict, steps: int, learner_steps: int,
                  seconds: float) -> None:
    league = league_results(result)
    row = {"iteration": result.get("training_iteration"), "env_steps": steps,
           "learner_steps": learner_steps, "seconds": round(seconds, 2),
           "league_size": result.get("league_size")}
    for opponent in ("heuristic", "random"):
        games, total = league.get(opponent, (0, 0.0))
        row[f"standing_vs_{opponent}"] = round(total / games, 4) if games else ""
    path = run_dir / "logs" / "progress.csv"
    new = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)
