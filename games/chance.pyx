# cython: language_level=3, boundscheck=False, wraparound=False
"""Deck shuffles for the engines, compiled.

Engines shuffle a deck at every deal, and in Python the swaps and the draws' calls cost
as much as a round of play in the compiled cores. Both shuffles draw from the engine's
own ``random.Random`` (so its seed fixes the deals) and swap in C.
"""


def shuffle(list items, rng) -> None:
    """Shuffle in place, uniformly (Fisher-Yates, from the end): position i swaps with
    ``j = int(rng.random() * (i + 1))``.

    One float per card instead of ``random.shuffle``'s rejection-sampled integers: its
    bias (a float has 53 bits) is far below anything a deck of cards can show.
    """
    cdef Py_ssize_t i, j
    draw = rng.random
    for i in range(len(items) - 1, 0, -1):
        j = <Py_ssize_t>(<double>draw() * (i + 1))
        items[i], items[j] = items[j], items[i]


def shuffle_as_random(list items, rng) -> None:
    """Exactly ``rng.shuffle(items)``: the same draws from ``rng`` and the same order
    (the library's algorithm: for each position from the end, ``getrandbits`` of the
    range's bit length until the draw falls in the range)."""
    cdef Py_ssize_t i, j, bits
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        bits = (i + 1).bit_length()
        j = getrandbits(bits)
        while j > i:
            j = getrandbits(bits)
        items[i], items[j] = items[j], items[i]


# --- the C generator of the compiled cores, seen from Python ------------------------------
# (mt19937.pxi also gives this module ``seed_words``: the words an int seed seeds it with)
include "mt19937.pxi"

from libc.stdint cimport int64_t, uint32_t, uint64_t


def slot_seeds(seed, Py_ssize_t n) -> list:
    """The first game seed of each of ``n`` slots of a batch seeded with ``seed``
    (``slot_game_seed``: output i of SplitMix64 seeded with ``seed``, masked to 63 bits).
    ``seed`` is taken modulo 2**64 (so any int seeds a batch)."""
    cdef uint64_t s = <uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF)
    cdef Py_ssize_t i
    if n < 0:
        raise ValueError(f"slot_seeds: n={n} must be >= 0")
    return [slot_game_seed(s, <uint64_t>i) for i in range(n)]


def next_seed(seed) -> int:
    """The seed of a slot's next game after its game of ``seed`` ended
    (``next_game_seed``: the first output of SplitMix64 seeded with ``seed``, 63 bits)."""
    return next_game_seed(<uint64_t>(int(seed) & 0xFFFFFFFFFFFFFFFF))


def _mt_draws(seed, ops) -> list:
    """Test-only window on mt19937.pxi (tests/test_mt19937.py checks it draw for draw
    against ``random.Random(seed)``). ``ops``: a sequence of (name, argument) with names
    ``random``, ``getrandbits`` (k), ``randbelow`` (n), ``shuffle`` and ``shuffle_by_float``
    (a list of ints, shuffled in a copy), ``state`` (the 624 words and the index, as
    ``Random.getstate()[1]``). Returns one result per op."""
    cdef MT mt
    cdef int i, length
    cdef int items[4096]
    mt_seed_from(&mt, seed)
    out = []
    for name, arg in ops:
        if name == "random":
            out.append(mt_random(&mt))
        elif name == "getrandbits":
            if not 0 < arg <= 64:
                raise ValueError("getrandbits: 0 < k <= 64")
            out.append(mt_getrandbits(&mt, arg))
        elif name == "randbelow":
            if not 0 < arg < 2**64:
                raise ValueError("randbelow: 0 < n < 2**64")
            out.append(mt_randbelow(&mt, arg))
        elif name in ("shuffle", "shuffle_by_float"):
            length = len(arg)
            if length > 4096:
                raise ValueError("shuffle: at most 4096 items")
            for i in range(length):
                items[i] = arg[i]
            if name == "shuffle":
                mt_shuffle_ints(&mt, items, length)
            else:
                mt_shuffle_ints_by_float(&mt, items, length)
            out.append([items[i] for i in range(length)])
        elif name == "state":
            out.append(mt_state_of(&mt))
        else:
            raise ValueError(f"_mt_draws: unknown op {name!r}")
    return out
