"""Training configuration: one YAML per game, merged over ``DEFAULTS`` key by key.

Every key of a config must exist in ``DEFAULTS`` (a typo is an error naming the key and
the known ones), and every value must have the default's type, so that a run directory's
``config.yaml`` is the complete, resolved description of how a policy was trained.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml

from catzoo.games.suggest import did_you_mean


class ConfigError(ValueError):
    """A configuration file or override that cannot be used, with the reason."""


DEFAULTS: dict[str, Any] = {
    "game": "",
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
    # Behaviour cloning of a bot (the teacher) before PPO (catzoo.training.imitation).
    "imitation": {
        "games": 0,  # games with the teacher at every seat, whose decisions are imitated; 0: off
        "teacher": "heuristic",  # the bot cloned: a bot of the game or a search bot (with options)
        "epochs": 4,
        "batch_size": 256,
        "learning_rate": 1.0e-3,
        "vf_coef": 0.5,  # weight of the critic's loss on the demonstrations' returns
        "max_grad_norm": 0.5,
    },
}

VEC_KINDS = ("dummy", "subproc")
ACTIVATIONS = ("tanh", "relu")
MIX_KEYS = ("league", "heuristic", "random")
SCHEME_KEYS = ("latest", "uniform", "weighted")


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
        if name in ("env.options", "league.mix", "league.scheme"):
            if not isinstance(value, dict):
                raise ConfigError(f"{name} must be a mapping, got {value!r}")
            out[key] = copy.deepcopy(value)
        elif isinstance(default, dict):
            out[key] = _merge(default, value, name)
        else:
            out[key] = _check_type(name, default, value)
    return out


def _check_type(name: str, default, value):
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, float):
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
    """``DEFAULTS`` <- ``raw`` <- ``overrides`` (``key.sub=value``, value parsed as YAML)."""
    config = _merge(DEFAULTS, raw, "")
    for text in overrides:
        config = _merge(config, parse_override(text), "")
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


def load(path: str | Path, overrides=()) -> dict:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {str(path)!r} does not exist")
    try:
        raw = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as err:
        raise ConfigError(f"config file {str(path)!r} is not valid YAML: {err}") from None
    try:
        return resolve(raw, overrides)
    except ConfigError as err:
        raise ConfigError(f"{path}: {err}") from None


def _proportions(name: str, mapping: dict, keys: tuple[str, ...]) -> None:
    unknown = sorted(set(mapping) - set(keys))
    if unknown:
        raise ConfigError(f"{name}: unknown key(s) {', '.join(unknown)}"
                          f"{did_you_mean(unknown[0], keys)}; use {', '.join(keys)}")
    for k, v in mapping.items():
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
            raise ConfigError(f"{name}.{k} must be a non-negative number, got {v!r}")
    if sum(mapping.values()) <= 0:
        raise ConfigError(f"{name}: the proportions must not all be zero")


def validate(config: dict) -> dict:
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
    if "num_players" in env["options"]:
        raise ConfigError("give the player count as env.num_players, not in env.options")
    n = env["num_players"]
    if not config["teams"]:
        # The engine knows its partnerships (GameState.teams): a config that leaves them
        # out must not train a partner as an opponent.
        probe = info.engine_class().new(seed=0, num_players=n, **env["options"])
        config["teams"] = [list(t) for t in probe.teams() if len(t) > 1]
    seen: set[int] = set()
    for team in config["teams"]:
        if not isinstance(team, list) or not all(isinstance(s, int) for s in team):
            raise ConfigError(f"teams: each team must be a list of seat numbers, got {team!r}")
        for s in team:
            if not 0 <= s < n or s in seen:
                raise ConfigError(f"teams: seat {s} is out of range 0..{n - 1} or in two teams")
            seen.add(s)
    for key in ("total_steps", "checkpoint_interval", "torch_threads"):
        if config[key] <= 0:
            raise ConfigError(f"{key} must be positive, got {config[key]}")
    if config["vec_env"]["kind"] not in VEC_KINDS:
        raise ConfigError(f"vec_env.kind={config['vec_env']['kind']!r}; use {', '.join(VEC_KINDS)}")
    if config["vec_env"]["n_envs"] <= 0:
        raise ConfigError("vec_env.n_envs must be positive")
    net = config["network"]
    if not net["hidden"] or not all(isinstance(h, int) and h > 0 for h in net["hidden"]):
        raise ConfigError(f"network.hidden must be a list of positive ints, got {net['hidden']!r}")
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
    _proportions("league.mix", league["mix"], MIX_KEYS)
    _proportions("league.scheme", league["scheme"], SCHEME_KEYS)
    for key in ("snapshot_interval", "max_snapshots", "partner_refresh_interval"):
        if league[key] <= 0:
            raise ConfigError(f"league.{key} must be positive, got {league[key]}")
    ppo = config["ppo"]
    if ppo["batch_size"] > ppo["n_steps"] * config["vec_env"]["n_envs"]:
        raise ConfigError("ppo.batch_size must not exceed ppo.n_steps * vec_env.n_envs")
    if config["eval"]["interval"] <= 0 or config["eval"]["games"] < 0:
        raise ConfigError("eval.interval must be positive and eval.games non-negative")
    for opp in config["eval"]["opponents"]:
        if opp not in ("random", "heuristic"):
            raise ConfigError(f"eval.opponents: {opp!r}; use random and/or heuristic")
    if info.heuristic is None:  # nothing to evaluate against but random
        config["eval"]["opponents"] = [o for o in config["eval"]["opponents"] if o != "heuristic"]
    imitation = config["imitation"]
    if imitation["games"] < 0:
        raise ConfigError(f"imitation.games must be non-negative, got {imitation['games']}")
    for key in ("epochs", "batch_size", "learning_rate", "max_grad_norm"):
        if imitation[key] <= 0:
            raise ConfigError(f"imitation.{key} must be positive, got {imitation[key]}")
    if imitation["vf_coef"] < 0:
        raise ConfigError(f"imitation.vf_coef must be non-negative, got {imitation['vf_coef']}")
    if imitation["games"] > 0:
        from catzoo.policies.registry import available_policies, parse_spec

        teachers = [name for name in available_policies(info.name) if name != "random"]
        teacher = imitation["teacher"]
        if not isinstance(teacher, str) or parse_spec(teacher)[0] not in teachers:
            raise ConfigError(
                f"imitation.teacher: {teacher!r} is not a bot of {info.name}; choose one of "
                f"{', '.join(teachers)} (search bots take options, e.g. ismcts:iterations=200)"
            )
    return config


def dump(config: dict) -> str:
    return yaml.safe_dump(config, sort_keys=False, default_flow_style=None)
