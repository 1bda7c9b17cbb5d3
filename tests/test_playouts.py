"""The compiled games' random playouts (``CompiledState.playout_returns``, batch.pxi), the
search bots' leaf evaluation: the moves they play replay through the Python state to the
same returns, they leave the state as it was, and they draw moves uniformly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.registry import get_game

GAMES = [("cat_in_the_box", 2), ("cat_in_the_box", 5), ("lunar", 2), ("lunar", 4),
         ("catsle_builders", 3), ("catsle_builders", 5), ("cat_tree", 2)]


def _midgame(game: str, n: int, seed: int, depth: int):
    state = get_game(game).engine_class().new(num_players=n, seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(depth):
        if state.current_player < 0:
            break
        legal = state.legal_actions()
        state.apply(int(legal[rng.integers(len(legal))]))
    return state


@pytest.mark.parametrize("game,n", GAMES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**40), depth=st.integers(0, 60), playout=st.integers(0, 2**64 - 1),
       limit=st.one_of(st.none(), st.integers(0, 30)))
def test_a_playout_replays_through_the_python_state(game, n, seed, depth, playout, limit):
    state = _midgame(game, n, seed, depth)
    before = state.state_vector()
    moves: list[int] = []
    result = state.playout_returns(playout, limit, moves)
    assert np.array_equal(state.state_vector(), before)  # played on a copy
    assert limit is None or len(moves) <= limit
    replay = state.clone()  # the same generator: the same later deals
    for a in moves:
        assert a in replay.legal_actions()
        replay.apply(a)
    if limit is None or len(moves) < limit:
        assert replay.current_player < 0  # played to the end
    assert np.allclose(result, replay.returns())
    assert np.array_equal(result, state.playout_returns(playout, limit))  # seeded


def test_playout_moves_are_uniform_over_the_legal_set():
    state = get_game("cat_in_the_box").engine_class().new(num_players=3, seed=7)
    legal = list(state.legal_actions())
    counts = dict.fromkeys(legal, 0)
    draws = 6000
    for k in range(draws):
        moves: list[int] = []
        state.playout_returns(k, 1, moves)
        counts[moves[0]] += 1
    expected = draws / len(legal)
    chi2 = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi2 < 3 * len(legal) + 30, counts  # far beyond a chi-square's 99.9% point


def test_ismcts_searches_compiled_games_with_c_playouts():
    from catzoo.policies.registry import make_policy

    state = get_game("lunar").engine_class().new(num_players=4, seed=2)
    bot = make_policy("ismcts:iterations=50", "lunar", 4, seed=0)
    legal = [int(a) for a in state.legal_actions()]
    first = bot.search(state, state.current_player, legal)
    bot.reset(seed=0)
    assert first == bot.search(state, state.current_player, legal)  # reproducible
    assert first in legal
