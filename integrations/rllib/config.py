"""RLlib training configs (``configs/rllib/GAME.yaml``): CatZoo's own keys, checked as the
CatZoo trainer checks them, and RLlib's.

A config holds ``trainer: rllib``; the keys it shares with CatZoo's trainer (``game``,
``env``, ``teams``, ``seed``, ``total_steps``, ``torch_threads``, ``network``, ``league``)
mean the same and are resolved by ``catzoo.training.config`` (defaults, types, the game's
player counts and teams, the league's proportions), except ``total_steps``, which counts
env steps (every seat's moves, RLlib's own counter) rather than the learner's. The league's
``partner_refresh_interval`` and ``opponent_deterministic`` do not apply: partners share
the learner's network, and snapshot modules sample their actions as RLlib's modules do.
RLlib's keys:

* ``ray``: ``address`` (as ``ray.init`` takes it; empty: ``RAY_ADDRESS``, else a new
  local instance), ``num_cpus`` (of a local instance started here; 0: all);
* ``env_runners``: ``num_env_runners`` (remote sampling actors, one CPU each),
  ``num_envs_per_env_runner``;
* ``ppo``: PPO's settings under RLlib's names (``lr``, ``train_batch_size`` env steps per
  iteration, ``minibatch_size``, ``num_epochs``, ``gamma``, ``lambda``, ``clip_param``,
  ``entropy_coeff``, ``vf_loss_coeff``, ``grad_clip``).

Scaling out changes two keys: ``--set ray.address=auto --set env_runners.num_env_runners=32``.
"""

from __future__ import annotations

import copy
from pathlib import Path

import yaml

from catzoo.training import config as catzoo_config
from catzoo.training.config import ConfigError, parse_override

SHARED = ("game", "env", "teams", "seed", "total_steps", "torch_threads", "network", "league")
DEFAULTS: dict = {
    "trainer": "rllib",
    "ray": {"address": "", "num_cpus": 0},
    "env_runners": {"num_env_runners": 2, "num_envs_per_env_runner": 1},
    "ppo": {
        "lr": 3.0e-4,
        "train_batch_size": 4000,
        "minibatch_size": 256,
        "num_epochs": 4,
        "gamma": 1.0,
        "lambda": 0.95,
        "clip_param": 0.2,
        "entropy_coeff": 0.01,
        "vf_loss_coeff": 0.5,
        "grad_clip": 0.5,
    },
}


def resolve(raw: dict, overrides=()) -> dict:
    if not isinstance(raw, dict):
        raise ConfigError(f"config must be a mapping, got {type(raw).__name__}")
    shared_raw = {k: v for k, v in raw.items() if k in SHARED}
    own = {k: v for k, v in raw.items() if k not in SHARED}
    shared_overrides = []
    for text in overrides:
        top = text.split("=", 1)[0].strip().split(".")[0]
        if top in SHARED:
            shared_overrides.append(text)
        else:
            own = _deep_update(own, parse_override(text))
    unknown = sorted(set(own) - set(DEFAULTS))
    if unknown:
        raise ConfigError(f"unknown config key(s) {', '.join(map(repr, unknown))}; known keys: "
                          f"{', '.join((*SHARED, *DEFAULTS))}")
    if own.get("trainer", "rllib") != "rllib":
        raise ConfigError(f"trainer={own['trainer']!r}: this config is for RLlib (trainer: rllib)")
    # The CatZoo trainer's checks of what both trainers share (catzoo.training.config).
    resolved = catzoo_config.resolve(shared_raw, shared_overrides)
    config = {k: resolved[k] for k in SHARED}
    config.update(catzoo_config._merge(DEFAULTS, own, ""))
    return validate(config)


def _deep_update(base: dict, update: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in update.items():
        out[k] = _deep_update(out[k], v) if isinstance(v, dict) and isinstance(
            out.get(k), dict) else v
    return out


def validate(config: dict) -> dict:
    runners = config["env_runners"]
    if runners["num_env_runners"] < 0 or runners["num_envs_per_env_runner"] < 1:
        raise ConfigError("env_runners.num_env_runners must be >= 0 and "
                          "env_runners.num_envs_per_env_runner >= 1")
    if config["ray"]["num_cpus"] < 0:
        raise ConfigError(f"ray.num_cpus must be >= 0 (0: all), got {config['ray']['num_cpus']}")
    ppo = config["ppo"]
    for key in ("lr", "train_batch_size", "minibatch_size", "num_epochs", "clip_param"):
        if ppo[key] <= 0:
            raise ConfigError(f"ppo.{key} must be positive, got {ppo[key]}")
    if ppo["minibatch_size"] > ppo["train_batch_size"]:
        raise ConfigError("ppo.minibatch_size must not exceed ppo.train_batch_size")
    for key in ("gamma", "lambda"):
        if not 0 <= ppo[key] <= 1:
            raise ConfigError(f"ppo.{key} must be in [0, 1], got {ppo[key]}")
    from catzoo.policies.registry import HEURISTICS

    # The bots seated as modules: those the league's mix asks for and the game has.
    has = {"random"} | set(HEURISTICS.get(config["game"], {}))
    config["bots"] = [b for b in ("heuristic", "random")
                      if b in has and config["league"]["mix"].get(b, 0) > 0]
    return config


def load(path: str | Path, overrides=()) -> dict:
    return catzoo_config.load(path, overrides, resolve_with=resolve)


def dump(config: dict) -> str:
    return yaml.safe_dump({k: v for k, v in config.items() if k != "bots"}, sort_keys=False,
                          default_flow_style=None)
