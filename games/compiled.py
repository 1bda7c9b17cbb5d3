"""What the engines whose whole game is one compiled core share.

A compiled core (``games/<game>/core.pyx``, built as ``catzoo.games.<game>.core``) holds the
whole game in C; what it offers Python is games/core_binding.pxi's binding, the same for
every core, plus the game's own readers and setters (the contract: docs/vector.md, "The
core contract"). The Python state, a ``CompiledState`` subclass, owns one ``Core`` at
``self._core`` and keeps what is not per step: options, the action log (``history``), the
chance record (``chance``), text, and the search bots' re-sampling (through the core's
setters).

A subclass sets ``game_name`` and ``options_cls``; its ``core_module``
(``catzoo.games.<game>.core``) and ``layout_for`` (``catzoo.games.<game>.layout``'s) follow
from the name. It may extend ``_setup`` (its Python attributes: ``num_players``,
``layout``, ``observation_size``...); ``_on_deal`` runs after each chance outcome is recorded, and
``_on_events`` after an action whose events are not none (a round or the game ended).

It names in ``core_fields`` the core's readers it shows as its own attributes: each
becomes a property that reads the core at every access, documented by the core reader's
docstring (``help()`` on the state shows it), and settable for the names also in
``writable_fields`` (the core checks the value). An entry ``(name, core_name)`` shows the
core's ``core_name`` as ``name``.

A game whose core's ``game_returns`` is not ``GameState.returns``' rule over its standing
keys (team play, a cooperative game) sets ``generic_standing = False`` (tests/test_vector.py
holds the others to that rule). A game whose core keeps no feature vector (no buffer) sets
``core_buffer = False`` and defines ``master`` itself.
"""

from __future__ import annotations

import importlib
import random
import types
from collections.abc import Callable
from functools import lru_cache
from operator import attrgetter
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from catzoo.games.base import GameState


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


def core_field(core_cls: type, name: str, core_name: str, writable: bool) -> property:
    """The state property ``name``: the core's reader ``core_name`` read at every access
    (through ``attrgetter``, in C), with its docstring; settable when ``writable``."""
    reader = getattr(core_cls, core_name, None)
    if not isinstance(reader, types.GetSetDescriptorType):
        raise TypeError(f"{core_cls.__module__}.Core has no property {core_name!r} for the "
                        f"state's field {name!r}")
    if not reader.__doc__:
        raise TypeError(f"{core_cls.__module__}.Core.{core_name} has no docstring: a field's "
                        "documentation is its core reader's")

    def put(self, value) -> None:
        setattr(self._core, core_name, value)

    return property(attrgetter(f"_core.{core_name}"), put if writable else None,
                    doc=reader.__doc__)


class CompiledState(GameState):
    core_module: ClassVar[ModuleType]
    layout_for: ClassVar[Callable[[int], Any]]  # the game's layout_for, as a staticmethod
    generic_standing: ClassVar[bool] = True
    core_buffer: ClassVar[bool] = True
    core_fields: ClassVar[tuple] = ()
    writable_fields: ClassVar[tuple[str, ...]] = ()
    _core: Any
    _dealt: ClassVar[int] = 0  # the core's DEALT event bit
    # lists of the game that a copy must not share with the original; what they hold is
    # never changed in place
    _game_lists: ClassVar[tuple[str, ...]] = ("chance", "history")
    # attributes ``_use_core`` makes from the core (views of its memory), rebuilt from it
    # after unpickling rather than pickled
    _core_views: ClassVar[tuple[str, ...]] = ("master",)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "game_name" in cls.__dict__:  # a game's state: its modules by the games' layout
            package = f"catzoo.games.{cls.game_name}"
            if "core_module" not in cls.__dict__:
                cls.core_module = importlib.import_module(f"{package}.core")
            if "layout_for" not in cls.__dict__:
                cls.layout_for = staticmethod(
                    importlib.import_module(f"{package}.layout").layout_for)
            cls._dealt = int(cls.core_module.CoreEvent.DEALT)
        for entry in cls.__dict__.get("core_fields", ()):
            name, core_name = (entry, entry) if isinstance(entry, str) else entry
            if name in cls.__dict__:
                raise TypeError(f"{cls.__name__}.{name} is both defined and a core field")
            setattr(cls, name, core_field(cls.core_module.Core, name, core_name,
                                          name in cls.writable_fields))

    # --- construction ------------------------------------------------------------------
    @classmethod
    def new(cls, options=None, seed: int | None = None, chance: list | tuple | None = None,
            **kwargs):
        """A new game (see ``GameState.new``): ``seed`` a non-negative int (or None: a seed
        drawn from the system's entropy, as ``random.Random(None)`` would); pinned chance
        outcomes checked by the game's ``log_check.check_chance`` first."""
        options, seed = cls._new_args(options, seed, kwargs)
        pinned = [_plain(c) for c in chance] if chance is not None else []
        if pinned:
            # the rules of a chance outcome are the game's log checks (ReplayError names
            # the field); the core guards its C arrays again before copying them in
            checks = importlib.import_module(f"catzoo.games.{cls.game_name}.log_check")
            checks.check_chance(options, _listed(pinned))
        game_seed = random.SystemRandom().getrandbits(64) if seed is None else seed
        return cls._started(options, seed, game_seed, pinned)

    @classmethod
    def _started(cls, options, seed: int | None, game_seed: int, pinned: list) -> CompiledState:
        """A new game on a new core, its first chance outcome recorded (no checks)."""
        core = cls.core_module.Core.new(core_config(cls.core_module, options), game_seed, pinned)
        state = cls._around(core, options, seed, pinned)
        state._record_chance()
        return state

    @classmethod
    def _rebuilt(cls, options, seed: int | None, chance: list, history: list[int]):
        """The game of ``chance`` (pinned outcomes) and ``history`` on a new core, for a
        search's re-deal (``resample``): both are the search's own rewrite of a legal game,
        made thousands of times a move, so ``new``'s and ``apply``'s log checks are skipped;
        the core's guard still refuses an illegal action. Its generator is the core's
        default until the caller sets one (every outcome it needs is pinned)."""
        state = cls._started(options, seed, 0 if seed is None else seed, chance)
        for action in history:
            state.apply_unchecked(action)
        return state

    @classmethod
    def _from_core(cls, core) -> CompiledState:
        """A state around ``core`` (a copy of a batch slot's game, say) without its
        history: for text, rendering and inspection, not for replay."""
        return cls._around(core, core.config.options, None, [])

    @classmethod
    def _around(cls, core, options, seed: int | None, pinned: list) -> CompiledState:
        state = cls._blank(options, seed, pinned)
        state._use_core(core)
        state._setup()
        return state

    def _setup(self) -> None:
        """The state's Python attributes, once it holds its core: by default the player
        count of the options, the core's action count, the observation layout
        (``layout_for``) and its size."""
        self.num_players = self.options.num_players
        self.num_actions = self._core.config.num_actions
        self.layout = type(self).layout_for(self.num_players)
        self.observation_size = self.layout.obs_size

    def _use_core(self, core) -> None:
        self._core = core
        if self.core_buffer:
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
    def apply_unchecked(self, action: int) -> None:
        """Apply an action already known to be legal, and log it once the core took it
        (its guard of the C arrays raises on an illegal one, and then nothing changed)."""
        core = self._core
        events = core.apply(action)
        self.history.append(action)
        self.current_player = core.current_player
        self._legal = core.legal
        if events:
            self._on_events(events)

    def _on_events(self, events: int) -> None:
        """What the state records when an action ended a round or the game (``events``:
        the core's ``CoreEvent`` bits): by default the chance outcome a new round drew."""
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

    def reseed(self, seed: int) -> None:
        self._core.reseed(seed)  # the same generator as ``random.Random(seed)``, built in C

    # --- copies ------------------------------------------------------------------------
    def clone(self):
        return self._copy()

    def _copy(self, seed: int | None = None):
        """A copy; with ``seed`` its later deals come from a generator seeded with it
        (``resample`` gives it a fresh one: later deals must not be foreseeable)."""
        c = object.__new__(type(self))
        c.__dict__.update(self.__dict__)  # (``copy.copy`` would rebuild the views twice)
        core = self._core.copy()
        if seed is not None:
            core.reseed(seed)
        c._use_core(core)
        for name in self._game_lists:
            setattr(c, name, list(getattr(self, name)))
        return c

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in self._core_views:
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._use_core(self._core)
