# Included by every compiled game core (games/<game>/core.pyx) after its C rules and before
# its Python classes: the Python-facing binding all cores share, as PufferLib's
# ocean/env_binding.h is for its envs. A core's classes derive from the two here,
# ``cdef class CoreConfig(ConfigBinding)`` and ``cdef class Core(CoreBinding)``, and add only
# what is the game's own: its options' C form, its readers, its setters.
#
# The contract is written out in docs/vector.md ("The core contract"). What this file reads
# of the core, defined before or after the include:
#
#   ctypedef struct Config    with the int fields num_players, num_actions, obs_size and
#                             master_size (set by make_config)
#   ctypedef struct Game      ending with the fields ``const char* pinned``,
#                             ``Py_ssize_t pinned_size`` and ``MT mt``: the pinned chance
#                             outcomes (``pack_chance``'s bytes, owned by the Python Core;
#                             NULL and 0 in a batch) and the generator. This file sets them
#                             before ``game_begin``; a core that zeroes its game there zeroes
#                             only what lies before ``pinned``.
#   cdef void  game_begin(Game* g, const Config* c) noexcept nogil
#                             a new game, the generator seeded and the pins set: the first
#                             chance outcomes dealt (the pinned ones first), the first
#                             player to act
#   cdef bytes pack_chance(const Config* c, pinned)
#                             the pinned chance outcomes (Python values, as the chance record
#                             holds them) checked in full and packed as ``game_begin`` and
#                             later deals read them (b"": none); ValueError naming what is
#                             wrong
#   cdef float* game_features(Game* g, const Config* c, Py_ssize_t* count) noexcept nogil
#                             the game's feature vector, ``count`` floats, that a Core shows
#                             as its read-only buffer; NULL for a core that keeps none
#   def make_config(options) -> CoreConfig, cdef class CoreConfig(ConfigBinding),
#   cdef class Core(CoreBinding)
#
# and batch.pxi's C interface (game_apply, game_is_legal, game_current_player, game_mask,
# game_observe, game_scores, game_returns), of which this file defines game_num_players,
# game_num_actions, game_obs_size (from Config) and game_new (seed, no pins, game_begin).

from cpython.buffer cimport (
    PyBUF_C_CONTIGUOUS,
    PyBUF_WRITABLE,
    PyBuffer_Release,
    PyObject_GetBuffer,
)
from libc.stdint cimport int8_t, uint32_t
from libc.string cimport memcpy

import numpy as _np

# The game's name, for error messages: the module is catzoo.games.<game>.core. (The cores
# are compiled without wraparound: no negative indices.)
_GAME = __name__.rpartition(".")[0].rpartition(".")[2] or __name__


# --- batch.pxi's sizes and new game ---------------------------------------------------------
cdef inline int game_num_players(const Config* c) noexcept nogil:
    return c.num_players


cdef inline int game_num_actions(const Config* c) noexcept nogil:
    return c.num_actions


cdef inline int game_obs_size(const Config* c) noexcept nogil:
    return c.obs_size


cdef void game_new(Game* g, const Config* c, const uint32_t* key, int keylen) noexcept nogil:
    """A new game dealt from the generator seeded with ``key`` (an int seed's words)."""
    mt_seed_words(&g.mt, key, keylen)
    g.pinned = NULL
    g.pinned_size = 0
    game_begin(g, c)


# --- checks of what comes from Python ---------------------------------------------------------
cdef int check(int value, int limit, str what) except -1:
    """C arrays are indexed without bounds checks: every index from outside goes through
    here first, so that bad input raises instead of writing past an array."""
    if not 0 <= value < limit:
        raise ValueError(f"{what} {value} is out of range 0..{limit - 1}")
    return value


cdef int check_or_none(int value, int limit, str what) except -2:
    """``check``, letting -1 (none, nobody) through."""
    return -1 if value == -1 else check(value, limit, what)


cdef tuple pinned_hands(outcome, int n, int hand, int index, str rest):
    """A pinned deal's shape, ``(hands, rest)`` with ``n`` hands of ``hand`` cards, as
    lists (its cards are the core's to check); ValueError naming the deal otherwise."""
    try:
        hands, other = outcome
        hands, other = [list(cards) for cards in hands], list(other)
    except (TypeError, ValueError):
        raise ValueError(f"{_GAME}: pinned deal {index} must be (hands, {rest}), got "
                         f"{outcome!r}") from None
    if len(hands) != n or any(len(cards) != hand for cards in hands):
        raise ValueError(f"{_GAME}: pinned deal {index} must hold {n} hands of {hand} cards, "
                         f"got sizes {[len(cards) for cards in hands]}")
    return hands, other


cdef object _empty = _np.empty
cdef object _FLOAT32 = _np.dtype(_np.float32)
cdef object _INT8 = _np.dtype(_np.int8)


cdef void* array_data(object array) except NULL:
    """The data of a new C-contiguous numpy array (its buffer acquired and released at
    once, which costs less than a typed memoryview; the array keeps owning the memory)."""
    cdef Py_buffer view
    PyObject_GetBuffer(array, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)
    PyBuffer_Release(&view)
    return view.buf


# --- the options ------------------------------------------------------------------------------
cdef class ConfigBinding:
    """The options of a game in C form (``Config``), built once per options by
    ``make_config`` and shared read-only by every game of those options (a copy is the
    object itself; a pickle rebuilds it from the options)."""

    cdef Config c
    cdef readonly object options

    @property
    def num_players(self) -> int:
        return self.c.num_players

    @property
    def num_actions(self) -> int:
        return self.c.num_actions

    @property
    def obs_size(self) -> int:
        return self.c.obs_size

    @property
    def master_size(self) -> int:
        """The size of the game's master feature vector (``layout.py``)."""
        return self.c.master_size

    def __reduce__(self):
        return make_config, (self.options,)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self


# --- one game -----------------------------------------------------------------------------------
cdef class CoreBinding:
    """One game (a ``Game`` struct) for the Python state (``CompiledState._core``).

    ``apply`` returns the events (``CoreEvent``: ``GAME_OVER``, ``DEALT``); the player to
    act and the legal moves are then ``current_player`` and ``legal`` (a bit set over the
    actions). A core that keeps a feature vector shows it as its buffer (read-only
    float32). Copies are struct copies; a pickle holds the game's bytes.
    """

    cdef Game g
    cdef readonly CoreConfig config
    cdef bytes _pinned  # the pinned chance outcomes ``g.pinned`` points into, or None

    @staticmethod
    def new(CoreConfig config, seed, pinned=()) -> Core:
        """A new game: its generator seeded as ``random.Random(seed)`` is (any seed it
        takes), ``pinned`` the first chance outcomes (as the chance record holds them,
        checked in full here), used in order before the generator deals."""
        cdef Core core = Core.__new__(Core)
        core.config = config
        core._pin(pack_chance(&config.c, pinned))
        mt_seed_from(&core.g.mt, seed)
        game_begin(&core.g, &config.c)
        return core

    cdef void _pin(self, bytes data):
        self._pinned = data or None
        self.g.pinned = <const char*>self._pinned if self._pinned is not None else NULL
        self.g.pinned_size = len(self._pinned) if self._pinned is not None else 0

    # --- playing -------------------------------------------------------------------------
    cpdef int apply(self, int action) except -1:
        """Apply a legal action of the player to act; returns the events. The caller
        checked it (``GameState.check_action``): an illegal one raises ValueError here,
        the last guard of the C arrays."""
        if not (0 <= action < self.config.c.num_actions
                and game_is_legal(&self.g, &self.config.c, action)):
            raise ValueError(f"{_GAME} core: action {action} is not legal")
        return game_apply(&self.g, &self.config.c, action)

    @property
    def current_player(self) -> int:
        """The player to act, -1 once the game is over."""
        return game_current_player(&self.g)

    @property
    def num_players(self) -> int:
        return self.config.c.num_players

    def observe(self, int player):
        """``player``'s observation, a new float32 array."""
        check(player, self.config.c.num_players, "player")
        out = _empty(self.config.c.obs_size, _FLOAT32)
        game_observe(&self.g, &self.config.c, player, <float*>array_data(out))
        return out

    def mask(self):
        """The legal moves as a new int8 0/1 array."""
        out = _empty(self.config.c.num_actions, _INT8)
        game_mask(&self.g, &self.config.c, <int8_t*>array_data(out))
        return out

    def returns(self) -> list:
        """Each player's result of the standing (``game_returns``)."""
        cdef double out[MAX_PLAYERS]
        cdef int p
        game_returns(&self.g, &self.config.c, out)
        return [out[p] for p in range(self.config.c.num_players)]

    # --- the feature vector ------------------------------------------------------------------
    def __getbuffer__(self, Py_buffer* buffer, int flags):
        # Read-only: only the rules write it (the state's ``master`` is a numpy view of it).
        cdef Py_ssize_t count = 0
        cdef float* data = game_features(&self.g, &self.config.c, &count)
        if data == NULL:
            raise BufferError(f"{_GAME} core: the game keeps no feature vector")
        if flags & PyBUF_WRITABLE:
            raise BufferError(f"{_GAME} core: the feature vector is read-only")
        buffer.buf = <void*>data
        buffer.obj = self
        buffer.len = count * sizeof(float)
        buffer.readonly = 1
        buffer.itemsize = sizeof(float)
        buffer.format = "f"
        buffer.ndim = 1
        buffer.shape = NULL
        buffer.strides = NULL
        buffer.suboffsets = NULL
        buffer.internal = NULL

    def __releasebuffer__(self, Py_buffer* buffer):
        pass

    # --- the generator ---------------------------------------------------------------------
    @property
    def mt_state(self) -> tuple:
        """The generator's state as ``random.Random.getstate()[1]`` holds it (624 words
        and the index); setting one (checked whole: a bad one changes nothing) makes later
        chance outcomes come from it."""
        return mt_state_of(&self.g.mt)

    @mt_state.setter
    def mt_state(self, state):
        mt_set_state(&self.g.mt, state)

    def reseed(self, seed) -> None:
        """Draw later chance outcomes from a generator seeded as ``random.Random(seed)``."""
        mt_seed_from(&self.g.mt, seed)

    def copy_generator(self, Core other) -> None:
        """Take ``other``'s generator as a copy (later chance outcomes come as ``other``'s
        would): the state copied in C, not through ``mt_state``'s 625 Python ints."""
        self.g.mt = other.g.mt

    # --- copies ----------------------------------------------------------------------------
    def copy(self) -> Core:
        """An independent copy (the generator's state and the pinned chance included)."""
        cdef Core other = Core.__new__(Core)
        other.g = self.g
        other.config = self.config
        other._pinned = self._pinned
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def __reduce__(self):
        # The game's bytes are the whole game but the address of its pinned chance, which
        # travels beside them. Only this build's pickles are loaded (copies, workers),
        # and unpickling runs code anyway.
        return _restore, (self.config, (<char*>&self.g)[:sizeof(Game)], self._pinned or b"")


def _restore(CoreConfig config, bytes game, bytes pinned) -> Core:
    """Unpickle a Core: its game's bytes, pointed at its pinned chance."""
    cdef Core core = Core.__new__(Core)
    if len(game) != sizeof(Game):
        raise ValueError(f"{_GAME} core: a saved game of {len(game)} bytes, expected "
                         f"{sizeof(Game)}")
    memcpy(&core.g, <const char*>game, sizeof(Game))
    core.config = config
    core._pin(pinned)
    return core
