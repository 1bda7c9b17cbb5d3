"""Training configuration: one YAML per game, merged over ``DEFAULTS`` key by key.

Every key of a config must exist in ``DEFAULTS`` (a typo is an error naming the key and
the known ones), and every value must have the default's type, so that a run directory's
``config.yaml`` is the complete, resolved description of how a policy was trained.
"""

from __future__ import annotations

import copy
import math
import re
from pathlib import Path
from typing import Any

import yaml

from catzoo.games.suggest import did_you_mean


class ConfigError(ValueError):
    """A configuration file or override that cannot be used, with the reason."""


# The batched self-play trainer (``trainer: ppo``, catzoo.training.ppo), the default.
# Behaviour cloning of a bot (the teacher) before PPO (catzoo.training.imitation).
IMITATION: dict[str, Any] = {
    "games": 0,  # games with the teacher at every seat, whose decisions are imitated; 0: off
    "teacher": "heuristic",  # the bot cloned: a bot of the game or a search bot (with options)
    "epochs": 4,
    "batch_size": 256,
    "learning_rate": 1.0e-3,
    "vf_coef": 0.5,  # weight of the critic's loss on the demonstrations' returns
    "max_grad_norm": 0.5,
}

# Expert iteration: positions of the self-play labelled by a search over the current network,
# which the network learns (catzoo.training.expert).
EXPERT: dict[str, Any] = {
    "states": 0,  # positions labelled per iteration (per rollout); 0: off
    "batch": 64,  # positions whose searches step together (one forward pass per step)
    "search": "pimc",  # the labelling search: pimc over the current network
    # pimc's options (docs/arena.md), the rollout policy being the current network
    "search_options": {"determinizations": 16, "horizon": "deal", "playouts": 4, "mix": 0.5},
    "threads": 1,  # OpenMP threads stepping the searches' games in C
    # the label: "search", softmax(values / T) over the legal moves (T = 0: the search's move),
    # or "improvement", softmax(network's logits + values / T) (T > 0), T in the values'
    # units: score margin for rollouts cut at the deal, standing in [-1, 1] with playouts
    # (logs/expert.csv's value_range is their typical spread)
    "targets": "search",
    "temperature": 0.0,
    "value_target": "search",  # search (its best move's value) | outcome (the game's, per seat)
    "value_coef": 0.5,  # weight of the value loss beside the policy's cross-entropy
    "buffer": 65536,  # the newest labels kept and learned from
    "epochs": 1,  # passes over the buffer per iteration
    "minibatch": 512,
    "learning_rate": 0.0,  # 0: the PPO optimizer's current rate (annealed with it)
    "ray": "",  # "" labels in this process; a Ray address (or "local") labels on Ray workers
}

PPO_DEFAULTS: dict[str, Any] = {
    "game": "",
    "trainer": "ppo",  # ppo (batched, catzoo.training.ppo) | sb3 (MaskablePPO, catzoo.training.trainer)
    "env": {
        "num_players": 0,  # 0: the game's default player count
        "reward": "standing",
        "options": {},  # the game's own options (free-form, checked by the game)
    },
    # Seat groups playing as partners (team and cooperative games): the learner plays
    # every seat of its team.
    "teams": [],  # empty: the game's own partnerships (GameState.teams)
    "seed": 0,
    "total_steps": 10_000_000,  # learner decisions
    # The run's CPU seconds (its start network's included, as policy.json counts them) after
    # which it stops at the end of an iteration, before total_steps; 0: no budget.
    "cpu_budget": 0,
    "torch_threads": 2,
    "vector": {"num_envs": 1024, "threads": 2},  # catzoo.vector: games stepped at once
    # critic: "separate" (its own MLP, as CleanRL's) or "shared" (heads on one trunk)
    # features: "" (none) or a set of input features (catzoo.policies.features)
    # init: "" (fresh weights) or a policy checkpoint (a path, shipped) whose actor the
    # network starts from; its training's CPU seconds count in the run's
    "network": {"hidden": [256, 256], "activation": "tanh", "critic": "separate",
                "features": "", "init": ""},
    "ppo": {
        "enabled": True,  # the PPO update (false: the network learns the expert's labels only)
        "rollout_steps": 32,  # agent-steps of every game slot per rollout
        "learning_rate": 3.0e-4,
        "anneal_lr": True,  # linearly to 0 at total_steps
        "num_minibatches": 8,
        "n_epochs": 4,
        "gamma": 1.0,  # per decision of the seat
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "clip_vloss": True,
        "norm_adv": True,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "target_kl": 0.0,  # 0: no early stop on KL
        # Rewards are multiplied by this for learning (logs and evaluations stay in game
        # units): a game's score runs to tens or hundreds of points, and the critic's loss
        # on such returns would swamp the shared trunk's gradients.
        "reward_scale": 1.0,
        # Learn each seat's reward minus the others' mean (catzoo.training.rewards): the
        # margin over the table, not the seat's own score.
        "zero_sum": False,
    },
    "league": {
        "snapshot_interval": 1_000_000,
        "max_snapshots": 20,
        "active": 4,  # snapshots new games draw from, re-drawn at every snapshot
        "self_play": 0.5,  # share of games in which the learner plays every seat
        # The one opponent of the other games, as proportions.
        # "opponent": league.opponent's share (a frozen policy: a checkpoint, shipped, a bot).
        "mix": {"league": 0.7, "heuristic": 0.2, "random": 0.1},
        "opponent": "",  # a policy spec that acts from observations; "" none
        # How a league opponent is drawn from the snapshots, as proportions.
        "scheme": {"latest": 0.4, "uniform": 0.2, "weighted": 0.4},
        # Exponent of the "weighted" scheme: weight = (1 - learner's score vs it) ** power.
        "weighted_power": 2.0,
        "opponent_deterministic": False,
    },
    "checkpoint_interval": 1_000_000,
    # Balanced tables (as `catzoo arena` seats two policies) against each opponent spec.
    "eval": {"interval": 2_000_000, "games": 200, "opponents": ["random", "heuristic"]},
    "imitation": IMITATION,
    "expert": EXPERT,
}

# MaskablePPO through stable-baselines3 (``trainer: sb3``, catzoo.training.trainer).
DEFAULTS: dict[str, Any] = {
    "game": "",
    "trainer": "sb3",
    "env": {
        "num_players": 0,  # 0: the game's default player count
        "reward": "standing",
        "options": {},  # the game's own options (free-form, checked by the game)
    },
    # Seat groups playing as partners (team and cooperative games): the learner's partners
    # are played by a frozen copy of the current policy, every other seat by the league.
    "teams": [],  # empty: the game's own partnerships (GameState.teams)
    "seed": 0,
    "total_steps": 1_000_000,
    "torch_threads": 1,
    "vec_env": {"n_envs": 8, "kind": "dummy"},  # kind: dummy | subproc
    "network": {"hidden": [128, 128], "activation": "tanh"},
    "ppo": {
        "learning_rate": 3.0e-4,
        "n_steps": 256,
        "batch_size": 256,
        "n_epochs": 4,
        "gamma": 1.0,
        "gae_lambda": 0.95,
        "clip_range": 0.2,
        "ent_coef": 0.01,
        "vf_coef": 0.5,
        "max_grad_norm": 0.5,
        "target_kl": 0.0,  # 0: no early stop on KL
    },
    "league": {
        "snapshot_interval": 50_000,
        "max_snapshots": 40,
        "partner_refresh_interval": 10_000,
        # Where each opponent seat's player comes from, as proportions.
        "mix": {"league": 0.6, "heuristic": 0.3, "random": 0.1},
        # How a league opponent is drawn from the snapshots, as proportions.
        "scheme": {"latest": 0.4, "uniform": 0.2, "weighted": 0.4},
        # Exponent of the "weighted" scheme: weight = (1 - learner's score vs it) ** power.
        "weighted_power": 2.0,
        "opponent_deterministic": False,
    },
    "checkpoint_interval": 20_000,
    "eval": {"interval": 100_000, "games": 200, "opponents": ["random", "heuristic"]},
    "imitation": IMITATION,
}

TRAINERS = {"ppo": PPO_DEFAULTS, "sb3": DEFAULTS}
# What `catzoo train --resume DIR --set ...` may change in a run being resumed.
RESUMABLE = ("total_steps", "cpu_budget", "eval.", "checkpoint_interval", "vec_env.", "vector.",
             "expert.ray", "expert.threads")

VEC_KINDS = ("dummy", "subproc")
SEARCHES = ("pimc",)  # the searches expert iteration labels with
ACTIVATIONS = ("tanh", "relu")
MIX_KEYS = ("league", "heuristic", "random")
SCHEME_KEYS = ("latest", "uniform", "weighted")


# Mappings whose keys are free (checked by validate or the game): a config's mapping
# replaces the default's whole, an override of one of its keys (league.mix.heuristic=0.5)
# changes that key only.
FREE_FORM = ("env.options", "league.mix", "league.scheme", "expert.search_options")


def _merge(base: dict, update: dict, where: str) -> dict:
    out = copy.deepcopy(base)
    if not isinstance(update, dict):
        raise ConfigError(f"{where or 'config'} must be a mapping, got {type(update).__name__}")
    for key, value in update.items():
        name = f"{where}.{key}" if where else str(key)
        if key not in base:
            raise ConfigError(
                f"unknown config key {name!r}{did_you_mean(str(key), base)}; known keys"
                f"{' under ' + where if where else ''}: {', '.join(base)}"
            )
        default = base[key]
        # Free-form mappings: the game's options, and proportions checked by validate().
        if name in FREE_FORM:
            if not isinstance(value, dict):
                raise ConfigError(f"{name} must be a mapping, got {value!r}")
            out[key] = copy.deepcopy(value)
        elif isinstance(default, dict):
            out[key] = _merge(default, value, name)
        else:
            out[key] = _check_type(name, default, value)
    return out


_YAML11_EXPONENT = re.compile(r"[-+]?[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")


def _check_type(name: str, default, value):
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, float):
        if isinstance(value, str) and _YAML11_EXPONENT.fullmatch(value.strip()):
            value = float(value)  # PyYAML (YAML 1.1) reads 5e-5, with no dot, as a string
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, int):
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, type(default))
    if not ok:
        raise ConfigError(
            f"config key {name!r} must be of type {type(default).__name__}, got {value!r}"
        )
    return value


def resolve(raw: dict, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """The trainer's defaults <- ``raw`` <- ``overrides`` (``key.sub=value``, value parsed
    as YAML). ``trainer`` (in ``raw`` or an override) picks the defaults: ``ppo`` unless
    said otherwise."""
    if not isinstance(raw, dict):
        raise ConfigError(f"config must be a mapping, got {type(raw).__name__}")
    parsed = [parse_override(text) for text in overrides]
    trainer = raw.get("trainer", "ppo")
    for tree in parsed:
        trainer = tree.get("trainer", trainer)
    if trainer not in TRAINERS:
        raise ConfigError(f"trainer={trainer!r}; choose one of {', '.join(TRAINERS)}")
    config = _merge(TRAINERS[trainer], raw, "")
    for text, tree in zip(overrides, parsed):
        key = text.split("=", 1)[0].strip()
        inner = next((f for f in FREE_FORM if key.startswith(f + ".")), None)
        if inner is None:
            config = _merge(config, tree, "")
            continue
        node, leaf = config, tree
        for part in inner.split("."):
            node, leaf = node[part], leaf[part]
        node.update(copy.deepcopy(leaf))
    return validate(config)


def parse_override(text: str) -> dict:
    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key.sub=value")
    key, value = text.split("=", 1)
    try:
        parsed = yaml.safe_load(value) if value else ""
    except yaml.YAMLError as err:
        raise ConfigError(f"override {text!r}: value is not valid YAML: {err}") from None
    tree: dict = {}
    node = tree
    parts = key.strip().split(".")
    if not all(parts):
        raise ConfigError(f"override {text!r}: empty key part")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = parsed
    return tree


def load(path: str | Path, overrides=(), resolve_with=None) -> dict:
    """A YAML config resolved with ``overrides`` (by ``resolve``, or ``resolve_with``: the
    RLlib integration's own keys); every error names the file."""
    resolve_with = resolve_with or resolve
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {err}") from None
    try:
        return resolve_with(raw, overrides)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def _proportions(name: str, mapping: dict, keys: tuple[str, ...]) -> None:
    unknown = sorted(set(map(str, mapping)) - set(keys))
    if unknown:
        raise ConfigError(f"{name}: unknown key(s) {', '.join(unknown)}"
                          f"{did_you_mean(unknown[0], keys)}; use {', '.join(keys)}")
    for k, v in mapping.items():
        if (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)
                or v < 0):
            raise ConfigError(f"{name}.{k}={v!r} is not allowed; allowed: a finite "
                              "non-negative number (a proportion)")
    if sum(mapping.values()) <= 0:
        raise ConfigError(f"{name}: the proportions must not all be zero")


# The range of every numeric config value: (low, high, low is excluded). Each is checked
# before anything is created, so a bad value is one line naming the key, not a traceback
# from deep inside a trainer. The PPO keys are those any PPO trainer reads.
MAX_SEED = 2**31 - 1  # seeds + 7919 * session + env rank stay under numpy's 2**32
RANGES: dict[str, tuple[float, float, bool]] = {
    "seed": (0, MAX_SEED, False),
    "total_steps": (1, 10**12, False),
    "cpu_budget": (0, 10**9, False),
    "torch_threads": (1, 256, False),
    "checkpoint_interval": (1, 10**12, False),
    "vec_env.n_envs": (1, 1024, False),
    "ppo.learning_rate": (0.0, 1.0, True),
    "ppo.n_steps": (1, 10**7, False),
    "ppo.batch_size": (2, 10**7, False),  # SB3 normalises advantages over a batch
    "ppo.n_epochs": (1, 1000, False),
    "ppo.gamma": (0.0, 1.0, False),
    "ppo.gae_lambda": (0.0, 1.0, False),
    "ppo.clip_range": (0.0, 1.0, True),
    "ppo.ent_coef": (0.0, 1.0, False),
    "ppo.vf_coef": (0.0, 100.0, False),
    "ppo.max_grad_norm": (0.0, 1e6, True),
    "ppo.target_kl": (0.0, 100.0, False),
    "league.snapshot_interval": (1, 10**12, False),
    "league.max_snapshots": (1, 10**6, False),
    "league.partner_refresh_interval": (1, 10**12, False),
    "league.weighted_power": (0.0, 100.0, False),
    "eval.interval": (1, 10**12, False),
    "eval.games": (0, 10**7, False),
    "imitation.games": (0, 10**7, False),
    "imitation.epochs": (1, 1000, False),
    "imitation.batch_size": (1, 10**7, False),
    "imitation.learning_rate": (0.0, 1.0, True),
    "imitation.vf_coef": (0.0, 100.0, False),
    "imitation.max_grad_norm": (0.0, 1e6, True),
    "vector.num_envs": (1, 1 << 20, False),
    "vector.threads": (1, 256, False),
    "ppo.rollout_steps": (1, 10**6, False),
    "ppo.num_minibatches": (1, 10**6, False),
    "league.active": (1, 10**6, False),
    "league.self_play": (0.0, 1.0, False),
    "ppo.reward_scale": (0.0, 1e6, True),
    "expert.states": (0, 10**7, False),
    "expert.batch": (1, 10**5, False),
    "expert.threads": (1, 256, False),
    "expert.temperature": (0.0, 100.0, False),
    "expert.value_coef": (0.0, 100.0, False),
    "expert.buffer": (1, 10**7, False),
    "expert.epochs": (1, 1000, False),
    "expert.minibatch": (1, 10**7, False),
    "expert.learning_rate": (0.0, 1.0, False),
}
# The keys each trainer has (the rest of RANGES belongs to the other one).
SB3_ONLY = ("vec_env.n_envs", "ppo.n_steps", "ppo.batch_size",
            "league.partner_refresh_interval")
PPO_ONLY = ("vector.", "ppo.rollout_steps", "ppo.num_minibatches", "league.active",
            "league.self_play", "ppo.reward_scale", "expert.", "cpu_budget")
TRAINER_RANGES = {
    "sb3": [k for k in RANGES if not k.startswith(PPO_ONLY)],
    "ppo": [k for k in RANGES if not k.startswith(SB3_ONLY)],
}
MAX_LAYERS, MAX_WIDTH = 16, 8192


def _get(config: dict, key: str):
    node = config
    for part in key.split("."):
        node = node[part]
    return node


def check_ranges(config: dict, keys=RANGES) -> None:
    """Every key of ``keys`` in ``config`` within its range (a finite number)."""
    for key in keys:
        low, high, open_low = RANGES[key]
        value = _get(config, key)
        ok = (not isinstance(value, bool) and isinstance(value, (int, float))
              and math.isfinite(value) and (low < value if open_low else low <= value)
              and value <= high)
        if not ok:
            kind = "an integer" if isinstance(low, int) else "a number"
            lo, hi = (f"{x:,}" if isinstance(x, int) else f"{x:g}" for x in (low, high))
            span = f"greater than {lo} and at most {hi}" if open_low else f"from {lo} to {hi}"
            if not isinstance(value, (int, float)) or not math.isfinite(value):
                need = "a finite number"
            elif value > high:
                need = f"at most {hi}"
            elif low == 0:
                need = "positive" if open_low else "non-negative"
            else:
                need = "positive" if low == 1 else f"at least {lo}"
            raise ConfigError(f"{key} must be {need}, got {value!r}; allowed: {kind} {span}")


def validate(config: dict) -> dict:
    """Check every value of a resolved config (type, range, and what the game accepts);
    ``ConfigError`` names the first bad key and the allowed values. Nothing is created."""
    from catzoo.envs.adapter import REWARDS
    from catzoo.games.base import OptionsError, build_options
    from catzoo.games.registry import UnknownGameError, get_game

    if not config["game"]:
        raise ConfigError("config key 'game' is required (a name from `catzoo list`)")
    try:
        info = get_game(config["game"])
    except UnknownGameError as err:
        raise ConfigError(str(err)) from None
    config["game"] = info.name
    env = config["env"]
    if env["num_players"] == 0:
        env["num_players"] = info.default_players
    if env["num_players"] not in info.players:
        raise ConfigError(
            f"env.num_players={env['num_players']}: {info.name} is played by "
            f"{', '.join(map(str, info.players))} players"
        )
    if env["reward"] not in REWARDS:
        raise ConfigError(f"env.reward={env['reward']!r} is not allowed; allowed: "
                          f"{', '.join(REWARDS)}")
    if "num_players" in env["options"]:
        raise ConfigError("give the player count as env.num_players, not in env.options")
    n = env["num_players"]
    engine = info.engine_class()
    try:
        options = build_options(engine.options_cls, info.name,
                                {"num_players": n, **env["options"]})
    except OptionsError as err:
        raise ConfigError(f"env.options: {err}") from None
    if not config["teams"]:
        # The engine knows its partnerships (GameState.teams): a config that leaves them
        # out must not train a partner as an opponent.
        probe = engine.new(options, seed=0)
        config["teams"] = [list(t) for t in probe.teams() if len(t) > 1]
    seen: set[int] = set()
    for team in config["teams"]:
        if not isinstance(team, list) or not all(
                isinstance(s, int) and not isinstance(s, bool) for s in team):
            raise ConfigError(f"teams: each team must be a list of seat numbers, got {team!r}")
        for s in team:
            if not 0 <= s < n or s in seen:
                raise ConfigError(f"teams: seat {s} is out of range 0..{n - 1} or in two teams")
            seen.add(s)
    check_ranges(config, TRAINER_RANGES[config["trainer"]])
    if config["ppo"].get("zero_sum") and any(len(t) == n for t in config["teams"]):
        raise ConfigError("ppo.zero_sum=true in a game where every seat is one team: each "
                          "seat's margin over its partners is always 0; use false")
    net = config["network"]
    hidden = net["hidden"]
    if (not hidden or len(hidden) > MAX_LAYERS or not all(
            isinstance(h, int) and not isinstance(h, bool) and 0 < h <= MAX_WIDTH
            for h in hidden)):
        raise ConfigError(f"network.hidden={hidden!r} is not allowed; allowed: a list of 1 to "
                          f"{MAX_LAYERS} layer widths, each an integer from 1 to {MAX_WIDTH}")
    if net["activation"] not in ACTIVATIONS:
        raise ConfigError(f"network.activation={net['activation']!r}; use {', '.join(ACTIVATIONS)}")
    league = config["league"]
    if info.heuristic is None and league["mix"].get("heuristic", 0) > 0:
        # A game without a heuristic (its record names none) trains against random and
        # the league: the heuristic's share of the opponents goes to them.
        league["mix"]["heuristic"] = 0
        if sum(v for v in league["mix"].values() if isinstance(v, (int, float))) <= 0:
            raise ConfigError(f"league.mix: {info.name} has no heuristic bot; give the "
                              "league or random a share of the opponents")
    _proportions("league.mix", league["mix"],
                 MIX_KEYS + (("opponent",) if config["trainer"] == "ppo" else ()))
    _proportions("league.scheme", league["scheme"], SCHEME_KEYS)
    if config["trainer"] == "ppo":
        _validate_ppo(config, info)
    else:
        _validate_sb3(config, info)
    return config


def _validate_ppo(config: dict, info) -> None:
    """The batched trainer's keys (catzoo.training.ppo) beyond their ranges."""
    from catzoo.policies.registry import UnknownPolicyError, make_policy

    vec, ppo = config["vector"], config["ppo"]
    if info.heuristic is None:  # the heuristic of a game without one: nothing to evaluate
        config["eval"]["opponents"] = [o for o in config["eval"]["opponents"] if o != "heuristic"]
    if config["network"]["critic"] not in ("separate", "shared"):
        raise ConfigError(f"network.critic={config['network']['critic']!r}; use separate or shared")
    if config["network"]["features"]:
        from catzoo.policies import features

        try:
            features.get(config["network"]["features"], info.name)
        except features.FeatureError as err:
            raise ConfigError(f"network.features: {err}") from None
    if ppo["num_minibatches"] > vec["num_envs"] * ppo["rollout_steps"]:
        raise ConfigError("ppo.num_minibatches must not exceed vector.num_envs * ppo.rollout_steps")
    league = config["league"]
    if (league["mix"].get("opponent", 0) > 0) != bool(league["opponent"]):
        raise ConfigError("league.opponent and league.mix.opponent go together: name the "
                          "frozen opponent and give it a share of the tables, or neither")
    if league["opponent"]:
        try:
            make_policy(league["opponent"], info.name, config["env"]["num_players"], seed=0,
                        env_options=config["env"]["options"])
        except (UnknownPolicyError, ValueError) as err:
            raise ConfigError(f"league.opponent: {err}") from None
    for opp in config["eval"]["opponents"]:
        if not isinstance(opp, str):
            raise ConfigError(f"eval.opponents: {opp!r} is not a policy spec")
        try:
            make_policy(opp, info.name, config["env"]["num_players"], seed=0,
                        env_options=config["env"]["options"])
        except (UnknownPolicyError, ValueError) as err:
            raise ConfigError(f"eval.opponents: {err}") from None
    _validate_teacher(config, info)
    _validate_expert(config, info)
    if config["network"]["init"]:
        _validate_init(config, info)


def _validate_init(config: dict, info) -> None:
    """network.init: a checkpoint of this table whose actor is this network's shape."""
    from catzoo.training.checkpoint import CheckpointError, read_meta

    net, spec = config["network"], config["network"]["init"]
    if config["imitation"]["games"] > 0:
        raise ConfigError("network.init and imitation.games > 0: start from the checkpoint "
                          "or from a clone of the teacher, not both")
    try:
        meta = read_meta(f"shipped:{info.name}" if spec == "shipped" else spec,
                         config["env"]["num_players"])
    except CheckpointError as err:
        raise ConfigError(f"network.init: {err}") from None
    arch = meta["architecture"]
    if (meta["game"] != info.name or list(arch["hidden"]) != list(net["hidden"])
            or arch["activation"] != net["activation"]
            or (meta.get("features") or "") != (net["features"] or "")):
        raise ConfigError(
            f"network.init={spec!r} is a {meta['game']} network of hidden {arch['hidden']}, "
            f"{arch['activation']}, features {meta.get('features')!r}; this run's is "
            f"{info.name}, {net['hidden']}, {net['activation']}, {net['features'] or None!r}")


def _validate_expert(config: dict, info) -> None:
    """expert.*: the search and its options, and values in units the critic shares."""
    ex, ppo = config["expert"], config["ppo"]
    if not ppo["enabled"] and ex["states"] == 0:
        raise ConfigError("ppo.enabled=false with expert.states=0: nothing would train the "
                          "network; label positions (expert.states > 0) or enable PPO")
    if ex["states"] == 0:
        return
    if ex["search"] not in SEARCHES:
        raise ConfigError(f"expert.search={ex['search']!r}; use {', '.join(SEARCHES)}")
    if ex["targets"] not in ("search", "improvement"):
        raise ConfigError(f"expert.targets={ex['targets']!r}; use search or improvement")
    if ex["targets"] == "improvement" and ex["temperature"] <= 0:
        raise ConfigError("expert.targets=improvement needs expert.temperature > 0 (in the "
                          "search values' units)")
    if ex["value_target"] not in ("search", "outcome"):
        raise ConfigError(f"expert.value_target={ex['value_target']!r}; use search or outcome")
    from catzoo.policies.search.options import SearchOptionError, check_options
    from catzoo.policies.search.pimc import OPTIONS

    given = ex["search_options"]
    if "policy" in given:
        raise ConfigError("expert.search_options.policy: the search's policy is the network "
                          "being trained")
    try:
        opts = check_options("expert.search_options", given,
                             {k: v for k, v in OPTIONS.items() if k != "policy"})
    except SearchOptionError as err:
        raise ConfigError(str(err)) from None
    from catzoo import vector

    if opts["playouts"] and not vector.has_core(info.name):
        raise ConfigError(f"expert.search_options.playouts: {info.name} has no compiled core "
                          "to play random playouts in")
    ex["search_options"] = opts
    if (ex["value_coef"] > 0 and ex["value_target"] == "search" and not opts["playouts"]
            and opts["horizon"] == "deal"):
        raise ConfigError("expert.value_target=search needs values in standing units: give "
                          "search_options.playouts > 0 or horizon=end, or use value_target=outcome")
    if ex["value_coef"] > 0 and ppo["enabled"] and (
            config["env"]["reward"] != "standing" or ppo["zero_sum"] or ppo["reward_scale"] != 1):
        raise ConfigError("expert.value_coef > 0 beside PPO needs the critic in standing units "
                          "(env.reward=standing, ppo.zero_sum=false, ppo.reward_scale=1); set "
                          "expert.value_coef=0 to leave the critic to PPO")
    if ex["ray"] and not isinstance(ex["ray"], str):
        raise ConfigError(f"expert.ray={ex['ray']!r}: a Ray address, or local")


def _validate_teacher(config: dict, info) -> None:
    """imitation.teacher, when imitation is on (both trainers)."""
    imitation = config["imitation"]
    if imitation["games"] > 0:
        from catzoo.policies.registry import available_policies, parse_spec

        teachers = [name for name in available_policies(info.name) if name != "random"]
        teacher = imitation["teacher"]
        if not isinstance(teacher, str) or parse_spec(teacher)[0] not in teachers:
            raise ConfigError(
                f"imitation.teacher: {teacher!r} is not a bot of {info.name}; choose one of "
                f"{', '.join(teachers)} (search bots take options, e.g. ismcts:iterations=200)"
            )


def _validate_sb3(config: dict, info) -> None:
    """The stable-baselines3 path's keys (catzoo.training.trainer)."""
    if config["vec_env"]["kind"] not in VEC_KINDS:
        raise ConfigError(f"vec_env.kind={config['vec_env']['kind']!r}; use {', '.join(VEC_KINDS)}")
    ppo = config["ppo"]
    if ppo["batch_size"] > ppo["n_steps"] * config["vec_env"]["n_envs"]:
        raise ConfigError("ppo.batch_size must not exceed ppo.n_steps * vec_env.n_envs")
    for opp in config["eval"]["opponents"]:
        if opp not in ("random", "heuristic"):
            raise ConfigError(f"eval.opponents: {opp!r}; use random and/or heuristic")
    if info.heuristic is None:  # nothing to evaluate against but random
        config["eval"]["opponents"] = [o for o in config["eval"]["opponents"] if o != "heuristic"]
    _validate_teacher(config, info)


# --- run directories: what both trainers write and read back ------------------------------------
MAX_RUN_CONFIG_BYTES = 16 * 2**20  # far above any config; a larger file is refused unread


def new_run_dir(run_dir: str | Path, config: dict, error: type[Exception]) -> Path:
    """Create ``run_dir`` holding ``config.yaml`` (atomically); ``error`` if it exists and
    is not empty."""
    from catzoo.training.checkpoint import atomic_write_text

    run_dir = Path(run_dir)
    if run_dir.exists() and any(run_dir.iterdir()):
        raise error(f"run directory {str(run_dir)!r} already exists and is not empty; "
                    "use --resume to continue it or choose another --run-dir")
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write_text(run_dir / "config.yaml", dump(config))
    return run_dir


def stored_config(run_dir: str | Path, error: type[Exception]) -> dict:
    """A run directory's ``config.yaml``, checked to be a readable mapping of bounded size
    (``error`` names what is wrong); runs made before the batched trainer are SB3's."""
    path = Path(run_dir) / "config.yaml"
    if not path.is_file():
        raise error(f"{str(run_dir)!r} is not a run directory (no config.yaml)")
    if path.stat().st_size > MAX_RUN_CONFIG_BYTES:
        raise error(f"{str(path)!r} is larger than any CatZoo config")
    try:
        stored = yaml.safe_load(path.read_text())
    except yaml.YAMLError as err:
        raise error(f"{str(path)!r} is not valid YAML: {err}") from None
    if not isinstance(stored, dict):
        raise error(f"{str(path)!r} is not a CatZoo config")
    stored.setdefault("trainer", "sb3")
    return stored


def dump(config: dict) -> str:
    return yaml.safe_dump(config, sort_keys=False, default_flow_style=None)
