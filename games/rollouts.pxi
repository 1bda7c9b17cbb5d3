# Included by games/batch.pxi (so by every compiled core, after its game): what the search
# bots simulate in C.
#
# * ``playout_returns(core, seed)``: ISMCTS's and PIMC's leaf value, uniformly random legal
#   moves from a game to its end. Through Python each move costs a legal-action list and an
#   apply, most of a search's time on the card games; here the whole playout is one call.
# * ``RolloutBatch``: many games copied from ``Core``s (a search's determinizations, one copy
#   per move tried) stepped together by a policy deciding for all of them at once, with their
#   random playouts in one call. Unlike ``BatchCore`` it deals nothing: its games start where
#   the search left them, a game that ends stays over, and a step moves only the games named.
#
# A playout's choice is uniform over the legal set from a SplitMix64 stream (mt19937.pxi's
# ``splitmix64``) of the given seed; chance (later rounds' deals) comes from the game's own
# generator, as ``game_apply`` draws it.

cdef int _random_move(Game* g, const Config* c, uint64_t* state) noexcept nogil:
    """A uniformly random legal move of ``g``'s player to act."""
    cdef int8_t mask[MAX_ACTIONS]
    cdef int A = game_num_actions(c), a, k, n = 0
    game_mask(g, c, mask)
    for a in range(A):
        n += mask[a] != 0
    # Lemire's multiply-shift: uniform over n from 32 random bits
    k = <int>(((splitmix64(state) >> 32) * <uint64_t>n) >> 32)
    for a in range(A):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    return a


cdef void _playout(Game* g, const Config* c, uint64_t seed, double* out) noexcept nogil:
    """Random moves in ``g`` (a scratch copy: it is played on) to its end; its returns."""
    cdef uint64_t state = seed
    while game_current_player(g) >= 0:
        game_apply(g, c, _random_move(g, c, &state))
    game_returns(g, c, out)


def playout_returns(Core core, seed, int limit=-1, list moves=None) -> list:
    """The returns (``game_returns``) after uniformly random legal moves from ``core``'s
    game to its end, or after ``limit`` moves (``limit`` >= 0: the standing reached then).
    ``core`` is left as it was (the playout runs on a copy); ``seed`` (an int) fixes the
    moves, the game's generator the deals. ``moves``, a list, receives the moves played
    (for tests: replayed through the Python state they must reach the same returns)."""
    cdef const Config* c = &core.config.c
    cdef Game* g = <Game*>malloc(sizeof(Game))
    cdef double out[MAX_PLAYERS]
    cdef uint64_t state = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef int P = game_num_players(c), a, k, steps = 0
    cdef bint record = moves is not None
    cdef int* played = NULL
    cdef int* grown
    cdef int room = 0
    cdef bint oom = False
    if g == NULL:
        raise MemoryError()
    memcpy(g, &core.g, sizeof(Game))
    with nogil:
        while game_current_player(g) >= 0 and (limit < 0 or steps < limit):
            a = _random_move(g, c, &state)
            if record:
                if steps == room:
                    room = 2 * room + 64
                    grown = <int*>realloc(played, room * sizeof(int))
                    if grown == NULL:
                        oom = True
                        break
                    played = grown
                played[steps] = a
            game_apply(g, c, a)
            steps += 1
        game_returns(g, c, out)
    free(g)
    if oom:
        free(played)
        raise MemoryError()
    if record:
        moves.extend([played[k] for k in range(steps)])
        free(played)
    return [out[k] for k in range(P)]


cdef class RolloutBatch:
    """Up to ``capacity`` games of this core, each a copy of a ``Core`` (``load``), stepped
    together: ``step(slots, actions)`` applies ``actions[j]`` in game ``slots[j]`` (all of
    them legal, checked before any is applied) and writes those games' ``obs`` (the player
    to act's observation, zeros once over), ``mask``, ``player`` (-1 once over) and
    ``events`` (core_common.pxi's bits: GAME_OVER, DEALT); ``playouts`` values games by
    random playouts. ``threads`` > 1 splits a call's games over OpenMP threads (a game's
    work never depends on the thread count)."""

    cdef Game* games
    cdef Py_ssize_t capacity
    cdef readonly Py_ssize_t n
    cdef readonly CoreConfig config
    cdef readonly object obs, mask, player, events
    # the loaded Cores: a game may point into its Core's pinned deals, which must outlive it
    cdef tuple _sources
    cdef int num_players, num_actions, obs_size, threads
    cdef float* _obs
    cdef int8_t* _mask
    cdef int32_t* _player
    cdef uint8_t* _events

    def __cinit__(self, CoreConfig config, Py_ssize_t capacity, int threads=1):
        if capacity < 1:
            raise ValueError(f"RolloutBatch: capacity={capacity} must be >= 1")
        if threads < 1:
            raise ValueError(f"RolloutBatch: threads={threads} must be >= 1")
        self.config = config
        self.capacity, self.n, self.threads = capacity, 0, threads
        self._sources = ()
        self.num_players = game_num_players(&config.c)
        self.num_actions = game_num_actions(&config.c)
        self.obs_size = game_obs_size(&config.c)
        self.games = <Game*>calloc(capacity, sizeof(Game))
        if self.games == NULL:
            raise MemoryError(f"RolloutBatch: {capacity} games of {sizeof(Game)} bytes")
        self.obs = _np.zeros((capacity, self.obs_size), _np.float32)
        self.mask = _np.zeros((capacity, self.num_actions), _np.int8)
        self.player = _np.full(capacity, -1, _np.int32)
        self.events = _np.zeros(capacity, _np.uint8)
        cdef float[:, ::1] obs = self.obs
        cdef int8_t[:, ::1] mask = self.mask
        cdef int32_t[::1] player = self.player
        cdef uint8_t[::1] events = self.events
        self._obs, self._mask, self._player, self._events = (&obs[0, 0], &mask[0, 0],
                                                             &player[0], &events[0])

    def __dealloc__(self):
        free(self.games)
        self.games = NULL

    def load(self, cores) -> None:
        """Games 0..len(cores)-1 become copies of ``cores`` (of this core's options; their
        generators included, so later deals are the copies' own); the rest are unused."""
        cdef Core core
        cdef Py_ssize_t i
        if len(cores) > self.capacity:
            raise ValueError(f"RolloutBatch.load: {len(cores)} games for a capacity of "
                             f"{self.capacity}")
        for i, core in enumerate(cores):
            if core.config is not self.config and core.config.options != self.config.options:
                raise ValueError(f"RolloutBatch.load: game {i} has other options")
        for i, core in enumerate(cores):
            self.games[i] = core.g
            self._events[i] = 0
            self._write(i)
        self._sources = tuple(cores)
        self.n = len(cores)

    cdef void _write(self, Py_ssize_t i) noexcept nogil:
        cdef Game* g = &self.games[i]
        cdef int p = game_current_player(g)
        self._player[i] = p
        game_mask(g, &self.config.c, self._mask + i * self.num_actions)
        if p >= 0:
            game_observe(g, &self.config.c, p, self._obs + i * self.obs_size)
        else:
            memset(self._obs + i * self.obs_size, 0, self.obs_size * sizeof(float))

    def step(self, const int64_t[::1] slots, const int64_t[::1] actions) -> Py_ssize_t:
        """Apply ``actions[j]`` in game ``slots[j]`` for every j, or in none: returns -1, or
        the first j whose slot is out of range or over, or whose action is not legal there
        (nothing changed)."""
        cdef Py_ssize_t j, i, m = slots.shape[0]
        cdef const Config* c = &self.config.c
        cdef Game* g
        if actions.shape[0] != m:
            raise ValueError(f"RolloutBatch.step: {actions.shape[0]} actions for {m} games")
        for j in range(m):
            i = slots[j]
            if not 0 <= i < self.n or game_current_player(&self.games[i]) < 0:
                return j
            if not 0 <= actions[j] < self.num_actions or not game_is_legal(
                    &self.games[i], c, <int>actions[j]):
                return j
        with nogil:
            if self.threads > 1:
                for j in prange(m, num_threads=self.threads, schedule="static"):
                    self._step_one(slots[j], <int>actions[j])
            else:
                for j in range(m):
                    self._step_one(slots[j], <int>actions[j])
        return -1

    cdef void _step_one(self, Py_ssize_t i, int action) noexcept nogil:
        self._events[i] = <uint8_t>game_apply(&self.games[i], &self.config.c, action)
        self._write(i)

    def playouts(self, const int64_t[::1] slots, const uint64_t[:, ::1] seeds):
        """float64 [len(slots), P]: each seat's mean return over random playouts of game
        ``slots[j]`` to its end, one per seed of ``seeds[j]`` (played on copies: the games
        are unchanged); a game already over gives its returns."""
        cdef Py_ssize_t j, m = slots.shape[0]
        cdef int P = self.num_players
        if seeds.shape[0] != m or seeds.shape[1] < 1:
            raise ValueError(f"RolloutBatch.playouts: seeds must be [{m}, M >= 1], got "
                             f"[{seeds.shape[0]}, {seeds.shape[1]}]")
        for j in range(m):
            if not 0 <= slots[j] < self.n:
                raise IndexError(f"RolloutBatch.playouts: game {slots[j]} is out of range "
                                 f"0..{self.n - 1}")
        out = _np.zeros((m, P), _np.float64)
        cdef double[:, ::1] o = out
        cdef bint oom = False
        with nogil:
            if self.threads > 1:
                for j in prange(m, num_threads=self.threads, schedule="static"):
                    if not self._playouts_one(slots[j], &seeds[j, 0], seeds.shape[1], &o[j, 0]):
                        oom = True
            else:
                for j in range(m):
                    if not self._playouts_one(slots[j], &seeds[j, 0], seeds.shape[1], &o[j, 0]):
                        oom = True
        if oom:
            raise MemoryError()
        return out

    cdef bint _playouts_one(self, Py_ssize_t i, const uint64_t* seeds, Py_ssize_t count,
                            double* out) noexcept nogil:
        cdef Game* g = <Game*>malloc(sizeof(Game))
        cdef double r[MAX_PLAYERS]
        cdef Py_ssize_t s
        cdef int k, P = self.num_players
        if g == NULL:
            return False
        if game_current_player(&self.games[i]) < 0:  # over: its returns, not a mean of them
            game_returns(&self.games[i], &self.config.c, out)
            free(g)
            return True
        for k in range(P):
            out[k] = 0.0
        for s in range(count):
            memcpy(g, &self.games[i], sizeof(Game))
            _playout(g, &self.config.c, seeds[s], r)
            for k in range(P):
                out[k] += r[k]
        for k in range(P):
            out[k] /= count
        free(g)
        return True

    def scores(self, const int64_t[::1] slots):
        """float64 [len(slots), P]: each seat's game score in game ``slots[j]``."""
        cdef Py_ssize_t j, m = slots.shape[0]
        out = _np.zeros((m, self.num_players), _np.float64)
        cdef double[:, ::1] o = out
        for j in range(m):
            if not 0 <= slots[j] < self.n:
                raise IndexError(f"RolloutBatch.scores: game {slots[j]} is out of range "
                                 f"0..{self.n - 1}")
            game_scores(&self.games[slots[j]], &self.config.c, &o[j, 0])
        return out

    def slot_core(self, Py_ssize_t i) -> Core:
        """A copy of game i as this core's Python-facing ``Core`` (made from the Core it was
        loaded from, which knows what else a game of this core holds on to)."""
        cdef Core core
        if not 0 <= i < self.n:
            raise IndexError(f"RolloutBatch: game {i} is out of range 0..{self.n - 1}")
        core = self._sources[i].copy()
        core.g = self.games[i]
        return core
