"""Registers every CatZoo env with PettingZoo's registry on ``import catzoo.envs``, so
``pettingzoo.make("aec", "catzoo/cat_in_the_box-v0", num_players=3)`` works."""

from __future__ import annotations

import pettingzoo

from catzoo.games.registry import GAMES


def env_id(game: str, version: int = 0) -> str:
    return f"catzoo/{game}-v{version}"


def register_all() -> None:
    for info in GAMES.values():
        name = env_id(info.name)
        if name not in pettingzoo.aec_registry:
            pettingzoo.register("aec", name, entry_point=f"{info.env_module}:env")
