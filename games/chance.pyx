# cython: language_level=3, boundscheck=False, wraparound=False
"""Deck shuffles for the engines, compiled.

Engines shuffle a deck at every deal, and in Python the swaps and the draws' calls cost
as much as a round of play in the compiled cores. Both shuffles draw from the engine's
own ``random.Random`` (so a seed gives the same deals as ever) and swap in C.
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
