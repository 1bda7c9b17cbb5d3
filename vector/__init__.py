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
import os
import warnings

import numpy as np

from catzoo.games.base import GameState, OptionsError, build_options
from catzoo.games.chance import next_seed, slot_seeds
from catzoo.games.registry import GAMES, get_game
from catzoo.vector.batch import REWARDS, CompiledBatch, PythonBatch, VectorGame, random_seed
from catzoo.vector.single_agent_env import SingleAgentVectorEnv, single_agent

__all__ = ["REWARDS", "SingleAgentVectorEnv", "VectorGame", "games_with_core", "has_core", "make",
           "next_seed", "options_of", "single_agent", "slot_seeds"]


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
    splitting the slots (compiled cores only; any thread count plays the same games; more
    than this process may run on are capped to them, with a warning). Integer arguments
    may be numpy integers.
    """
    a = checked_arguments(game, num_envs, num_players, seed, reward, threads, options)
    if has_core(a.game):
        return CompiledBatch(a.game, a.state_cls, a.options, a.num_envs, reward, a.threads, a.seed)
    return PythonBatch(a.game, a.state_cls, a.options, a.num_envs, reward, a.threads, a.seed)


@dataclasses.dataclass(frozen=True)
class Arguments:
    """What ``make`` and ``single_agent`` were asked for, checked: the game's name, its
    engine class and options object, N, the thread count (capped) and the seed."""

    game: str
    state_cls: type[GameState]
    options: object
    num_envs: int
    threads: int
    seed: int


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # no affinity masks (macOS, Windows)
        return os.cpu_count() or 1


def checked_arguments(game, num_envs, num_players, seed, reward, threads,
                      options: dict) -> Arguments:
    """The checks ``make`` and ``single_agent`` share; each bad value is an
    ``OptionsError`` naming it."""
    info = get_game(game)  # unknown games: the registry's message
    name = info.name
    state_cls = info.engine_class()
    if reward not in REWARDS:
        raise OptionsError(f"{name}: reward={reward!r}; choose one of {', '.join(REWARDS)}")
    if not is_int(num_envs) or num_envs < 1:
        raise OptionsError(f"{name}: num_envs={num_envs!r} must be an int >= 1")
    if not is_int(threads) or threads < 1:
        raise OptionsError(f"{name}: threads={threads!r} must be an int >= 1")
    threads = int(threads)
    if threads > 1 and not has_core(name):
        raise OptionsError(f"{name} has no compiled core: its Python engine steps the slots "
                           f"in one thread; threads={threads} needs a core "
                           f"(games with one: {', '.join(games_with_core()) or 'none'})")
    cores = usable_cores()
    if threads > cores:
        # More OpenMP threads than CPUs only take turns on them (and spinning ones wait for
        # each other): the same games, slower. A cap keeps configs written for bigger
        # machines running.
        warnings.warn(f"{name}: threads={threads} is more than the {cores} CPU(s) this "
                      f"process may use; using {cores}", RuntimeWarning, stacklevel=3)
        threads = cores
    if num_players is not None:
        options["num_players"] = num_players
    game_options = build_options(state_cls.options_cls, name, options)
    seed = random_seed() if seed is None else seed
    if not is_int(seed) or seed < 0:
        raise OptionsError(f"{name}: seed={seed!r} must be a non-negative int or None")
    return Arguments(name, state_cls, game_options, int(num_envs), threads, int(seed))


def is_int(value) -> bool:
    """An integer, Python's or numpy's, but not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def options_of(vg: VectorGame) -> dict:
    """The game options of ``vg`` as keyword arguments (for the AEC env or ``make``)."""
    return dataclasses.asdict(vg.options)
