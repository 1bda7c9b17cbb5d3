"""What the engines whose whole game is one compiled core share.

A compiled core (``games/<game>/core.pyx``, built as ``catzoo.games.<game>.core``; the
contract is in games/batch.pxi and docs/vector.md) holds the whole game in C. The Python
state, a ``CompiledState`` subclass, owns one ``Core`` of it at ``self._core`` and keeps
what is not per step: options, the action log (``history``), the chance record
(``chance``), text, and the search bots' re-sampling (through the core's setters).

A core module provides, besides the C interface of batch.pxi:

* ``make_config(options) -> CoreConfig`` (this module caches one per options), whose
  ``options`` attribute is the options object it was built from;
* ``Core.new(config, seed, pinned) -> Core``: a new game, its generator seeded as
  ``random.Random(seed)`` is (``seed`` any int), the first ``len(pinned)`` chance outcomes
  taken from ``pinned`` (validated there) before the generator deals;
* on a ``Core``: ``apply(action) -> events`` (core_common.pxi's ``CoreEvent`` bits:
  ``GAME_OVER`` 1, ``DEALT`` 2), ``current_player`` (-1 once over), ``legal`` (a bit set
  over the actions), ``refresh_legal()``, ``observe(player)`` (a new float32 array),
  ``scores()``, ``standing_keys()``, ``returns()``, ``deal`` (the chance outcome last
  drawn, as the chance record holds it), ``copy()``, ``reseed(seed)``, ``mt_state`` (get
  and set, as ``random.Random.getstate()[1]``), the buffer protocol over the master
  feature vector (read-only float32), and pickling.

A subclass sets ``core_module`` (the compiled module), ``game_name``, ``options_cls``,
``num_actions``, and implements ``_setup`` (its Python attributes: ``num_players``,
``observation_size``...); ``_on_deal`` runs after each chance outcome is recorded. A game
whose core's ``game_returns`` is not ``GameState.returns``' rule over its standing keys
(team play, a cooperative game) sets ``generic_standing = False`` (tests/test_vector.py
holds the others to that rule).
"""

from __future__ import annotations

import copy
import importlib
import random
from functools import lru_cache
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from catzoo.games.base import GameState, OptionsError, build_options, check_seed


def _plain(value):
    """``value`` with numpy arrays as tuples and numpy scalars as Python ones: a deck
    pinned as an array of ``np.int64`` is the deck of those ints, and the chance record
    must hold what JSON (the action log) can write."""
    if isinstance(value, np.ndarray):
        return tuple(_plain(v) for v in value.tolist())
    if isinstance(value, np.generic):
        return value.item()  # np.bool_ becomes bool, which the checks still refuse
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return value


def _listed(value):
    """Tuples as lists, as in the JSON logs the games' log checks read."""
    if isinstance(value, (list, tuple)):
        return [_listed(v) for v in value]
    return value


@lru_cache(maxsize=256)
def core_config(module: ModuleType, options):
    """The core's ``CoreConfig`` for these options, built once (options are frozen)."""
    return module.make_config(options)


class CompiledState(GameState):
    core_module: ClassVar[ModuleType]
    generic_standing: ClassVar[bool] = True
    _core: Any
    # lists of the game that a copy must not share with the original; what they hold is
    # never changed in place
    _game_lists: ClassVar[tuple[str, ...]] = ("chance", "history")

    @classmethod
    def new(cls, options=None, seed: int | None = None, chance: list | tuple | None = None,
            **kwargs):
        """A new game (see ``GameState.new``): ``seed`` a non-negative int (or None: a seed
        drawn from the system's entropy, as ``random.Random(None)`` would); pinned chance
        outcomes checked by the game's ``log_check.check_chance`` first."""
        if options is None:
            options = build_options(cls.options_cls, cls.game_name, kwargs)
        elif kwargs:
            raise OptionsError("pass either an options object or keyword options, not both")
        seed = check_seed(seed, f"{cls.game_name}: seed")
        pinned = [_plain(c) for c in chance] if chance is not None else []
        if pinned:
            # the rules of a chance outcome are the game's log checks (ReplayError names
            # the field); the core guards its C arrays again before copying them in
            checks = importlib.import_module(f"catzoo.games.{cls.game_name}.log_check")
            checks.check_chance(options, _listed(pinned))
        state = cls.__new__(cls)
        state.options = options
        state.seed = seed
        state._pinned_chance = pinned
        game_seed = random.SystemRandom().getrandbits(64) if seed is None else seed
        state._use_core(cls.core_module.Core.new(core_config(cls.core_module, options),
                                                 game_seed, pinned))
        state.chance = []
        state.history = []
        state._setup()
        state._record_chance()
        return state

    @classmethod
    def _from_core(cls, core) -> CompiledState:
        """A state around ``core`` (a copy of a batch slot's game, say) without its
        history: for text, rendering and inspection, not for replay."""
        state = cls.__new__(cls)
        state.options = core.config.options
        state.seed = None
        state._pinned_chance = []
        state._use_core(core)
        state.chance = []
        state.history = []
        state._setup()
        return state

    def _setup(self) -> None:
        raise NotImplementedError

    def _use_core(self, core) -> None:
        self._core = core
        self.master = np.frombuffer(core, np.float32)  # a read-only view of the core's
        self.current_player = core.current_player
        self._legal = core.legal

    def _record_chance(self) -> None:
        """Record the chance outcome just drawn (the pinned one if it was pinned)."""
        index = len(self.chance)
        pinned = self._pinned_chance
        self.chance.append(pinned[index] if index < len(pinned) else self._core.deal)
        self._on_deal()

    def _on_deal(self) -> None:
        pass

    # --- the game --------------------------------------------------------------------
    _dealt: ClassVar[int] = 0  # the core's DEALT event bit

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "core_module" in cls.__dict__:
            cls._dealt = int(cls.core_module.CoreEvent.DEALT)

    def apply_unchecked(self, action: int) -> None:
        self.history.append(action)
        core = self._core
        events = core.apply(action)
        self.current_player = core.current_player
        self._legal = core.legal
        if events & self._dealt:
            self._record_chance()

    def _compute_legal(self) -> int:
        self._core.refresh_legal()
        return self._core.legal

    def scores(self) -> list[float]:
        return self._core.scores()

    def standing_keys(self) -> list[tuple]:
        return self._core.standing_keys()

    def returns(self) -> np.ndarray:
        return np.array(self._core.returns(), dtype=np.float64)

    def observation(self, player: int) -> np.ndarray:
        return self._core.observe(player)

    def playout_returns(self, seed: int, limit: int | None = None,
                        moves: list | None = None) -> np.ndarray:
        """``returns()`` after uniformly random legal moves to the end of the game (or
        ``limit`` moves), played in C on a copy: this state is unchanged. ``seed`` fixes
        the moves (``moves`` receives them); later deals come from this state's
        generator (``rng``)."""
        return np.array(self.core_module.playout_returns(
            self._core, seed, -1 if limit is None else limit, moves), dtype=np.float64)

    def state_vector(self) -> np.ndarray:
        return self.master.copy()

    # --- the generator: the core's, seen as a random.Random -------------------------------
    @property
    def rng(self) -> random.Random:
        """A copy of the core's generator (later deals come from the core's own); setting
        a ``random.Random`` makes the core deal on from that generator's state."""
        rng = random.Random()
        rng.setstate((3, self._core.mt_state, None))
        return rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        self._core.mt_state = rng.getstate()[1]

    # --- copies ------------------------------------------------------------------------
    def clone(self):
        return self._copy()

    def _copy(self, seed: int | None = None):
        """A copy; with ``seed`` its later deals come from a generator seeded with it
        (``resample`` gives it a fresh one: later deals must not be foreseeable)."""
        c = copy.copy(self)
        core = self._core.copy()
        if seed is not None:
            core.reseed(seed)
        c._use_core(core)
        for name in self._game_lists:
            setattr(c, name, list(getattr(self, name)))
        return c

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("master", None)  # a view of the core, rebuilt from it
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.master = np.frombuffer(self._core, np.float32)
