# Included by the compiled game cores (games/<game>/core.pyx): Python's own random
# generator, in C, so that a core deals the very games ``random.Random(seed)`` deals.
#
# Why not a faster generator: every existing replay, reference deal, test scenario and
# trained checkpoint was made with ``random.Random(seed)`` deals, and the AEC env and the
# batched engine must deal the same game from the same seed. This is CPython's MT19937
# (Modules/_randommodule.c) with its seeding (init_by_array over the seed's 32-bit words),
# ``random()``, ``getrandbits()``, ``_randbelow()`` and ``shuffle()``, draw for draw;
# tests/test_mt19937.py checks every one against the library.

from libc.stdint cimport int64_t, uint32_t, uint64_t
from libc.stdlib cimport free, malloc

cdef enum:
    MT_N = 624
    MT_M = 397

ctypedef struct MT:
    uint32_t state[624]
    int index


cdef inline void mt_init_genrand(MT* mt, uint32_t s) noexcept nogil:
    cdef int i
    mt.state[0] = s
    for i in range(1, MT_N):
        mt.state[i] = <uint32_t>(1812433253u * (mt.state[i - 1] ^ (mt.state[i - 1] >> 30)) + <uint32_t>i)
    mt.index = MT_N


# init_by_array starts from init_genrand(19650218): computed once (the batched engine seeds
# a generator per game, and this is a third of a seeding's work).
cdef MT _MT_BASE
mt_init_genrand(&_MT_BASE, 19650218u)


cdef inline void mt_seed_words(MT* mt, const uint32_t* key, int keylen) noexcept nogil:
    """CPython's init_by_array: ``random.seed(n)`` for an int n uses the 32-bit words of
    abs(n), least significant first (one word, 0, for n = 0)."""
    cdef int i = 1, j = 0, k
    cdef uint32_t* s = mt.state
    mt[0] = _MT_BASE
    k = MT_N if MT_N > keylen else keylen
    while k:
        s[i] = <uint32_t>((s[i] ^ ((s[i - 1] ^ (s[i - 1] >> 30)) * 1664525u)) + key[j] + <uint32_t>j)
        i += 1
        j += 1
        if i >= MT_N:
            s[0] = s[MT_N - 1]
            i = 1
        if j >= keylen:
            j = 0
        k -= 1
    k = MT_N - 1
    while k:
        s[i] = <uint32_t>((s[i] ^ ((s[i - 1] ^ (s[i - 1] >> 30)) * 1566083941u)) - <uint32_t>i)
        i += 1
        if i >= MT_N:
            s[0] = s[MT_N - 1]
            i = 1
        k -= 1
    s[0] = 0x80000000u
    mt.index = MT_N


cdef inline void _mt_twist(MT* mt) noexcept nogil:
    cdef int kk
    cdef uint32_t y
    cdef uint32_t* s = mt.state
    for kk in range(MT_N - MT_M):
        y = (s[kk] & 0x80000000u) | (s[kk + 1] & 0x7fffffffu)
        s[kk] = s[kk + MT_M] ^ (y >> 1) ^ (0x9908b0dfu if y & 1u else 0u)
    for kk in range(MT_N - MT_M, MT_N - 1):
        y = (s[kk] & 0x80000000u) | (s[kk + 1] & 0x7fffffffu)
        s[kk] = s[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (0x9908b0dfu if y & 1u else 0u)
    y = (s[MT_N - 1] & 0x80000000u) | (s[0] & 0x7fffffffu)
    s[MT_N - 1] = s[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfu if y & 1u else 0u)
    mt.index = 0


cdef inline uint32_t mt_next32(MT* mt) noexcept nogil:
    cdef uint32_t y
    if mt.index >= MT_N:
        _mt_twist(mt)
    y = mt.state[mt.index]
    mt.index += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680u
    y ^= (y << 15) & 0xefc60000u
    y ^= y >> 18
    return y


cdef inline double mt_random(MT* mt) noexcept nogil:
    """``random()``: a float in [0, 1) with 53 random bits."""
    cdef uint32_t a = mt_next32(mt) >> 5
    cdef uint32_t b = mt_next32(mt) >> 6
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0)


cdef inline uint64_t mt_getrandbits(MT* mt, int k) noexcept nogil:
    """``getrandbits(k)`` for 0 < k <= 64 (words least significant first; the last
    word's surplus bits dropped from its low end, as CPython does)."""
    cdef uint32_t lo
    if k <= 32:
        return mt_next32(mt) >> (32 - k)
    lo = mt_next32(mt)
    return (<uint64_t>(mt_next32(mt) >> (64 - k)) << 32) | lo


cdef inline int _bit_length(uint64_t n) noexcept nogil:
    cdef int k = 0
    while n:
        k += 1
        n >>= 1
    return k


cdef inline uint64_t mt_randbelow(MT* mt, uint64_t n) noexcept nogil:
    """``randrange(n)`` for n >= 1 (``_randbelow_with_getrandbits``: rejection sampling
    of ``getrandbits(n.bit_length())``)."""
    cdef int k = _bit_length(n)
    cdef uint64_t r = mt_getrandbits(mt, k)
    while r >= n:
        r = mt_getrandbits(mt, k)
    return r


cdef inline void mt_shuffle_ints(MT* mt, int* items, int length) noexcept nogil:
    """``random.shuffle(items)``: from the end, position i swaps with ``randbelow(i + 1)``."""
    cdef int i, j, t
    for i in range(length - 1, 0, -1):
        j = <int>mt_randbelow(mt, <uint64_t>(i + 1))
        t = items[i]
        items[i] = items[j]
        items[j] = t


cdef inline void mt_shuffle_ints_by_float(MT* mt, int* items, int length) noexcept nogil:
    """``catzoo.games.chance.shuffle``: from the end, position i swaps with
    ``int(random() * (i + 1))`` (one float per card)."""
    cdef int i, j, t
    for i in range(length - 1, 0, -1):
        j = <int>(mt_random(mt) * (i + 1))
        t = items[i]
        items[i] = items[j]
        items[j] = t


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    """The next output of SplitMix64 (Steele, Lea, Flood 2014): the batched engine's
    stream of game seeds per slot (see catzoo.vector)."""
    cdef uint64_t z
    state[0] += 0x9E3779B97F4A7C15ULL
    z = state[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


# The batched engine's game seeds (catzoo.vector; documented in docs/vector.md). Seeds are
# masked to 63 bits so that each is a non-negative int64 that ``env.reset(seed=...)`` and
# numpy's int64 arrays take as is.
cdef uint64_t SEED_MASK = 0x7FFFFFFFFFFFFFFFULL


cdef inline uint64_t slot_game_seed(uint64_t seed, uint64_t slot) noexcept nogil:
    """Slot ``slot``'s first game seed: output ``slot`` (from 0) of SplitMix64 seeded with
    ``seed``, masked to 63 bits (SplitMix64's state advances by a constant per output, so
    any output is found without the ones before it)."""
    cdef uint64_t state = seed + slot * 0x9E3779B97F4A7C15ULL
    return splitmix64(&state) & SEED_MASK


cdef inline uint64_t next_game_seed(uint64_t seed) noexcept nogil:
    """The seed of the game a slot is dealt after a game of ``seed`` ends: the first output
    of SplitMix64 seeded with ``seed``, masked to 63 bits."""
    cdef uint64_t state = seed
    return splitmix64(&state) & SEED_MASK


# --- the generator seen from Python: seeded and read as ``random.Random`` is ---------------
import random as _random
from operator import index as _index


def seed_words(seed) -> list:
    """The 32-bit words, least significant first, that ``random.Random(seed)`` seeds its
    generator with for an int ``seed`` (those of ``abs(seed)``; ``[0]`` for 0): what
    ``mt_seed_words`` takes."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"a seed must be an int, got {seed!r} of type {type(seed).__name__}")
    n = abs(_index(seed))
    words = []
    while True:
        words.append(n & 0xFFFFFFFF)
        n >>= 32
        if not n:
            return words


cdef int mt_seed_from(MT* mt, seed) except -1:
    """Seed ``mt`` as ``random.Random(seed)`` seeds itself, for any seed it takes: an int
    (a numpy one, a bool as 0 or 1) by ``seed_words`` in C; a str, bytes or float through
    Python's own seeding, its state read back."""
    cdef uint32_t small[8]
    cdef uint32_t* key = small
    cdef int i, n
    if not hasattr(seed, "__index__"):
        return mt_set_state(mt, _random.Random(seed).getstate()[1])
    words = seed_words(int(_index(seed)))
    n = len(words)
    if n > 8:
        key = <uint32_t*>malloc(n * sizeof(uint32_t))
        if key == NULL:
            raise MemoryError()
    for i in range(n):
        key[i] = words[i]
    mt_seed_words(mt, key, n)
    if key != small:
        free(key)
    return 0


cdef tuple mt_state_of(const MT* mt):
    """The state as ``random.Random.getstate()[1]`` holds it: the 624 words, the index."""
    cdef int i
    return tuple([mt.state[i] for i in range(MT_N)]) + (mt.index,)


cdef int mt_set_state(MT* mt, state) except -1:
    """Set ``mt`` to ``state`` (as ``mt_state_of`` gives it), checked whole first: a
    wrong length or index raises ValueError, a word outside 32 bits OverflowError, and
    ``mt`` is unchanged."""
    cdef MT staged
    cdef int i
    if len(state) != MT_N + 1:
        raise ValueError(f"a generator state is {MT_N + 1} numbers (624 words and an index "
                         f"in 0..624), got {len(state)}")
    if not 0 <= state[MT_N] <= MT_N:
        raise ValueError(f"a generator state ends with an index in 0..624, got {state[MT_N]!r}")
    for i in range(MT_N):
        staged.state[i] = state[i]
    staged.index = state[MT_N]
    mt[0] = staged
    return 0
