"""What every CatZoo rules engine offers, with no RL library in sight.

A rules engine is a ``GameState`` subclass plus a frozen options dataclass. The RL layer
(``catzoo.envs.adapter``), the bots (``catzoo.policies``) and the tools only talk to
engines through the members defined here, so a new game plugs into all of them by
implementing this class.

Conventions shared by all engines:

* players are ``0..num_players-1``; ``current_player`` is ``TERMINAL`` once the game ends;
* every decision is one integer in ``range(num_actions)``; ``legal_mask()`` is a
  ``numpy.int8`` vector over that flat space;
* chance (shuffles, deals) is drawn from the state's own ``random.Random`` seeded at
  creation, and every chance outcome is recorded in ``chance`` so that the JSON log
  (options, chance outcomes, actions) replays a game exactly, even one whose hidden
  cards were re-sampled by ``resample``;
* ``observation(player)`` holds what that player may know and nothing more.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import random
from typing import Any, ClassVar

import numpy as np

from catzoo.games.chance import shuffle, shuffle_as_random  # noqa: F401  (engines import them here)
from catzoo.games.suggest import did_you_mean

TERMINAL = -1

LOG_FORMAT = 1


class IllegalActionError(ValueError):
    """An action that is out of range, of the wrong type, or not legal in the state."""


class GameOverError(IllegalActionError):
    """An action offered once the game has ended."""


class NotYourTurnError(IllegalActionError):
    """An action offered by a player who is not the one to act."""


class OptionsError(ValueError):
    """Unknown or invalid game options."""


class ReplayError(ValueError):
    """A log (or a replay file holding one) that is not a game of these rules: the message
    names the field that is wrong."""


class SeedError(ValueError):
    """A seed that is not a non-negative integer or None."""


class LoggedChance(tuple):
    """Chance outcomes read from a log (``GameState.replay``), as opposed to outcomes a
    rule scenario pins on purpose: each is held to every rule as the engine uses it."""


def check_seed(seed, where: str = "seed") -> int | None:
    """``seed`` as gymnasium's seeding takes it (``np_random``: a non-negative int or
    None), stricter in refusing bools and integral floats, which it would silently take.
    Returns it as a Python int (numpy integers are accepted)."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise SeedError(f"{where}={seed!r} is not allowed: a seed is a non-negative integer "
                        f"or None, not {type(seed).__name__}")
    if seed < 0:
        raise SeedError(f"{where}={seed!r} is not allowed: a seed is a non-negative integer "
                        "or None (gymnasium's rule; a negative seed would deal the game of "
                        "its absolute value)")
    return int(seed)


def options_from_json(options_cls: type, game: str, mapping: dict[str, Any]):
    """Options read back from JSON (a log, a checkpoint), whose lists were tuples."""
    if not isinstance(mapping, dict):
        raise OptionsError(f"{game}: options must be a mapping of names to values, "
                           f"got {type(mapping).__name__}")
    return build_options(options_cls, game, _tupled(mapping))


def build_options(options_cls: type, game: str, kwargs: dict[str, Any]):
    """Create a frozen options dataclass, naming any unknown option and the known ones.

    Each game's ``__post_init__`` checks its values' types and ranges and names the option;
    a ``TypeError``/``ValueError`` that still escapes one is turned into an
    ``OptionsError`` here, so a caller only ever has one error to catch."""
    known = [f.name for f in dataclasses.fields(options_cls)]
    unknown = sorted(set(map(str, kwargs)) - set(known))
    if unknown:
        raise OptionsError(
            f"unknown option(s) {', '.join(map(repr, unknown))} for {game}"
            f"{did_you_mean(unknown[0], known)}; known options: {', '.join(known)}"
        )
    try:
        return options_cls(**{k: _python_ints(v) for k, v in kwargs.items()})
    except OptionsError:
        raise
    except (TypeError, ValueError, OverflowError) as err:
        given = ", ".join(f"{k}={v!r}" for k, v in kwargs.items())
        raise OptionsError(f"{game}: options {given} are not valid: {err}") from None


def _python_ints(value):
    """numpy integers (and sequences or 1-d arrays of them) as Python ints: an option given
    as ``np.int64(3)`` is the option 3 (numpy bools stay what they are, and are refused)."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 1 and value.dtype.kind in "iu":
        return tuple(value.tolist())
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.integer) for v in value):
        return type(value)(int(v) if isinstance(v, np.integer) else v for v in value)
    return value


def check_choice(game: str, name: str, value: Any, allowed) -> None:
    """``value`` must be one of ``allowed`` and of its type (``2.0`` is not ``2``, nor
    ``True`` ``1``)."""
    if not any(type(value) is type(a) and value == a for a in allowed):
        hint = did_you_mean(value, map(str, allowed)) if isinstance(value, str) else ""
        raise OptionsError(
            f"{game}: option {name}={value!r} is not allowed{hint}; choose one of "
            f"{', '.join(map(repr, allowed))}"
        )


def is_int(value) -> bool:
    """A true integer: not a bool, not a float however integral."""
    return isinstance(value, int) and not isinstance(value, bool)


def check_int(game: str, name: str, value: Any, low: int, high: int | None = None) -> None:
    if not is_int(value) or value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise OptionsError(f"{game}: option {name}={value!r} is not allowed; use an integer "
                           f"{span}")


def int_sequence(game: str, name: str, value: Any) -> tuple[int, ...]:
    """A sequence option of integers, given as a sequence or a comma-separated string."""
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(",") if part.strip()]
        try:
            return tuple(int(part) for part in parts)
        except ValueError:
            raise OptionsError(f"{game}: option {name}={value!r} must be whole numbers, "
                               "comma-separated") from None
    if not isinstance(value, (tuple, list)) or not all(is_int(v) for v in value):
        raise OptionsError(f"{game}: option {name}={value!r} must be a sequence of whole "
                           "numbers (or a comma-separated string of them)")
    return tuple(value)


def str_sequence(game: str, name: str, value: Any) -> tuple[str, ...]:
    """A sequence option of names, given as a sequence or a comma-separated string."""
    if isinstance(value, str):
        return tuple(part.strip() for part in value.split(",") if part.strip())
    if not isinstance(value, (tuple, list)) or not all(isinstance(v, str) for v in value):
        raise OptionsError(f"{game}: option {name}={value!r} must be a sequence of names "
                           "(or a comma-separated string of them)")
    return tuple(value)


class GameState:
    """Base class of every rules engine's state.

    Subclasses set the class attributes and implement the methods that raise
    ``NotImplementedError``; the rest (logs, replay, standings, checked apply) is shared.
    """

    game_name: ClassVar[str]
    env_version: ClassVar[int] = 0
    options_cls: ClassVar[type]

    options: Any
    num_players: int
    num_actions: int
    observation_size: int
    current_player: int
    seed: int | None
    chance: list
    history: list[int]
    rng: random.Random
    _pinned_chance: list
    _logged_chance: bool = False

    # --- construction ----------------------------------------------------------------
    @classmethod
    def new(cls, options=None, seed: int | None = None, chance: list | tuple | None = None,
            **kwargs):
        """A new game. ``options`` is an options instance or None (then ``kwargs``).

        ``chance`` pins the chance outcomes (for example the deals) instead of drawing
        them from ``seed``: named rule scenarios use it to play from an explicit deal.
        """
        options, seed = cls._new_args(options, seed, kwargs)
        state = cls._blank(options, seed, list(chance) if chance is not None else [])
        state.rng = random.Random(seed)
        state._logged_chance = isinstance(chance, LoggedChance)
        state._setup()
        return state

    @classmethod
    def _new_args(cls, options, seed, kwargs: dict) -> tuple:
        """``new``'s options (built from ``kwargs`` when None) and seed, checked."""
        if options is None:
            options = build_options(cls.options_cls, cls.game_name, kwargs)
        elif kwargs:
            raise OptionsError("pass either an options object or keyword options, not both")
        return options, check_seed(seed, f"{cls.game_name}: seed")

    @classmethod
    def _blank(cls, options, seed: int | None, pinned: list):
        """A state before its game: options, seed, pinned chance, empty records."""
        state = cls.__new__(cls)
        state.options, state.seed, state._pinned_chance = options, seed, pinned
        state.chance, state.history = [], []
        return state

    def _setup(self) -> None:
        raise NotImplementedError

    def _use_layout(self, layout) -> None:
        """Attach the game's observation layout with a zeroed master vector (see layout.py)."""
        self.layout = layout
        self.observation_size = layout.obs_size
        self._set_master(np.zeros(layout.master_size, dtype=np.float32))

    def _set_master(self, master: np.ndarray) -> None:
        """Use ``master`` as this state's feature vector (a clone passes its own copy).

        ``_mv`` is a memoryview of it for the engines' scalar writes: one costs about
        half a numpy item assignment, and engines make several per step.
        """
        self.master = master
        self._mv = master.data  # a memoryview of it

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state.pop("_mv", None)  # memoryviews neither pickle nor deep-copy
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if "master" in state:
            self._mv = self.master.data

    def _draw_chance(self, draw, check=None, check_logged=None):
        """Return the next chance outcome: the pinned one if any, else ``draw(rng)``.

        Every outcome is recorded so that the action log replays the game exactly.
        Outcomes that depend on the game so far (a card still in the supply) can only be
        checked when they are used: ``check(outcome)``, when given, says (a string) why a
        pinned outcome cannot be used at all, or None; ``check_logged(outcome)`` why one
        read from a log is not one ``draw`` could give here (a scenario may pin outcomes
        the shuffle would not give, to set up a position).
        """
        index = len(self.chance)
        if index < len(self._pinned_chance):
            outcome = self._pinned_chance[index]
            problem = check(outcome) if check is not None else None
            if not problem and check_logged is not None and self._logged_chance:
                problem = check_logged(outcome)
            if problem:
                raise ReplayError(f"{self.game_name}: chance[{index}]: {problem}")
        else:
            outcome = draw(self.rng)
        self.chance.append(outcome)
        return outcome

    # --- the game --------------------------------------------------------------------
    # Engines keep the legal actions of the player to act as a Python int bit set in
    # ``_legal`` (bit a set when action a is legal), recomputed once per applied action:
    # testing one action is then a shift, and the numpy mask is built only when asked.
    _legal: int = 0

    def legal_mask(self) -> np.ndarray:
        # Legal sets recur (70% of the positions of random Cat in the Box play, more of
        # Lunar's), and copying a cached mask costs a quarter of building one.
        bits = self._legal
        cache = _MASK_CACHE.get(self.num_actions)
        if cache is None:
            cache = _MASK_CACHE[self.num_actions] = {}
        mask = cache.get(bits)
        if mask is None:
            if len(cache) >= _MASK_CACHE_LIMIT:
                cache.clear()
            # Only copies leave the cache, so its arrays are never written.
            mask = cache[bits] = bits_to_mask(bits, self.num_actions)
        return mask.copy()

    def legal_actions(self) -> list[int]:
        # One pass per legal action, not per action of the space: search bots ask for
        # the list at every step of their playouts.
        bits, out = self._legal, []
        while bits:
            low = bits & -bits
            out.append(low.bit_length() - 1)
            bits ^= low
        return out

    def is_legal(self, action: int) -> bool:
        return bool((self._legal >> action) & 1)

    def _apply(self, action: int) -> None:
        """The rules of one action (engines implement this or ``apply_unchecked``)."""
        raise NotImplementedError

    def apply(self, action: int) -> None:
        """Apply a legal action of the player to act; raise ``IllegalActionError`` if not."""
        self.check_action(action)
        self.apply_unchecked(int(action))

    def apply_unchecked(self, action: int) -> None:
        """Apply an action already known to be legal (the env checks it on the mask), and
        log it. Engines may override this whole, as the env's hot path."""
        self._apply(action)
        self.history.append(action)

    def check_action(self, action, player: int | None = None) -> None:
        """Raise unless ``action`` may be applied now (by ``player``, when given): the
        check of a move entering from outside (the env, a table, a log), made once before
        ``apply_unchecked``. The error's type says which rule failed (``GameOverError``,
        ``NotYourTurnError``, else ``IllegalActionError``: wrong type, out of range, not
        legal) and its message names the action; nothing is changed. A compiled core tests
        the action once more in its own ``apply``: not a rule of the game but the bounds of
        its C arrays, which a wrong call of ``apply_unchecked`` must not write past."""
        if self.current_player == TERMINAL:
            raise GameOverError(f"{self.game_name}: the game is over; no action can be applied")
        if player is not None and player != self.current_player:
            raise NotYourTurnError(f"{self.game_name}: it is not your turn (P{player}): "
                                   f"P{self.current_player} is to act")
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"{self.game_name}: an action must be an integer, got {action!r} "
                f"of type {type(action).__name__}"
            )
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"{self.game_name}: action {action} is out of range 0..{self.num_actions - 1}"
            )
        if not (self._legal >> int(action)) & 1:
            raise IllegalActionError(
                f"{self.game_name}: action {action} ({self.action_to_string(int(action))}) is "
                f"not legal for player {self.current_player}; "
                + describe_actions(self, self.legal_actions())
            )

    def is_terminal(self) -> bool:
        return self.current_player == TERMINAL

    def scores(self) -> list[float]:
        """Each player's game points so far (the game's own score)."""
        raise NotImplementedError

    def standing_keys(self) -> list[tuple]:
        """A sort key per player: higher wins; equal keys share a place (tie-breaks inside)."""
        return [(s,) for s in self.scores()]

    def returns(self) -> np.ndarray:
        """Zero-sum result of the final standing, in [-1, 1] per player.

        Each player gets the mean over the other players of +1 (beats them), 0 (tied) or
        -1 (beaten), so with two players it is the usual win/draw/loss and with more it
        rewards every place gained, not only first place.
        """
        keys = self.standing_keys()
        n = self.num_players
        out = np.zeros(n, dtype=np.float64)
        for i in range(n):
            out[i] = sum((keys[i] > keys[j]) - (keys[i] < keys[j]) for j in range(n) if j != i)
        return out / max(n - 1, 1)

    def teams(self) -> tuple[tuple[int, ...], ...]:
        """Players who always share one result (partners, or the whole table in a
        cooperative game); by default each player is alone."""
        return tuple((p,) for p in range(self.num_players))

    def winners(self) -> list[int]:
        keys = self.standing_keys()
        best = max(keys)
        return [i for i, k in enumerate(keys) if k == best]

    def observation(self, player: int) -> np.ndarray:
        raise NotImplementedError

    # Options that change only what an observation holds, not the rules or the chance, so a
    # policy trained with other values of them can still read this game (``observation_as``).
    observation_options: frozenset[str] = frozenset()

    def observation_as(self, player: int, options) -> np.ndarray:
        """``player``'s observation as an env with ``options`` (this game's options
        dataclass) would encode it; they may differ from this game's own only in
        ``observation_options`` (games with such options override this)."""
        self._check_observation_options(options)
        return self.observation(player)

    def _check_observation_options(self, options) -> None:
        if type(options) is not type(self.options):
            raise ValueError(f"{self.game_name}: options of type {type(options).__name__}, "
                             f"expected {type(self.options).__name__}")
        mine, theirs = dataclasses.asdict(self.options), dataclasses.asdict(options)
        rules = sorted(k for k in mine if mine[k] != theirs[k] and k not in self.observation_options)
        if rules:
            raise ValueError(
                f"{self.game_name}: options that change the game differ: "
                + ", ".join(f"{k}={theirs[k]!r} wanted, {mine[k]!r} played" for k in rules))

    def state_vector(self) -> np.ndarray:
        """The global view (every hidden card too), for centralised critics and debugging."""
        raise NotImplementedError

    @property
    def state_size(self) -> int:
        return int(self.state_vector().shape[0])

    def clone(self) -> GameState:
        raise NotImplementedError

    def _rng_copy(self) -> random.Random:
        """A generator in this state's generator's state (a clone deals as this one)."""
        rng = random.Random()
        rng.setstate(self.rng.getstate())
        return rng

    def reseed(self, seed: int) -> None:
        """Draw later chance outcomes from a generator seeded as ``random.Random(seed)``."""
        self.rng = random.Random(seed)

    def resample(self, player: int, rng: random.Random) -> GameState:
        """A copy in which the cards hidden from ``player`` are re-dealt at random,
        consistently with everything ``player`` has seen (a determinization)."""
        raise NotImplementedError

    # --- text ------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        raise NotImplementedError

    def render(self) -> str:
        """The state as text: its game's ``render.render_text`` (games/<game>/render.py)."""
        return importlib.import_module(f"catzoo.games.{self.game_name}.render").render_text(self)

    def render_rgb(self) -> np.ndarray:
        """An image of the state, (height, width, 3) uint8, for games that have one."""
        raise NotImplementedError(f"{self.game_name} has no image rendering")

    def milestone(self):
        """A value that changes when a text view is worth printing again (a trick or a
        round ended, a phase began); ``catzoo show`` prints the board at each change."""
        return

    # --- logs and replay ---------------------------------------------------------------
    def action_log(self) -> dict:
        """A JSON-serialisable record from which ``replay`` rebuilds this exact game."""
        return {
            "format": LOG_FORMAT,
            "game": self.game_name,
            "env_version": self.env_version,
            "options": dataclasses.asdict(self.options),
            "seed": self.seed,
            "chance": _jsonable(self.chance),
            "actions": list(self.history),
        }

    def to_json(self) -> str:
        return json.dumps(self.action_log())

    @classmethod
    def replay(cls, log: dict | str) -> GameState:
        """The game of an action log, every field of it checked against the rules first
        (``games/log_check.py`` and the game's own ``log_check`` module): a forged log
        raises ``ReplayError`` naming the field, before anything reaches the engine."""
        from catzoo.games.log_check import check_log, parse_log_text

        if isinstance(log, str):
            log = parse_log_text(log)
        options, seed, chance, actions = check_log(cls, log)
        try:
            state = cls.new(options, seed=seed, chance=LoggedChance(chance))
        except (OptionsError, SeedError) as err:
            raise ReplayError(f"{cls.game_name}: the log's set-up is not valid: {err}") from None
        for step, action in enumerate(actions):
            try:
                state.apply(action)
            except IllegalActionError as err:
                raise ReplayError(f"log does not replay: step {step}: {err}") from None
        return state


# Up to this many legal actions are each named in an illegal-action message; more (a
# Ledges build has hundreds) are summarised, so the message stays a few lines long.
NAMED_ACTIONS = 12
SUMMARY_RANGES = 6


def describe_actions(state: GameState, actions: list[int]) -> str:
    """``legal actions: 3 (play 4 as red), ...``, or for many actions their count, the
    ranges they fall in and the first and last named."""
    if len(actions) <= NAMED_ACTIONS:
        return "legal actions: " + ", ".join(f"{a} ({state.action_to_string(a)})"
                                              for a in actions)
    ranges: list[list[int]] = []
    for a in actions:
        if ranges and a == ranges[-1][1] + 1:
            ranges[-1][1] = a
        else:
            ranges.append([a, a])
    shown = ", ".join(f"{lo}-{hi}" if hi > lo else str(lo) for lo, hi in ranges[:SUMMARY_RANGES])
    if len(ranges) > SUMMARY_RANGES:
        shown += f" and {len(ranges) - SUMMARY_RANGES} more ranges"
    first, last = actions[0], actions[-1]
    return (f"legal actions: {len(actions)} in all ({shown}), from {first} "
            f"({state.action_to_string(first)}) to {last} ({state.action_to_string(last)})")


# Masks already built, per action-space size, keyed by the legal bit set.
_MASK_CACHE: dict[int, dict[int, np.ndarray]] = {}
# 32,768 masks of 50 actions hold about 8 MB; the cache is cleared whole when full.
_MASK_CACHE_LIMIT = 1 << 15

# The 8 mask bytes (0 or 1) of each possible byte of a bit set, lowest bit first.
_BYTE_BITS = [bytes((i >> j) & 1 for j in range(8)) for i in range(256)]
_SMALL_MASK = 512  # up to this size the byte table beats numpy's unpackbits
_WORD_BITS: list[bytes] = []  # the 16 mask bytes of each 16-bit word, built on first use


def bits_to_mask(bits: int, size: int) -> np.ndarray:
    """An int8 0/1 vector of ``size`` from a bit set (bit i -> element i).

    Built whenever a legal set misses the mask cache (a third to a half of the steps of
    random card play), so it takes the fastest of three ways: up to 64 actions four
    lookups in a table of 16-bit words, up to 512 a join of per-byte entries, beyond
    that numpy's unpackbits.
    """
    if size <= 64:
        w = _WORD_BITS or _word_table()
        return np.frombuffer(
            bytearray(w[bits & 0xFFFF] + w[bits >> 16 & 0xFFFF] + w[bits >> 32 & 0xFFFF]
                      + w[bits >> 48]),
            np.int8, size,
        )
    raw = bits.to_bytes((size + 7) // 8, "little")
    if size <= _SMALL_MASK:
        return np.frombuffer(bytearray(b"".join([_BYTE_BITS[x] for x in raw])), np.int8, size)
    return np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")[:size].view(np.int8)


def _word_table() -> list[bytes]:
    _WORD_BITS.extend(_BYTE_BITS[i & 0xFF] + _BYTE_BITS[i >> 8] for i in range(1 << 16))
    return _WORD_BITS


def _jsonable(value):
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    return value


def _tupled(value):
    """JSON turns tuples into lists; engines store chance outcomes and options as tuples."""
    if isinstance(value, dict):
        return {k: _tupled(v) for k, v in value.items()}
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value
