"""The shared engine helpers in ``catzoo.games.base``: masks from bit sets, the shuffle that
keeps every seed's deals, and the feature memoryview surviving clones and pickling."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import bits_to_mask, shuffle_as_random
from catzoo.games.cat_in_the_box.state import CatInTheBoxState
from catzoo.games.lunar.state import LunarState

# Each way bits_to_mask builds a mask (16-bit words, bytes, unpackbits) and their edges.
SIZES = [1, 7, 8, 9, 16, 17, 40, 50, 63, 64, 65, 200, 512, 513, 3539]


@settings(max_examples=300, deadline=None)
@given(size=st.sampled_from(SIZES), data=st.data())
def test_bits_to_mask_matches_the_bits(size, data):
    bits = data.draw(st.integers(0, (1 << size) - 1))
    mask = bits_to_mask(bits, size)
    expected = np.array([(bits >> i) & 1 for i in range(size)], dtype=np.int8)
    assert mask.dtype == np.int8 and mask.shape == (size,)
    np.testing.assert_array_equal(mask, expected)
    assert mask.flags.writeable


def test_legal_masks_handed_out_are_independent_copies():
    state = CatInTheBoxState.new(seed=3, num_players=3)
    first = state.legal_mask()
    legal = first.copy()
    first[:] = 1 - first  # a caller scribbling on its mask
    second = state.legal_mask()
    np.testing.assert_array_equal(second, legal)
    assert second is not first


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(0, 80))
def test_shuffle_as_random_is_the_library_shuffle(seed, size):
    ours, theirs = list(range(size)), list(range(size))
    rng_ours, rng_theirs = random.Random(seed), random.Random(seed)
    shuffle_as_random(ours, rng_ours)
    rng_theirs.shuffle(theirs)
    assert ours == theirs
    assert rng_ours.random() == rng_theirs.random()  # the same number of draws


@pytest.mark.parametrize("cls,players", [(CatInTheBoxState, 2), (CatInTheBoxState, 4),
                                         (LunarState, 2), (LunarState, 4)])
def test_clones_and_unpickled_states_write_their_own_features(cls, players):
    state = cls.new(seed=11, num_players=players)
    rng = random.Random(0)
    for _ in range(7):
        state.apply(rng.choice(state.legal_actions()))
    before = [state.observation(p).copy() for p in range(players)]
    for copy in (state.clone(), pickle.loads(pickle.dumps(state))):
        for _ in range(9):  # features of the copy change as it plays on
            copy.apply(rng.choice(copy.legal_actions()))
        assert any(not np.array_equal(copy.observation(p), before[p]) for p in range(players))
        for p in range(players):  # ... and the original's do not
            np.testing.assert_array_equal(state.observation(p), before[p])
    # An unpickled state keeps playing exactly as the original does.
    twin = pickle.loads(pickle.dumps(state))
    for _ in range(12):
        if state.is_terminal():
            break
        action = rng.choice(state.legal_actions())
        state.apply(action)
        twin.apply(action)
        for p in range(players):
            np.testing.assert_array_equal(twin.observation(p), state.observation(p))
