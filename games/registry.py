"""The games CatZoo knows: one record per game, from which every other list is derived.

A record names the game's engine and env module, and where the rest of CatZoo finds its
part of the game: its bots (the heuristic), its seat view (terminal and web), its
browser renderer, the options of a quick game (tests), its default training config.
``games`` imports none of those (rules apart from bots and tables): they are dotted
names and paths, resolved lazily by their consumers (``catzoo.policies.registry``,
``catzoo.play.views``, ``catzoo.web.app``, the tests). ``by_convention`` gives those parts
the names every game's follow, so a record states only what is the game's own.
``docs/adding_a_game.md`` lists the files a new game needs, in order.

Engines are imported lazily so listing the games costs nothing.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

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
    # Bots written for this game: name -> "module:Class", built as Class(num_players=...,
    # seed=...). "heuristic" is the game's heuristic, which training and evaluation play
    # against; a game without one trains against random and the league.
    bots: Mapping[str, str] = field(default_factory=dict, hash=False)
    view: str | None = None  # seat view module (board, moves, rich); None: the generic one
    renderer: str | None = None  # the browser's drawing script, a path under web/static/
    # Options of a short game, for tests that play whole games (a round, fewer turns).
    quick_options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    config: str | None = None  # the default training config, a path in the repository
    search_bot: str = "ismcts"  # the search bot that suits the game (the leaderboard's)

    def __post_init__(self):
        # read-only: a record is shared by every consumer
        object.__setattr__(self, "bots", MappingProxyType(dict(self.bots)))
        object.__setattr__(self, "quick_options", MappingProxyType(dict(self.quick_options)))

    @property
    def heuristic(self) -> str | None:
        """The game's heuristic bot ("module:Class"), or None."""
        return self.bots.get("heuristic")

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


def by_convention(name: str, title: str, **fields) -> GameInfo:
    """The record of ``name`` whose parts have the names CatZoo gives them: the engine
    ``games/<name>/state.py:<Name>State``, the env module ``envs/<name>_v0.py``, the
    heuristic ``policies/heuristics/<name>.py:<Name>Heuristic``, the seat view
    ``play/views/<name>.py``, the browser renderer ``games/<name>.js`` and the config
    ``configs/<name>.yaml`` (``<Name>``: the name in CamelCase). ``fields`` gives the rest
    and may name any part otherwise."""
    stem = "".join(word.capitalize() for word in name.split("_"))
    parts = {
        "engine": f"catzoo.games.{name}.state:{stem}State",
        "env_module": f"catzoo.envs.{name}_v0",
        "bots": {"heuristic": f"catzoo.policies.heuristics.{name}:{stem}Heuristic"},
        "view": f"catzoo.play.views.{name}",
        "renderer": f"games/{name}.js",
        "config": f"configs/{name}.yaml",
    }
    return GameInfo(name=name, title=title, **{**parts, **fields})


register_game(by_convention(
    "cat_in_the_box", "Cat in the Box", players=(2, 3, 4, 5), default_players=4,
    kind="trick-taking with declared colours, predictions and paradox",
    variants="predictions=1-3|1-4|0-4, row_order, rounds=full|single; 2 players: the 2-player game",
    quick_options={"rounds": "single"},
))
register_game(by_convention(
    "lunar", "Lunar", players=(2, 4), default_players=4,
    kind="team trick-taking: suit cards and rank cards combine",
    variants="4 players in partnerships; 2 players: the sky game",
    quick_options={"rounds": "single"},
))
register_game(by_convention(
    "catsle_builders", "CATsle Builders", players=(3, 4, 5), default_players=4,
    kind="trick-taking where won cards build a scored tableau",
    variants="hand sizes, taking counts, column limits and perfect bonus as options",
    quick_options={"rounds": "single", "hand_size": 6},
))
register_game(by_convention(
    "cat_tree", "Cat Tree? We can handle this!", players=(2,), default_players=2,
    kind="cooperative grid building with hidden simultaneous picks",
    variants="grid size, altitude base, placing order",
    quick_options={"turns": 4},
))
register_game(by_convention(
    "ledges", "Cats Knocking Things Off Ledges", players=(2, 3, 4), default_players=2,
    kind="dexterity on a MuJoCo physics engine: build a tower, bat toys off ledges",
    variants="dexterity noise (0 for planning research)",
    bots={"heuristic": "catzoo.policies.heuristics.ledges:LedgesHeuristic",
          "aimer": "catzoo.policies.heuristics.ledges_aimer:LedgesAimer",
          "lookahead": "catzoo.policies.heuristics.ledges_lookahead:LedgesLookahead"},
    quick_options={"max_rounds": 1},
    search_bot="planner",
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
