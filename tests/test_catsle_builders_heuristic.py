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


# Heuristic self-play logs of seeds 0-3, hashed, as the per-card loop the batched estimates
# replaced played them: a change to the heuristic's play shows here.
SELF_PLAY_LOGS = {3: "b32a27fb7f173325", 4: "8c89500212a99329", 5: "f9a3ebed8b4a2f41"}


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_heuristic_plays_as_it_did_before_it_was_batched(n):
    import hashlib

    from catzoo.policies.match import play_match

    h = hashlib.sha256()
    for g in range(4):
        seats = [CatsleBuildersHeuristic(n, seed=0) for _ in range(n)]
        h.update(repr(play_match("catsle_builders", seats, seed=g).log).encode())
    assert h.hexdigest()[:16] == SELF_PLAY_LOGS[n]


@pytest.mark.parametrize("n", [3, 5])
def test_the_heuristics_batch_is_its_moves_row_by_row(n):
    """Rows of every phase in one batch, as the batched trainer hands them over: each
    row's action is the one ``act`` takes alone (ties broken by the same generator)."""
    from tests.helpers import assert_batch_is_row_by_row

    batched, alone = CatsleBuildersHeuristic(n, seed=3), CatsleBuildersHeuristic(n, seed=3)
    phases = assert_batch_is_row_by_row("catsle_builders", batched, alone, n, 32, 80, seed=5)
    assert phases == {0, 1, 2}


def _view_mid_trick():
    """3 players, the first trick of a round: the player after this one led Walls 5, this
    player holds Walls 3 and Gables 10, the player after it is still to play; empty
    boards with the default limits 2, 3, 4, 5."""
    from catzoo.games.catsle_builders.options import VALUES

    n = 3
    view = {"hand": np.zeros((1, 60)), "seen": np.zeros((1, 60)),
            "board": np.zeros((1, n, 40)), "trick_card": np.zeros((1, n, 17)),
            "leader": np.zeros((1, n, 1)), "led": np.zeros((1, 5)),
            "tricks_left": np.ones((1, 1))}
    walls3, walls5, gables10 = 2, 4, VALUES + 9
    view["hand"][0, [walls3, gables10]] = 1
    view["seen"][0, walls5] = 1
    for seat in range(n):
        view["board"][0, seat].reshape(5, 8)[:4, 7] = np.array([2, 3, 4, 5]) / 5
    view["trick_card"][0, 2, 0] = 1  # relative seat 2 (the one before this player): Walls
    view["trick_card"][0, 2, 5 + 4] = 1  # value 5
    view["leader"][0, 2, 0] = 1
    view["led"][0, 0] = 1
    return view, walls3, gables10


def test_the_estimates_by_hand():
    from catzoo.policies.heuristics.catsle_builders import estimates

    view, walls3, gables10 = _view_mid_trick()
    est = estimates(view, 3, 4, (1, 2, 0))
    # Every suit is new and limited columns are free: each card is worth +1.
    np.testing.assert_array_equal(est.suit_value[0], [1, 1, 1, 1, 1])
    assert est.unknown_value[0] == 1.0
    # 45 unseen cards (48 minus the 2 held and Walls 5), 10 of them Walls; 16 cards a hand.
    has_walls = 1 - (1 - 10 / 45) ** 16
    # Walls 3 is beaten by a later Walls above it: 4, 6, 7, ..., 12 (8 of the 10).
    p = has_walls * 8 / 10
    assert est.beat[0, walls3] == pytest.approx(p)
    # Gables 10 loses to any Walls, else to an off-suit 10 or more: Gables 11, 12 and three
    # each of Gates and Bridges (8 of the 35 unseen non-Walls).
    assert est.beat[0, gables10] == pytest.approx(has_walls + (1 - has_walls) * 8 / 35)
    # Walls 3 is rated below Walls 5: second (takes 2 cards worth 1 each) unless the last
    # player beats it too (third, takes nothing). The higher card gets 0.001 a value step.
    assert est.play[0, walls3] == pytest.approx(2 * (1 - p) + 0.002)


def test_a_full_column_makes_its_suit_costly():
    from catzoo.policies.heuristics.catsle_builders import suit_values

    board = np.zeros((1, 5, 8))
    board[0, :4, 7] = np.array([2, 3, 4, 5]) / 5
    board[0, 0, 0], board[0, 0, 5] = 1, 2 / 5  # Walls: 2 of 2, full
    board[0, 1, 1], board[0, 1, 5] = 1, 2 / 5  # Gables: 2 of 3, one more makes it perfect
    board[0, 2, 2], board[0, 2, 5] = 1, 1 / 5  # Gates: 1 of 4
    # Walls would fall from +2 to -1 and lose the bonus step: -(2 + 1 + 2); Gables +1 and
    # the perfect column's step +2; Gates +1; Bridges and Moats are new, a limited column
    # (limit 5) is free: +1.
    np.testing.assert_array_equal(suit_values(board)[0], [-5, 3, 1, 1, 1])
