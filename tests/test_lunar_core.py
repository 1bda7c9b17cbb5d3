"""Lunar's compiled core (games/lunar/core.pyx): it deals what ``random.Random(seed)``
deals, hands its generator over as the search bots expect, refuses bad pinned deals and
bad setter input before they reach its arrays, and writes the observation the layout
documents."""

from __future__ import annotations

import pickle
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import TERMINAL, ReplayError, SeedError, shuffle_as_random
from catzoo.games.lunar import LunarOptions, LunarState
from catzoo.games.lunar.core import (
    NUM_CARDS,
    RANK_COPIES,
    SUIT_COPIES,
    Core,
    check_deal,
    make_config,
    round_points,
)
from catzoo.games.lunar.layout import layout_for
from tests.helpers import random_moves

SUIT_DECK = [s for s in range(4) for _ in range(SUIT_COPIES)]
RANK_DECK = [c for c in range(4, NUM_CARDS) for _ in range(RANK_COPIES)]


def python_deal(rng: random.Random) -> tuple:
    """The deal as the rules define it: the suit deck, then the rank deck, each shuffled
    by ``random.shuffle`` from the game's generator."""
    suits, ranks = list(SUIT_DECK), list(RANK_DECK)
    shuffle_as_random(suits, rng)
    shuffle_as_random(ranks, rng)
    return (tuple(suits), tuple(ranks))


def finish_round(state, rng: random.Random) -> None:
    rounds = state.round_index
    while state.round_index == rounds and not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))


@settings(max_examples=60, deadline=None)
@given(seed=st.one_of(st.integers(0, 2**70), st.integers(0, 2**32)),
       n=st.sampled_from([2, 4]))
def test_every_round_is_dealt_as_random_random_deals_it(seed, n):
    state = LunarState.new(num_players=n, seed=seed, target=1000)
    rng = random.Random(seed)
    moves = random.Random(0)
    for _ in range(3):  # later rounds draw on from the same generator
        assert state.chance[-1] == python_deal(rng)
        assert state._order == state.chance[-1]
        finish_round(state, moves)
    python_deal(rng)  # the fourth round's
    assert state.rng.getstate() == rng.getstate()


@settings(max_examples=30, deadline=None)
@given(seed=st.one_of(st.integers(-2**70, -1), st.text(max_size=8), st.binary(max_size=8)))
def test_the_core_seeds_any_seed_as_random_random_does(seed):
    # a state refuses such seeds (gymnasium's rule); the core's own contract is
    # random.Random's: any int (a negative one as its absolute value), str or bytes
    core = Core.new(make_config(LunarOptions(num_players=2)), seed)
    rng = random.Random(seed)
    assert core.order == python_deal(rng)
    assert core.mt_state == rng.getstate()[1]  # the same draws, no more


def test_unseeded_and_non_int_seeds_deal_from_their_generator():
    assert Core.new(make_config(LunarOptions(num_players=2)), "lunar").order == python_deal(
        random.Random("lunar"))
    for bad in ("lunar", -3, 1.0, True):
        with pytest.raises(SeedError, match="seed"):
            LunarState.new(num_players=2, seed=bad)
    assert LunarState.new(seed=np.int64(5)).chance == LunarState.new(seed=5).chance
    a, b = LunarState.new(num_players=4), LunarState.new(num_players=4)
    assert a.seed is None and a.chance[0] != b.chance[0]  # fresh entropy each


def test_a_new_generator_deals_the_next_round():
    # The search bots give each determinization a generator of its own (det.rng = ...).
    state = LunarState.new(num_players=4, seed=3)
    random_moves(state, random.Random(1), 30)
    copy = state.clone()
    copy.rng = random.Random(99)
    assert copy.rng.getstate() == random.Random(99).getstate()
    finish_round(copy, random.Random(2))
    assert copy.chance[-1] == python_deal(random.Random(99))
    # the original's generator did not move
    finish_round(state, random.Random(2))
    rng = random.Random(3)
    python_deal(rng)
    assert state.chance[-1] == python_deal(rng)


def test_a_clone_deals_the_same_later_rounds_and_a_resample_others():
    state = LunarState.new(num_players=2, seed=8)
    random_moves(state, random.Random(8), 20)
    twin, det = state.clone(), state.resample(0, random.Random(4))
    for s in (state, twin, det):
        finish_round(s, random.Random(5))
    assert twin.chance == state.chance
    # the determinization's later deals come from a seed drawn from the search's generator
    assert det.chance[-1] == python_deal(random.Random(random.Random(4).getrandbits(64)))


def test_pinned_deals_come_first_then_the_generator():
    first = python_deal(random.Random(123))
    state = LunarState.new(num_players=4, seed=7, chance=[first], target=1000)
    assert state.chance == [first]
    finish_round(state, random.Random(0))
    assert state.chance[1] == python_deal(random.Random(7))  # the generator was not drawn


@pytest.mark.parametrize("bad,message", [
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1]))],
     "chance[0] (round 1's decks), the rank deck: holds 23 cards, not 24"),
    ([(tuple(SUIT_DECK[:-1] + [0]), tuple(RANK_DECK))],
     "chance[0] (round 1's decks), the suit deck: holds 7 of card wolf; the deck has 6"),
    ([(tuple(SUIT_DECK[:-1] + [4]), tuple(RANK_DECK))],
     "chance[0] (round 1's decks), the suit deck, item 23: 4 is not a card (0 to 3)"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [12]))],
     "chance[0] (round 1's decks), the rank deck, item 23: 12 is not a card (4 to 11)"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [-1]))],
     "chance[0] (round 1's decks), the rank deck, item 23: -1 is not a card (4 to 11)"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [1.5]))],
     "chance[0] (round 1's decks), the rank deck, item 23: 1.5 is not a card (4 to 11)"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [RANK_DECK[0]]))],
     "chance[0] (round 1's decks), the rank deck: holds 4 of card rank 1; the deck has 3"),
    ([tuple(SUIT_DECK)], "chance[0] (round 1's decks): holds 24 items, not 2"),
    ([python_deal(random.Random(1)), "no"], "chance[1] (round 2's decks): 'no' must be a list"),
])
def test_bad_pinned_deals_are_named(bad, message):
    with pytest.raises(ReplayError, match=re.escape(message)):
        LunarState.new(num_players=4, seed=0, chance=bad)


@pytest.mark.parametrize("bad,message", [
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1]))], "a deck of 23 cards"),
    ([(tuple(SUIT_DECK[:-1] + [0]), tuple(RANK_DECK))], "holds 7 of card 0, not 6"),
    ([(tuple(SUIT_DECK[:-1] + [4]), tuple(RANK_DECK))], "card 4 in the suit deck"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [12]))], "card 12 is out of range"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [-1]))], "card -1 is out of range"),
    ([(tuple(SUIT_DECK), tuple(RANK_DECK[:-1] + [1.5]))], "a deal is"),
    ([tuple(SUIT_DECK)], "a deal is"),
    ([python_deal(random.Random(1)), "no"], "outcome 1"),
])
def test_the_core_guards_its_arrays_for_any_caller_of_its_own(bad, message):
    with pytest.raises(ValueError, match=message):
        Core.new(make_config(LunarOptions(num_players=4)), 0, bad)


def test_setters_check_their_input_and_change_nothing_on_error():
    state = LunarState.new(num_players=4, seed=2)
    random_moves(state, random.Random(2), 25)
    core = state._core
    before = core.fields()
    with pytest.raises(ValueError, match="card count 25 is out of range"):
        core.set_hand(1, [25] + [0] * 11)
    with pytest.raises(ValueError, match="11 card counts"):
        core.set_passed(1, [0] * 11)
    with pytest.raises(ValueError, match="holds 7 of card 0, not 6"):
        core.set_order(((0,) * 7 + (1,) * 5 + (2,) * 6 + (3,) * 6, core.order[1]))
    with pytest.raises(ValueError, match="track position 13"):
        core.load(dict(before, track=[13, 0]))
    with pytest.raises(ValueError, match="player 4 is out of range"):
        core.load(dict(before, trick=[(4, 0, False)]))
    assert core.fields() == before
    with pytest.raises(ValueError, match="generator state"):
        core.mt_state = (0,) * 10
    with pytest.raises(ValueError, match="player 4 is out of range"):
        state.observation(4)


def test_options_too_large_for_c_are_refused():
    with pytest.raises(ValueError, match="track_stars"):
        make_config(LunarOptions(track_stars=(2**40,) + (0,) * 12))
    # a target or cap beyond any reachable score is kept as "never"
    state = LunarState.new(num_players=2, seed=1, target=2**80, max_rounds=2)
    finish_round(state, random.Random(0))
    finish_round(state, random.Random(0))
    assert state.is_terminal() and state.round_index == 2


def test_max_rounds_ends_a_tied_game_as_a_tie():
    state = LunarState.new(num_players=4, seed=5, track_stars=(0,) * 13, star_ranks=(),
                           max_rounds=3)
    rng = random.Random(5)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    assert state.round_scores == [(0, 0)] * 3 and state.returns().tolist() == [0] * 4
    assert state.winners() == [0, 1, 2, 3]


def test_round_points_is_the_cores_rule():
    assert round_points(7, 2, LunarOptions().track_stars) == 6
    assert round_points(0, 0, (5,) + (0,) * 12) == 5
    with pytest.raises(ValueError, match="track position 13"):
        round_points(13, 0, (0,) * 13)
    with pytest.raises(ValueError, match="13 positions"):
        round_points(0, 0, (0,) * 12)


@pytest.mark.parametrize("n", [2, 4])
def test_the_observation_at_the_end_holds_the_final_scores(n):
    # Hand-worked against the layout: after the last trick of a one-round game nothing is
    # in play (trick and lead blocks empty), the phase stays "play", and the score block
    # shows each seat's team score / 30.
    state = LunarState.new(num_players=n, seed=4, rounds="single")
    rng = random.Random(4)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    assert state.current_player == TERMINAL and state.legal_actions() == []
    layout = layout_for(n)
    a, b = state.team_scores
    for viewer in range(n):
        view = layout.decode(state.observation(viewer))
        assert view["phase"].tolist() == [0, 0, 1]
        assert not view["trick_hand"].any() and not view["lead_suit"].any()
        expected = [np.float32(min((a, b)[(viewer + s) % 2] / 30.0, 4.0)) for s in range(n)]
        assert view["score"][:, 0].tolist() == expected
        assert view["track"][:, 0].tolist() == [
            np.float32(state.track[(viewer + s) % 2] / 12.0) for s in range(n)]
        assert view["hand"].tolist() == [0.0] * 12


@pytest.mark.parametrize("n", [2, 4])
def test_the_master_vector_holds_every_view(n):
    state = LunarState.new(num_players=n, seed=6)
    random_moves(state, random.Random(6), 37)
    master = state.state_vector()
    for p in range(n):
        np.testing.assert_array_equal(master[state.layout.view_index[p]], state.observation(p))
    assert state.observation(0) is not state.observation(0)  # fresh arrays


def test_cores_pickle_with_their_pinned_deals():
    first = python_deal(random.Random(1))
    core = Core.new(make_config(LunarOptions(num_players=2)), 5, (first,))
    again = pickle.loads(pickle.dumps(core))
    assert again.fields() == core.fields() and again.order == first
    assert check_deal(first) == first


def test_the_trick_winner_checks_what_indexes_its_arrays():
    from catzoo.games.lunar import trick_winner

    with pytest.raises(ValueError, match="card 12 is out of range"):
        trick_winner([(0, 12)], trump=0, lead_team=0, last_team=1)
    with pytest.raises(ValueError, match="player -1 is out of range"):
        trick_winner([(-1, 0)], trump=0, lead_team=0, last_team=1)
