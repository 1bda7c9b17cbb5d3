"""The games CatZoo knows: names, titles, player counts, engines and env modules.

Engines are imported lazily so listing the games costs nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from dataclasses import dataclass

from catzoo.games.suggest import did_you_mean


@dataclass(frozen=True)
class GameInfo:
    name: str
    title: str
    kind: str
    players: tuple[int, ...]
    default_players: int
    engine: str  # "module:Class"
    env_module: str
    variants: str

    def engine_class(self):
        module, cls = self.engine.split(":")
        return getattr(importlib.import_module(module), cls)

    def load_env_module(self):
        return importlib.import_module(self.env_module)

    def installed(self) -> bool:
        """Whether the env module is present, found without importing ``catzoo.envs``
        (whose import registers the envs listed here, so must come after this list)."""
        package, _, module = self.env_module.rpartition(".")
        spec = importlib.util.find_spec(package)
        return spec is not None and any(
            os.path.exists(os.path.join(folder, module + ".py"))
            for folder in spec.submodule_search_locations or ()
        )


# Every game CatZoo plans; ``GAMES`` holds those whose env module is present.
PLANNED: dict[str, GameInfo] = {}
GAMES: dict[str, GameInfo] = {}


def register_game(info: GameInfo) -> None:
    PLANNED[info.name] = info
    if info.installed():
        GAMES[info.name] = info


register_game(GameInfo(
    name="cat_in_the_box",
    title="Cat in the Box",
    kind="trick-taking with declared colours, predictions and paradox",
    players=(2, 3, 4, 5),
    default_players=4,
    engine="catzoo.games.cat_in_the_box.state:CatInTheBoxState",
    env_module="catzoo.envs.cat_in_the_box_v0",
    variants="predictions=1-3|1-4|0-4, row_order, rounds=full|single; 2 players: the 2-player game",
))
register_game(GameInfo(
    name="lunar",
    title="Lunar",
    kind="team trick-taking: suit cards and rank cards combine",
    players=(2, 4),
    default_players=4,
    engine="catzoo.games.lunar.state:LunarState",
    env_module="catzoo.envs.lunar_v0",
    variants="4 players in partnerships; 2 players: the sky game",
))
register_game(GameInfo(
    name="catsle_builders",
    title="CATsle Builders",
    kind="trick-taking where won cards build a scored tableau",
    players=(3, 4, 5),
    default_players=4,
    engine="catzoo.games.catsle_builders.state:CatsleBuildersState",
    env_module="catzoo.envs.catsle_builders_v0",
    variants="hand sizes, taking counts, column limits and perfect bonus as options",
))
register_game(GameInfo(
    name="cat_tree",
    title="Cat Tree? We can handle this!",
    kind="cooperative grid building with hidden simultaneous picks",
    players=(2,),
    default_players=2,
    engine="catzoo.games.cat_tree.state:CatTreeState",
    env_module="catzoo.envs.cat_tree_v0",
    variants="grid size, altitude base, placing order",
))
register_game(GameInfo(
    name="ledges",
    title="Cats Knocking Things Off Ledges",
    kind="dexterity on a MuJoCo physics engine: build a tower, bat toys off ledges",
    players=(2, 3, 4),
    default_players=2,
    engine="catzoo.games.ledges.state:LedgesState",
    env_module="catzoo.envs.ledges_v0",
    variants="dexterity noise (0 for planning research)",
))


class UnknownGameError(KeyError):
    def __str__(self) -> str:
        return self.args[0]


def get_game(name: str) -> GameInfo:
    key = name.replace("-", "_")
    if key not in GAMES:
        raise UnknownGameError(
            f"unknown game {name!r}{did_you_mean(key, GAMES)}; known games: "
            f"{', '.join(sorted(GAMES))}"
        )
    return GAMES[key]
