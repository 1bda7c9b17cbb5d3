"""A re-deal reads only what its viewer saw: re-dealing a re-deal of a game gives what
re-dealing the game itself gives from the same generator, since the viewer cannot tell the
two apart. A re-deal that kept anything hidden from the viewer (a hand's order, who held
which unseen card) would differ, and a search over such re-deals would play on knowledge
the rules deny it. (Cat Tree's, with the partner's unrevealed pick, are checked in
tests/test_cat_tree_properties.py.)"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.cat_in_the_box import CatInTheBoxState
from catzoo.games.catsle_builders import CatsleBuildersState
from catzoo.games.lunar import LunarState
from tests.helpers import random_moves

TABLES = [(CatInTheBoxState, n) for n in (2, 3, 4, 5)] + [
    (LunarState, n) for n in (2, 4)] + [(CatsleBuildersState, n) for n in (3, 4, 5)]


@pytest.mark.parametrize(("cls", "n"), TABLES, ids=lambda v: getattr(v, "game_name", v))
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(0, 400))
def test_a_redeal_of_a_redeal_is_a_redeal_of_the_game(cls, n, seed, steps):
    state = cls.new(num_players=n, seed=seed)
    rng = random.Random(seed)
    random_moves(state, rng, steps)
    for viewer in range(n):
        twin = state.resample(viewer, random.Random(rng.getrandbits(32)))
        np.testing.assert_array_equal(twin.observation(viewer), state.observation(viewer))
        k = rng.getrandbits(32)
        a = state.resample(viewer, random.Random(k))
        b = twin.resample(viewer, random.Random(k))
        assert a.chance == b.chance
        assert a.history == b.history
        for p in range(n):
            np.testing.assert_array_equal(a.observation(p), b.observation(p))
