"""The batched engine: N games of one CatZoo game stepped per call (docs/vector.md).

    from catzoo import vector
    vg = vector.make("cat_in_the_box", num_envs=1024, num_players=4, seed=0)
    obs, mask, player = vg.reset()           # float32 [N, D], int8 [N, A], int32 [N]
    obs, mask, player, rewards, done = vg.step(actions)   # actions: int [N]

A game with a compiled core (``catzoo.games.<game>.core``: the card games) is stepped in C,
all N games in one call with the GIL released, over ``threads`` OpenMP threads; any other
game (Cats Knocking Things Off Ledges) steps its Python engine in a loop behind the same
interface. Either way slot i plays exactly the game the AEC env plays from the same seed:
the same deal, observations, masks, rewards and scores.

Seeds. Slot i's first game is dealt from ``slot_seeds(seed, num_envs)[i]``: output i of
SplitMix64 seeded with ``seed``, masked to 63 bits. When a slot's game ends it is dealt its
next game at once, from ``next_seed(s)`` of the ended game's seed ``s``: the first output of
SplitMix64 seeded with ``s``, masked to 63 bits. ``vg.seeds`` holds each slot's current game
seed, so ``env.reset(seed=int(vg.seeds[i]))`` (or ``State.new(options, seed=...)``) replays
slot i's game.

Arrays. ``reset`` and ``step`` return read-only views of buffers allocated once and
overwritten by the next ``reset``/``step`` (as PufferLib's): copy what you keep.
"""

from __future__ import annotations

import dataclasses

from catzoo.games.base import OptionsError, build_options
from catzoo.games.chance import next_seed, slot_seeds
from catzoo.games.registry import GAMES, get_game
from catzoo.vector.batch import REWARDS, CoreBatch, PythonBatch, VectorGame, random_seed

__all__ = ["REWARDS", "VectorGame", "games_with_core", "has_core", "make", "next_seed",
           "options_of", "slot_seeds"]


def has_core(game: str) -> bool:
    """Whether ``game`` has a compiled core (``catzoo.games.<game>.core``) that its
    engine runs on, so that ``make`` steps it in C."""
    info = get_game(game)
    state_cls = info.engine_class()
    module = getattr(state_cls, "core_module", None)
    return module is not None and hasattr(module, "BatchCore")


def games_with_core() -> list[str]:
    """The games ``make`` steps in C."""
    return [name for name in GAMES if has_core(name)]


def make(game: str, num_envs: int = 1024, num_players: int | None = None, seed: int | None = 0,
         reward: str = "standing", threads: int = 1, **options) -> VectorGame:
    """N games of ``game`` stepped together.

    ``num_envs``: the number of slots N (>= 1). ``num_players``: the game's player count
    (None: its options' default); ``**options``: the game's other options, checked as the
    AEC env checks them. ``seed``: the slots' first seeds come from it (see the module
    docstring; None: a random one). ``reward``: "standing" (each seat's result of the final
    standing on the step that ends a game, 0 before) or "score" (each step's change of
    each seat's game score), as the AEC env's reward modes. ``threads``: OpenMP threads
    splitting the slots (compiled cores only; any thread count plays the same games).
    """
    info = get_game(game)  # unknown games: the registry's message
    name = info.name
    state_cls = info.engine_class()
    if reward not in REWARDS:
        raise OptionsError(f"{name}: reward={reward!r}; choose one of {', '.join(REWARDS)}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise OptionsError(f"{name}: num_envs={num_envs!r} must be an int >= 1")
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise OptionsError(f"{name}: threads={threads!r} must be an int >= 1")
    if num_players is not None:
        options["num_players"] = num_players
    game_options = build_options(state_cls.options_cls, name, options)
    seed = random_seed() if seed is None else seed
    if isinstance(seed, bool) or not hasattr(seed, "__index__") or seed < 0:
        raise OptionsError(f"{name}: seed={seed!r} must be a non-negative int or None")
    if has_core(name):
        return CoreBatch(name, state_cls, game_options, num_envs, reward, threads, int(seed))
    if threads != 1:
        raise OptionsError(f"{name} has no compiled core: its Python engine steps the slots "
                           f"in one thread; threads={threads} needs a core "
                           f"(games with one: {', '.join(games_with_core()) or 'none'})")
    return PythonBatch(name, state_cls, game_options, num_envs, reward, threads, int(seed))


def options_of(vg: VectorGame) -> dict:
    """The game options of ``vg`` as keyword arguments (for the AEC env or ``make``)."""
    return dataclasses.asdict(vg.options)
