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
from catzoo.games.lunar.core import NUM_CARDS, PASS_PER_TYPE, PICK_BASE, card_type
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


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), picks=st.integers(1, 16), viewer=st.integers(0, 3))
def test_a_lunar_redeal_reads_no_hidden_pick(seed, picks, viewer):
    """Two games of one deal look the same to the viewer, before the exchange and after it,
    where the opponents passed different cards and the partner passed the same ones in
    another order; they re-deal the same: what an opponent has passed so far, and in which
    order anyone passed, are not the viewer's to know."""
    games = [LunarState.new(num_players=4, seed=seed) for _ in range(2)]
    rngs = [random.Random(seed), random.Random(seed + 1)]
    partner = (viewer + 2) % 4
    hand = [card for card in range(NUM_CARDS) for _ in range(games[0].hands[partner][card])]
    gift = [card for t in (0, 1) for card in rngs[0].sample(
        [c for c in hand if card_type(c) == t], PASS_PER_TYPE)]
    orders = [rng.sample(gift, len(gift)) for rng in rngs]
    for _ in range(picks):
        mover = games[0].current_player
        for game, rng, order in zip(games, rngs, orders):
            legal = game.legal_actions()
            if mover == viewer:
                game.apply(legal[0])
            elif mover == partner:
                game.apply(PICK_BASE + order.pop())
            else:
                game.apply(rng.choice(legal))
    np.testing.assert_array_equal(games[0].observation(viewer), games[1].observation(viewer))
    a, b = (game.resample(viewer, random.Random(seed)) for game in games)
    assert a.history == b.history
    assert a.chance == b.chance
    for p in range(4):
        np.testing.assert_array_equal(a.observation(p), b.observation(p))
