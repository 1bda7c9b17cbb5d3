"""games/mt19937.pxi, the compiled cores' generator, against CPython's ``random.Random``
draw for draw (through ``catzoo.games.chance._mt_draws``, its test-only window), and the
batched engine's seed streams against an independent SplitMix64."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import shuffle, shuffle_as_random
from catzoo.games.chance import _mt_draws, next_seed, seed_words, slot_seeds

SEEDS = st.one_of(st.integers(0, 2**32 - 1), st.integers(0, 2**64 - 1),
                  st.integers(-(2**200), 2**200))
MASK64 = (1 << 64) - 1


def test_seeding_gives_cpythons_state():
    for seed in (0, 1, 2**32 - 1, 2**32, 2**63 - 1, 2**64 - 1, 2**64, -7, 3**100):
        (state,) = _mt_draws(seed, [("state", None)])
        assert state == random.Random(seed).getstate()[1], seed


def test_seed_words_are_those_random_seeds_with():
    assert seed_words(0) == [0]
    assert seed_words(2**32) == [0, 1]
    assert seed_words(-5) == [5]  # random.seed uses abs(n)


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, ops=st.lists(st.one_of(
    st.tuples(st.just("random"), st.none()),
    st.tuples(st.just("getrandbits"), st.integers(1, 64)),
    st.tuples(st.just("randbelow"), st.integers(1, 2**64 - 1)),
    st.tuples(st.just("shuffle"), st.lists(st.integers(-100, 100), max_size=60)),
    st.tuples(st.just("shuffle_by_float"), st.lists(st.integers(-100, 100), max_size=60)),
), max_size=40))
def test_every_draw_is_cpythons(seed, ops):
    ours = _mt_draws(seed, ops + [("state", None)])
    rng = random.Random(seed)
    for (name, arg), got in zip(ops, ours):
        if name == "random":
            assert got == rng.random()
        elif name == "getrandbits":
            assert got == rng.getrandbits(arg)
        elif name == "randbelow":
            assert got == rng.randrange(arg)
        elif name == "shuffle":
            items = list(arg)
            shuffle_as_random(items, rng)  # = rng.shuffle, checked in test_round_cores
            assert got == items
        else:
            items = list(arg)
            shuffle(items, rng)  # catzoo.games.chance.shuffle, the engines' deal shuffle
            assert got == items
    assert ours[-1] == rng.getstate()[1]  # the same number of words drawn


def test_shuffle_as_random_is_the_librarys():
    for seed in range(50):
        a, b = list(range(30)), list(range(30))
        random.Random(seed).shuffle(a)
        shuffle_as_random(b, random.Random(seed))
        assert a == b


def splitmix64(state: int) -> tuple[int, int]:
    """Reference SplitMix64 (Steele, Lea, Flood 2014): (new state, output)."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def test_splitmix64_reference_value():
    assert splitmix64(0)[1] == 0xE220A8397B1DCDAF  # the published first output from 0


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), n=st.integers(0, 40))
def test_slot_seeds_are_the_splitmix64_stream_in_63_bits(seed, n):
    expected, state = [], seed
    for _ in range(n):
        state, out = splitmix64(state)
        expected.append(out & (2**63 - 1))
    assert slot_seeds(seed, n) == expected
    for s in expected:
        assert next_seed(s) == splitmix64(s)[1] & (2**63 - 1)
