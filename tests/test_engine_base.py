"""The shared engine helpers in ``catzoo.games.base``: masks from bit sets, the shuffle that
keeps every seed's deals, and the feature memoryview surviving clones and pickling; and what
``catzoo.games.compiled.CompiledState`` does for every compiled core (the action log, the
fields read from the core)."""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import bits_to_mask, shuffle_as_random
from catzoo.games.cat_in_the_box.state import CatInTheBoxState
from catzoo.games.cat_tree.state import CatTreeState
from catzoo.games.catsle_builders.state import CatsleBuildersState
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


# --- the compiled states: what CompiledState does for every core -------------------------------
COMPILED = [CatInTheBoxState, LunarState, CatsleBuildersState, CatTreeState]


def _played(cls, seed: int, moves: int):
    state = cls.new(seed=seed)
    rng = random.Random(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("cls", COMPILED)
def test_an_action_the_core_refuses_is_not_logged(cls):
    state = _played(cls, 4, 9)
    before = (list(state.history), list(state.chance), state.current_player, state._legal,
              state.observation(state.current_player).tobytes())
    illegal = next(a for a in range(state.num_actions) if not state.is_legal(a))
    with pytest.raises(ValueError, match=f"action {illegal} is not legal"):
        state.apply_unchecked(illegal)  # past the state's check: the core's guard refuses it
    assert (list(state.history), list(state.chance), state.current_player, state._legal,
            state.observation(state.current_player).tobytes()) == before
    legal = state.legal_actions()[0]
    state.apply_unchecked(legal)
    assert state.history == before[0] + [legal]


@pytest.mark.parametrize("cls", COMPILED)
def test_core_fields_read_the_core_at_every_access_with_its_docs(cls):
    state = _played(cls, 7, 15)
    core_cls = cls.core_module.Core
    assert cls.core_fields
    for entry in cls.core_fields:
        name, core_name = (entry, entry) if isinstance(entry, str) else entry
        field = cls.__dict__[name]
        assert isinstance(field, property)
        assert field.__doc__ == getattr(core_cls, core_name).__doc__
        assert getattr(state, name) == getattr(state._core, core_name)
        if name not in cls.writable_fields:
            with pytest.raises(AttributeError):
                setattr(state, name, getattr(state, name))
    before = state.phase
    state.apply(state.legal_actions()[0])
    state = state.clone()  # a field reads whatever core the state holds now
    assert state.phase == state._core.phase and isinstance(before, int)


def test_a_core_field_the_core_lacks_is_refused_when_the_class_is_made():
    with pytest.raises(TypeError, match="no property 'nothing'"):
        type("Broken", (CatInTheBoxState,), {"core_fields": ("nothing",)})
    with pytest.raises(TypeError, match="both defined and a core field"):
        type("Twice", (CatInTheBoxState,), {"core_fields": ("phase",), "phase": 1})


def test_a_writable_core_field_sets_the_core_which_checks_it():
    state = CatInTheBoxState.new(seed=2, num_players=3)
    state.total_scores = [4, 5, 6]
    assert state._core.total_scores == state.total_scores == [4, 5, 6]
    with pytest.raises(ValueError, match="2 totals for 3 players"):
        state.total_scores = [1, 2]
    assert state.total_scores == [4, 5, 6]
