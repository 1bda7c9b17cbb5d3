"""The CATsle Builders heuristic's estimates in C (policies/heuristics/catsle_estimates.pyx)
against the whole-batch numpy formulas they were before (tests/catsle_estimates_reference.py),
on the observations of random legal play at every player count: every viewer's, mid-trick
and between tricks, the take and column phases included."""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.catsle_builders import CatsleBuildersState
from catzoo.policies.heuristics.catsle_builders import (
    CatsleBuildersHeuristic,
    estimates,
    suit_values,
)
from tests import catsle_estimates_reference as reference

FIELDS = ("suit_value", "beat", "play", "unknown_value")


def observations(num_players: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Every seat's observation and mask at every step of one random game."""
    state = CatsleBuildersState.new(num_players=num_players, seed=seed)
    rng = random.Random(seed)
    obs, masks = [], []
    while not state.is_terminal():
        mover = state.current_player
        for p in range(num_players):
            obs.append(state.observation(p))
            masks.append(state.legal_mask() if p == mover else np.zeros_like(state.legal_mask()))
        state.apply(rng.choice(state.legal_actions()))
    return np.array(obs), np.array(masks)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([3, 4, 5]), st.integers(0, 2**31 - 1), st.booleans())
def test_the_compiled_estimates_equal_the_numpy_formulas(num_players, seed, only_players):
    bot = CatsleBuildersHeuristic(num_players)
    obs, masks = observations(num_players, seed)
    view = bot.layout.decode(obs)
    # None: every row's play values; else only the rows whose viewer is to play a card
    rows = masks[:, :60].any(axis=1) if only_players else None
    got = estimates(view, num_players, bot.num_suits, bot.takes, rows)
    want = reference.estimates(view, num_players, bot.num_suits, bot.takes, rows)
    for field in FIELDS:
        np.testing.assert_allclose(getattr(got, field), getattr(want, field), rtol=0, atol=1e-12,
                                   err_msg=field)
    # the play values differ between cards (else the comparison above proves little)
    assert np.ptp(got.play) > 1.0 and np.ptp(got.beat) > 0.5
    boards = view["board"][:, 0].reshape(-1, 5, 8)
    np.testing.assert_array_equal(suit_values(boards), reference.suit_values(boards))


def test_rows_not_asked_for_get_no_play_values():
    bot = CatsleBuildersHeuristic(3)
    obs, _ = observations(3, 7)
    view = bot.layout.decode(obs)
    rows = np.zeros(len(obs), dtype=bool)
    rows[::5] = True
    got = estimates(view, 3, bot.num_suits, bot.takes, rows)
    assert not got.play[~rows].any() and got.play[rows].any()
    full = estimates(view, 3, bot.num_suits, bot.takes)
    np.testing.assert_array_equal(got.play[rows], full.play[rows])
    np.testing.assert_array_equal(got.beat, full.beat)
