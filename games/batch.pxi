# Included LAST by every compiled game core (games/<game>/core.pyx): the batched driver,
# ``BatchCore``, that ``catzoo.vector`` steps N games of the core with.
#
# It drives the C interface of the core contract (docs/vector.md, "The core contract"):
#
#   ctypedef struct Config, Game; cdef enum: MAX_PLAYERS, MAX_ACTIONS, MAX_OBS
#   game_num_players, game_num_actions, game_obs_size, game_new   (core_binding.pxi)
#   cdef int  game_apply(Game* g, const Config* c, int action) noexcept nogil   # events
#   cdef int  game_current_player(const Game* g) noexcept nogil                # -1: over
#   cdef bint game_is_legal(const Game* g, const Config* c, int action) noexcept nogil
#   cdef void game_mask(const Game* g, const Config* c, int8_t* out) noexcept nogil
#   cdef void game_observe(const Game* g, const Config* c, int player, float* out) noexcept nogil
#   cdef void game_scores(const Game* g, const Config* c, double* out) noexcept nogil
#   cdef void game_returns(const Game* g, const Config* c, double* out) noexcept nogil
#   cdef class CoreConfig, Core   (core_binding.pxi's ConfigBinding and CoreBinding, derived)
#
# ``game_apply``'s events are core_common.pxi's ``CoreEvent`` bits (GAME_OVER, DEALT).
# ``game_is_legal`` is called with any int (range checked here first: 0 <= a < A).
# ``BatchCore.slot_core(i)`` hands Python a copy of slot i's game as a ``Core``.
#
# The driver:
# * holds N ``Game``s in one C array; ``step`` checks every slot's action (range, then
#   legality) before stepping any, so a bad action leaves every slot and buffer as it was
#   and reports the first bad slot to Python;
# * steps all slots in a C loop with the GIL released; ``threads`` > 1 splits the slots
#   over that many OpenMP threads (``prange``, schedule static: slot i's work never
#   depends on the thread count, so every thread count plays the same games);
# * rewards: ``standing`` (each seat's ``game_returns`` on the step that ends a game, else
#   0) or ``score`` (each seat's ``game_scores`` after the step minus before, as the AEC
#   env's reward modes);
# * on a game's end writes its scores and returns to ``final_scores``/``final_returns``
#   (rows of the other slots are 0), sets ``done``, and deals the slot a new game at once
#   from the slot's next seed (``next_game_seed`` of its last, mt19937.pxi);
# * writes after every step, for every slot: ``obs`` [N, D] float32 (the observation of
#   the player to act), ``mask`` [N, A] int8, ``player`` [N] int32, ``rewards`` [N, P]
#   float32, ``done`` [N] bool, ``final_scores``/``final_returns`` [N, P] float32, ``seeds``
#   [N] int64 (each slot's current game seed). These arrays are allocated once and
#   overwritten in place by every ``reset``/``step``.

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcpy, memset

import numpy as _np

cpdef enum RewardMode:
    REWARD_STANDING = 0
    REWARD_SCORE = 1


ctypedef struct Batch:
    const Config* c
    Game* games
    Py_ssize_t n
    int num_players, num_actions, obs_size, reward_mode, threads
    float* obs
    int8_t* mask
    int32_t* player
    float* rewards
    uint8_t* done
    float* final_scores
    float* final_returns
    int64_t* seeds
    double* last_scores     # [N, P] the scores before the step (score rewards)
    uint8_t* bad            # [N] scratch: slot i's action is bad (threaded check)


cdef inline void _seed_game(Batch* b, Py_ssize_t i) noexcept nogil:
    """A new game in slot i from its current seed (63 bits: one or two 32-bit words, as
    ``random.Random(seed)`` splits it)."""
    cdef uint32_t key[2]
    cdef uint64_t seed = <uint64_t>b.seeds[i]
    cdef int k, P = b.num_players
    cdef double scores[MAX_PLAYERS]
    key[0] = <uint32_t>(seed & 0xFFFFFFFFu)
    key[1] = <uint32_t>(seed >> 32)
    game_new(&b.games[i], b.c, key, 2 if key[1] else 1)
    if b.reward_mode == REWARD_SCORE:
        game_scores(&b.games[i], b.c, scores)
        for k in range(P):
            b.last_scores[i * P + k] = scores[k]


cdef inline void _write_slot(Batch* b, Py_ssize_t i) noexcept nogil:
    cdef Game* g = &b.games[i]
    cdef int p = game_current_player(g)
    b.player[i] = p
    game_mask(g, b.c, b.mask + i * b.num_actions)
    if p >= 0:
        game_observe(g, b.c, p, b.obs + i * b.obs_size)
    else:
        memset(b.obs + i * b.obs_size, 0, b.obs_size * sizeof(float))


cdef inline void _reset_slot(Batch* b, Py_ssize_t i) noexcept nogil:
    cdef int P = b.num_players
    _seed_game(b, i)
    memset(b.rewards + i * P, 0, P * sizeof(float))
    memset(b.final_scores + i * P, 0, P * sizeof(float))
    memset(b.final_returns + i * P, 0, P * sizeof(float))
    b.done[i] = 0
    _write_slot(b, i)


cdef inline void _step_slot(Batch* b, Py_ssize_t i, int action) noexcept nogil:
    cdef Game* g = &b.games[i]
    cdef int k, events, P = b.num_players
    cdef double scores[MAX_PLAYERS]
    cdef double returns[MAX_PLAYERS]
    cdef float* r = b.rewards + i * P
    cdef float* fs = b.final_scores + i * P
    cdef float* fr = b.final_returns + i * P
    cdef double* last = b.last_scores + i * P
    events = game_apply(g, b.c, action)
    if b.reward_mode == REWARD_SCORE:
        game_scores(g, b.c, scores)
        for k in range(P):
            r[k] = <float>(scores[k] - last[k])
            last[k] = scores[k]
    else:
        for k in range(P):
            r[k] = 0.0
    if events & GAME_OVER:
        if b.reward_mode != REWARD_SCORE:
            game_scores(g, b.c, scores)
        game_returns(g, b.c, returns)
        for k in range(P):
            fs[k] = <float>scores[k]
            fr[k] = <float>returns[k]
            if b.reward_mode == REWARD_STANDING:
                r[k] = <float>returns[k]
        b.done[i] = 1
        b.seeds[i] = <int64_t>next_game_seed(<uint64_t>b.seeds[i])
        _seed_game(b, i)
    else:
        for k in range(P):
            fs[k] = 0.0
            fr[k] = 0.0
        b.done[i] = 0
    _write_slot(b, i)


cdef inline bint _bad_action(Batch* b, Py_ssize_t i, int64_t a) noexcept nogil:
    return a < 0 or a >= b.num_actions or not game_is_legal(&b.games[i], b.c, <int>a)


cdef Py_ssize_t _first_bad(Batch* b, const int64_t* actions) noexcept nogil:
    """The first slot whose action is out of range or illegal, or -1 (checked before
    anything is stepped). With threads, each thread checks the slots it steps (the same
    static split), so that no game's memory moves to another core to be checked."""
    cdef Py_ssize_t i
    if b.threads > 1:
        for i in prange(b.n, num_threads=b.threads, schedule="static"):
            b.bad[i] = _bad_action(b, i, actions[i])
        for i in range(b.n):
            if b.bad[i]:
                return i
        return -1
    for i in range(b.n):
        if _bad_action(b, i, actions[i]):
            return i
    return -1


cdef void _step_all(Batch* b, const int64_t* actions) noexcept nogil:
    cdef Py_ssize_t i
    if b.threads > 1:
        for i in prange(b.n, num_threads=b.threads, schedule="static"):
            _step_slot(b, i, <int>actions[i])
    else:
        for i in range(b.n):
            _step_slot(b, i, <int>actions[i])


cdef void _reset_all(Batch* b) noexcept nogil:
    cdef Py_ssize_t i
    if b.threads > 1:
        for i in prange(b.n, num_threads=b.threads, schedule="static"):
            _reset_slot(b, i)
    else:
        for i in range(b.n):
            _reset_slot(b, i)


cdef class BatchCore:
    """N games of this core stepped together (see the comment at the top of batch.pxi;
    ``catzoo.vector`` is the documented Python API around it)."""

    cdef Batch b
    cdef readonly CoreConfig config
    cdef readonly object obs, mask, player, rewards, done, final_scores, final_returns, seeds
    cdef object _last_scores, _bad
    cdef readonly bint has_reset

    def __cinit__(self, CoreConfig config, Py_ssize_t num_envs, int reward_mode, int threads):
        if num_envs < 1:
            raise ValueError(f"BatchCore: num_envs={num_envs} must be >= 1")
        if threads < 1:
            raise ValueError(f"BatchCore: threads={threads} must be >= 1")
        if reward_mode not in (REWARD_STANDING, REWARD_SCORE):
            raise ValueError(f"BatchCore: unknown reward mode {reward_mode}")
        cdef Batch* b = &self.b
        cdef int P, A, D
        self.config = config
        b.c = &config.c
        b.n = num_envs
        P = b.num_players = game_num_players(b.c)
        A = b.num_actions = game_num_actions(b.c)
        D = b.obs_size = game_obs_size(b.c)
        if not 0 < P <= MAX_PLAYERS or not 0 < A <= MAX_ACTIONS or not 0 < D <= MAX_OBS:
            raise ValueError(f"BatchCore: sizes P={P}, A={A}, D={D} beyond the core's bounds")
        b.reward_mode = reward_mode
        b.threads = threads
        b.games = <Game*>calloc(num_envs, sizeof(Game))
        if b.games == NULL:
            raise MemoryError(f"BatchCore: {num_envs} games of {sizeof(Game)} bytes")
        self.obs = _np.zeros((num_envs, D), _np.float32)
        self.mask = _np.zeros((num_envs, A), _np.int8)
        self.player = _np.zeros(num_envs, _np.int32)
        self.rewards = _np.zeros((num_envs, P), _np.float32)
        self.done = _np.zeros(num_envs, _np.bool_)
        self.final_scores = _np.zeros((num_envs, P), _np.float32)
        self.final_returns = _np.zeros((num_envs, P), _np.float32)
        self.seeds = _np.zeros(num_envs, _np.int64)
        self._last_scores = _np.zeros((num_envs, P), _np.float64)
        self._bad = _np.zeros(num_envs, _np.uint8)
        cdef float[:, ::1] obs = self.obs
        cdef int8_t[:, ::1] mask = self.mask
        cdef int32_t[::1] player = self.player
        cdef float[:, ::1] rewards = self.rewards
        cdef uint8_t[::1] done = self.done.view(_np.uint8)
        cdef float[:, ::1] final_scores = self.final_scores
        cdef float[:, ::1] final_returns = self.final_returns
        cdef int64_t[::1] seeds = self.seeds
        cdef double[:, ::1] last = self._last_scores
        cdef uint8_t[::1] bad = self._bad
        b.obs, b.mask, b.player, b.rewards = &obs[0, 0], &mask[0, 0], &player[0], &rewards[0, 0]
        b.done, b.final_scores, b.final_returns = &done[0], &final_scores[0, 0], &final_returns[0, 0]
        b.seeds, b.last_scores, b.bad = &seeds[0], &last[0, 0], &bad[0]
        self.has_reset = False

    def __dealloc__(self):
        free(self.b.games)
        self.b.games = NULL

    @property
    def num_envs(self):
        return self.b.n
    @property
    def num_players(self):
        return self.b.num_players
    @property
    def num_actions(self):
        return self.b.num_actions
    @property
    def obs_size(self):
        return self.b.obs_size
    @property
    def threads(self):
        return self.b.threads
    @property
    def reward_mode(self):
        return self.b.reward_mode

    def reset(self, const int64_t[::1] seeds):
        """Deal every slot a new game: slot i from ``seeds[i]`` (non-negative, checked by
        the caller), and write every buffer."""
        if seeds.shape[0] != self.b.n:
            raise ValueError(f"BatchCore.reset: {seeds.shape[0]} seeds for {self.b.n} slots")
        cdef Py_ssize_t i
        for i in range(self.b.n):
            if seeds[i] < 0:
                raise ValueError(f"BatchCore.reset: slot {i}: seed {seeds[i]} is negative")
        for i in range(self.b.n):
            self.b.seeds[i] = seeds[i]
        with nogil:
            _reset_all(&self.b)
        self.has_reset = True

    def step(self, const int64_t[::1] actions) -> Py_ssize_t:
        """Step every slot with ``actions[i]``, or none: returns -1 when all were stepped,
        else the first slot whose action is out of range or illegal (nothing changed)."""
        cdef Py_ssize_t bad
        if not self.has_reset:
            raise RuntimeError("BatchCore.step before reset")
        if actions.shape[0] != self.b.n:
            raise ValueError(f"BatchCore.step: {actions.shape[0]} actions for {self.b.n} slots")
        with nogil:
            bad = _first_bad(&self.b, &actions[0])
            if bad < 0:
                _step_all(&self.b, &actions[0])
        return bad

    def legal_actions(self, Py_ssize_t i) -> list:
        """Slot i's legal actions (from its game, not the mask buffer)."""
        cdef int a
        self._check_slot(i)
        return [a for a in range(self.b.num_actions) if game_is_legal(&self.b.games[i], self.b.c, a)]

    def current_player(self, Py_ssize_t i) -> int:
        self._check_slot(i)
        return game_current_player(&self.b.games[i])

    def slot_core(self, Py_ssize_t i) -> Core:
        """A copy of slot i's game as this core's Python-facing ``Core``."""
        cdef Core core = Core.__new__(Core)
        self._check_slot(i)
        core.g = self.b.games[i]
        core.config = self.config
        return core

    def observe(self, Py_ssize_t i, int player):
        """Slot i's observation for any seat (the buffers hold the player to act's)."""
        self._check_slot(i)
        if not 0 <= player < self.b.num_players:
            raise ValueError(f"BatchCore.observe: player {player} is out of range "
                             f"0..{self.b.num_players - 1}")
        out = _np.empty(self.b.obs_size, _np.float32)
        cdef float[::1] o = out
        game_observe(&self.b.games[i], self.b.c, player, &o[0])
        return out

    def games_bytes(self) -> bytes:
        """Every slot's whole game as bytes (tests compare them before and after a step)."""
        return (<char*>self.b.games)[:self.b.n * sizeof(Game)]

    cdef _check_slot(self, Py_ssize_t i):
        if not 0 <= i < self.b.n:
            raise IndexError(f"slot {i} is out of range 0..{self.b.n - 1}")


# The search bots' random playouts and batched rollouts (needs BatchCore's imports above).
include "rollouts.pxi"
