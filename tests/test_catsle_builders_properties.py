"""Properties of CATsle Builders over random legal games: no exception, every dealt card
ends in exactly one board, scores recomputed from the boards, replay, determinization,
and the env through PettingZoo."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pettingzoo
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.envs import catsle_builders_v0
from catzoo.games.catsle_builders import CatsleBuildersState, board_score
from catzoo.games.catsle_builders.layout import layout_for
from catzoo.games.catsle_builders.state import PLAY, cards_of
from tests.helpers import (
    assert_replays,
    pettingzoo_conformance,
    play_env_randomly,
    random_moves,
    random_playout,
)

games = st.fixed_dictionaries({
    "num_players": st.sampled_from([3, 4, 5]),
    "seed": st.integers(0, 2**32 - 1),
    "hand_size": st.one_of(st.none(), st.integers(1, 12)),
    "rounds": st.sampled_from(["full", "single"]),
})


def _new(params) -> CatsleBuildersState:
    return CatsleBuildersState.new(
        num_players=params["num_players"], seed=params["seed"],
        hand_size=params["hand_size"], rounds=params["rounds"],
    )


@settings(max_examples=25, deadline=None)
@given(games)
def test_random_games_conserve_cards_and_scores(params):
    state = _new(params)
    random_playout(state, random.Random(params["seed"]))
    o = state.options
    assert len(state.round_boards) == o.num_rounds
    totals = [0] * state.num_players
    for r, boards in enumerate(state.round_boards):
        hands, undealt = state.chance[1 + r]
        dealt = sorted(c for hand in hands for c in hand)
        assert sorted(dealt + list(undealt)) == list(range(o.deck_size))
        # Every dealt card is in exactly one column of one board, and nothing else is.
        on_boards = sorted(c for board in boards for column in board for c in column)
        assert on_boards == dealt
        for p, board in enumerate(boards):
            # One suit per column, each suit in one column at most.
            suits = [{c // 12 for c in column} for column in board]
            assert all(len(s) <= 1 for s in suits)
            used = [s.pop() for s in suits if s]
            assert len(used) == len(set(used))
            score, perfect = board_score([len(col) for col in board], o.limits, o.perfect_bonus)
            assert state.round_scores[r][p] == score >= 0
            assert state.round_perfect[r][p] == perfect
            totals[p] += score
    assert state.scores() == totals
    assert state.standing_keys() == [(totals[p], state.round_perfect[-1][p])
                                     for p in range(state.num_players)]
    assert_replays(state)


@settings(max_examples=15, deadline=None)
@given(games, st.integers(0, 400))
def test_observation_shows_the_viewer_only_its_own_hand(params, steps):
    state = _new(params)
    random_moves(state, random.Random(params["seed"]), steps)
    if state.is_terminal():
        return
    layout = layout_for(state.num_players)
    for p in range(state.num_players):
        view = layout.decode(state.observation(p))
        assert sorted(np.flatnonzero(view["hand"])) == cards_of(state.hands[p])
        # Seat rows are relative: row 0 is the viewer's own board.
        counts = view["board"][0].reshape(5, 8)[:, 5] * 5
        assert np.rint(counts[: len(state.options.limits)]).astype(int).tolist() == \
            state.board_counts(p)
        assert view["phase"][state.phase] == 1.0
    seen = set(np.flatnonzero(layout.decode(state.observation(0))["seen"]))
    assert seen == {c for cards in state.played_by for c in cards}


@settings(max_examples=15, deadline=None)
@given(games, st.integers(0, 300), st.integers(0, 2**32 - 1))
def test_resample_keeps_what_the_viewer_knows(params, steps, resample_seed):
    state = _new(params)
    random_moves(state, random.Random(params["seed"]), steps)
    if state.is_terminal():
        return
    viewer = state.current_player
    again = state.resample(viewer, random.Random(resample_seed))
    n = state.num_players
    np.testing.assert_array_equal(again.observation(viewer), state.observation(viewer))
    assert again.legal_actions() == state.legal_actions()
    hidden = sorted(c for q in range(n) if q != viewer for c in cards_of(state.hands[q]))
    hidden_again = sorted(c for q in range(n) if q != viewer for c in cards_of(again.hands[q]))
    assert sorted(hidden + list(state.undealt)) == sorted(hidden_again + list(again.undealt))
    for q in range(n):
        assert again.hands[q].bit_count() == state.hands[q].bit_count()
        for suit in range(5):
            if (state.voids[q] >> suit) & 1:
                assert not any(c // 12 == suit for c in cards_of(again.hands[q]))
    # The re-dealt game's log replays, and the copy plays on independently.
    assert_replays(again)
    random_playout(again, random.Random(resample_seed))
    assert not state.is_terminal()
    # Seen from another seat, the player to act gets a new hand and new legal moves.
    other = state.resample((viewer + 1) % n, random.Random(resample_seed))
    np.testing.assert_array_equal(other.observation((viewer + 1) % n),
                                  state.observation((viewer + 1) % n))
    assert_replays(other)
    random_playout(other, random.Random(resample_seed))


def test_resample_respects_a_revealed_void():
    # Over many seeds, find a state where someone failed to follow, and check it.
    checked = 0
    for seed in range(40):
        state = CatsleBuildersState.new(num_players=4, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal() and not any(state.voids):
            state.apply(rng.choice(state.legal_actions()))
        if state.is_terminal():
            continue
        q = next(q for q in range(4) if state.voids[q])
        viewer = (q + 1) % 4
        for k in range(5):
            again = state.resample(viewer, random.Random(k))
            for suit in range(5):
                if (state.voids[q] >> suit) & 1:
                    assert not any(c // 12 == suit for c in cards_of(again.hands[q]))
        checked += 1
    assert checked > 10


def test_clone_is_independent():
    state = CatsleBuildersState.new(num_players=5, seed=2)
    rng = random.Random(2)
    for _ in range(40):
        state.apply(rng.choice(state.legal_actions()))
    copy = state.clone()
    obs = state.observation(0).copy()
    random_playout(copy, rng)
    np.testing.assert_array_equal(state.observation(0), obs)
    assert state.history == copy.history[: len(state.history)]


@pytest.mark.parametrize("n", [3, 4, 5])
def test_pettingzoo_conformance(n):
    pettingzoo_conformance(catsle_builders_v0, num_players=n, num_cycles=300)


def test_registered_with_pettingzoo_make():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = pettingzoo.make("aec", "catzoo/catsle_builders-v0", num_players=3)
    env.reset(seed=1)
    assert env.unwrapped.game.num_players == 3


@pytest.mark.parametrize("n", [3, 4, 5])
def test_rewards(n):
    standing = play_env_randomly(catsle_builders_v0.env(num_players=n), seed=n)
    assert abs(sum(standing.values())) < 1e-9
    assert all(-1.0 <= r <= 1.0 for r in standing.values())
    env = catsle_builders_v0.env(num_players=n, reward="score", rounds="single")
    dense = play_env_randomly(env, seed=n)
    final = env.unwrapped.game.scores()
    assert [dense[a] for a in env.unwrapped.possible_agents] == final


def test_env_errors_name_the_problem():
    from catzoo.games.base import IllegalActionError, OptionsError

    with pytest.raises(OptionsError, match="num_players"):
        catsle_builders_v0.env(num_players=6)
    env = catsle_builders_v0.env(num_players=3, illegal_action="raise")
    env.reset(seed=0)
    game = env.unwrapped.game
    illegal = next(a for a in range(125) if not game.is_legal(a))
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(illegal)
    assert game.phase == PLAY and not game.history


@pytest.mark.parametrize("n", [3, 4, 5])
def test_replay_from_the_action_log(n):
    state = CatsleBuildersState.new(num_players=n, seed=40 + n)
    rng = random.Random(n)
    for _ in range(150):  # mid-game, in the middle of a round
        state.apply(rng.choice(state.legal_actions()))
    assert_replays(state)
    random_playout(state, rng)
    again = CatsleBuildersState.replay(state.to_json())
    assert again.round_scores == state.round_scores
    assert again.round_boards == state.round_boards
    log = state.action_log()
    log["actions"][0] = 60  # a take action where a card must be played
    with pytest.raises(ValueError, match="does not replay: step 0"):
        CatsleBuildersState.replay(log)
