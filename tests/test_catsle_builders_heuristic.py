"""The CATsle Builders heuristic clearly beats random play at 3, 4 and 5 players."""

from __future__ import annotations

import numpy as np
import pytest

from catzoo.games.catsle_builders import CatsleBuildersState
from catzoo.policies import RandomPolicy, make_policy
from catzoo.policies.heuristics.catsle_builders import CatsleBuildersHeuristic


def arena(num_players: int, games: int) -> tuple[float, float]:
    """One heuristic against random players, its seat rotating; the heuristic's mean
    standing reward (in [-1, 1], 0 for an average player) and its win share."""
    standing, wins = [], 0.0
    for g in range(games):
        state = CatsleBuildersState.new(num_players=num_players, seed=10_000 + g)
        seat = g % num_players
        bots = [CatsleBuildersHeuristic(num_players, seed=g) if p == seat
                else RandomPolicy(seed=100 * g + p) for p in range(num_players)]
        while not state.is_terminal():
            p = state.current_player
            obs = {"observation": state.observation(p), "action_mask": state.legal_mask()}
            state.apply(bots[p].act(obs))
        standing.append(state.returns()[seat])
        winners = state.winners()
        wins += (seat in winners) / len(winners)
    return float(np.mean(standing)), wins / games


@pytest.mark.parametrize("num_players, games, min_standing, min_wins", [
    (3, 60, 0.25, 0.45),
    (4, 40, 0.5, 0.55),
    (5, 40, 0.6, 0.6),
])
def test_heuristic_beats_random(num_players, games, min_standing, min_wins):
    standing, wins = arena(num_players, games)
    # A random player's expectation: standing 0, wins 1 / num_players.
    assert standing >= min_standing, standing
    assert wins >= min_wins, wins


def test_registered_and_legal():
    bot = make_policy("heuristic", "catsle_builders", num_players=4, seed=0)
    state = CatsleBuildersState.new(num_players=4, seed=0)
    for _ in range(200):
        if state.is_terminal():
            break
        p = state.current_player
        action = bot.act({"observation": state.observation(p), "action_mask": state.legal_mask()})
        assert state.is_legal(action)
        state.apply(action)
