"""Policies by spec: ``make_policy("heuristic", "cat_in_the_box", num_players=4)``.

A spec is one of:

* ``random``, or a bot registered for the game below (``heuristic``);
* a search bot with optional ``key=value`` options after a colon, comma-separated:
  ``ismcts``, ``ismcts:iterations=400,c=1.4``, ``planner:candidates=16,samples=4``;
* a filesystem path to a checkpoint directory, loaded by ``catzoo.training.load_policy``.
"""

from __future__ import annotations

import importlib
import os

from catzoo.games.registry import PLANNED, get_game
from catzoo.policies.random_policy import RandomPolicy

# game -> bot name -> "module:Class", from each game's record (GameInfo.bots); the class
# is built as Class(num_players=..., seed=...).
HEURISTICS: dict[str, dict[str, str]] = {name: dict(info.bots) for name, info in PLANNED.items()}

# Bots for every game, built as Class(num_players=..., seed=..., **options).
SEARCH: dict[str, str] = {
    "ismcts": "catzoo.policies.search.ismcts:ISMCTSPolicy",
    "planner": "catzoo.policies.search.planner:PlannerPolicy",
}


class UnknownPolicyError(ValueError):
    pass


def available_policies(game: str) -> list[str]:
    info = get_game(game)
    return ["random", *sorted(info.bots), *SEARCH]


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"ismcts:iterations=200,c=1"`` -> ``("ismcts", {"iterations": "200", "c": "1"})``."""
    name, _, rest = spec.partition(":")
    options = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise UnknownPolicyError(
                f"policy spec {spec!r}: option {item!r} must look like key=value "
                "(options are comma-separated after a colon, e.g. ismcts:iterations=200)"
            )
        options[key.strip()] = value.strip()
    return name.strip(), options


def is_checkpoint_spec(spec: str) -> bool:
    return os.sep in spec or "/" in spec or spec.startswith(".") or os.path.exists(spec)


def make_policy(spec: str, game: str, num_players: int, seed: int | None = None,
                env_options: dict | None = None):
    """The policy of ``spec``; a checkpoint must have been trained for ``game`` and
    ``num_players`` and, when given, ``env_options`` (``load_policy`` compares them)."""
    info = get_game(game)
    bots = info.bots
    head = spec.partition(":")[0].strip()
    # A bot name wins over a file of the same name in the working directory.
    if head not in bots and head not in SEARCH and head != "random" and is_checkpoint_spec(spec):
        return load_checkpoint(spec, info.name, num_players, seed, env_options)
    name, options = parse_spec(spec)
    if name == "random" and not options:
        return RandomPolicy(seed)
    if name in SEARCH:
        from catzoo.policies.search.options import SearchOptionError

        module, cls = SEARCH[name].split(":")
        try:
            policy = getattr(importlib.import_module(module), cls)(
                num_players=num_players, seed=seed, **options)
        except SearchOptionError as err:
            raise UnknownPolicyError(f"policy {spec!r}: {err}") from None
        policy.name = spec
        return policy
    if name in bots or name == "random":
        if options:
            raise UnknownPolicyError(f"policy {name!r} takes no options, got {spec!r}")
        module, cls = bots[name].split(":")
        return getattr(importlib.import_module(module), cls)(num_players=num_players, seed=seed)
    raise UnknownPolicyError(
        f"unknown policy {spec!r} for {info.name}; available: "
        f"{', '.join(available_policies(info.name))}, or a checkpoint directory path"
    )


def load_checkpoint(path: str, game: str, num_players: int, seed: int | None = None,
                    env_options: dict | None = None):
    if not os.path.exists(path):
        raise UnknownPolicyError(
            f"policy {path!r} looks like a checkpoint path, but no such file or directory exists"
        )
    try:
        training = importlib.import_module("catzoo.training")
        load_policy = training.load_policy
    except (ImportError, AttributeError) as err:
        raise UnknownPolicyError(
            f"cannot load checkpoint {path!r}: catzoo.training.load_policy is not available "
            f"({err}); install the training extra: pip install 'catzoo[train]'"
        ) from None
    failures = (OSError, ValueError, KeyError, getattr(training, "CheckpointError", OSError))
    try:
        # The game and player count are checked against the checkpoint's own.
        policy = load_policy(path, game=game, num_players=num_players, seed=seed,
                             env_options=env_options)
    except failures as err:
        raise UnknownPolicyError(f"{path!r} is not a loadable checkpoint: {err}") from None
    if not getattr(policy, "name", None) or policy.name == "policy":
        policy.name = path
    return policy
