"""Policies by name: ``make_policy("heuristic", "cat_in_the_box", num_players=4)``.

Each game registers its bots here (at least "random" and "heuristic"); later tools add
search bots and checkpoints behind the same call.
"""

from __future__ import annotations

import importlib

from catzoo.games.registry import get_game
from catzoo.policies.random_policy import RandomPolicy

# game -> bot name -> "module:Class"; the class is built as Class(num_players=..., seed=...)
HEURISTICS: dict[str, dict[str, str]] = {
    "cat_in_the_box": {
        "heuristic": "catzoo.policies.heuristics.cat_in_the_box:CatInTheBoxHeuristic",
    },
    "lunar": {"heuristic": "catzoo.policies.heuristics.lunar:LunarHeuristic"},
    "catsle_builders": {
        "heuristic": "catzoo.policies.heuristics.catsle_builders:CatsleBuildersHeuristic",
    },
    "cat_tree": {"heuristic": "catzoo.policies.heuristics.cat_tree:CatTreeHeuristic"},
    "ledges": {"heuristic": "catzoo.policies.heuristics.ledges:LedgesHeuristic"},
}


class UnknownPolicyError(ValueError):
    pass


def available_policies(game: str) -> list[str]:
    info = get_game(game)
    return ["random", *sorted(HEURISTICS.get(info.name, {}))]


def make_policy(spec: str, game: str, num_players: int, seed: int | None = None):
    info = get_game(game)
    if spec == "random":
        return RandomPolicy(seed)
    bots = HEURISTICS.get(info.name, {})
    if spec not in bots:
        raise UnknownPolicyError(
            f"unknown policy {spec!r} for {info.name}; available: "
            f"{', '.join(available_policies(info.name))}"
        )
    module, cls = bots[spec].split(":")
    return getattr(importlib.import_module(module), cls)(num_players=num_players, seed=seed)
