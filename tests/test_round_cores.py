"""The compiled rules cores (``core.pyx`` of Cat in the Box and Lunar; pinned chance for
every core) and the compiled shuffles: copies that share nothing, state that survives
pickling and ``fields``/``load``, and the errors they raise on bad input."""

from __future__ import annotations

import copy
import gc
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import shuffle
from catzoo.games.cat_in_the_box import trick_winner as citb_trick_winner
from catzoo.games.cat_in_the_box.state import CatInTheBoxState
from catzoo.games.cat_tree.state import CatTreeState
from catzoo.games.catsle_builders.state import CatsleBuildersState
from catzoo.games.lunar import trick_winner as lunar_trick_winner
from catzoo.games.lunar.state import LunarState

CASES = [(CatInTheBoxState, 2), (CatInTheBoxState, 5), (LunarState, 2), (LunarState, 4)]


def _snapshot(state) -> tuple:
    return (state.current_player, state._legal, state._core.fields(), state.master.tobytes(),
            state.scores(), list(state.history))


@pytest.mark.parametrize("cls,players", CASES)
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), split=st.integers(0, 400))
def test_copies_play_on_exactly_as_the_original_and_share_nothing(cls, players, seed, split):
    state = cls.new(num_players=players, seed=seed)
    rng = random.Random(seed)
    for _ in range(split):  # anywhere in the game, round ends included
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_actions()))
    frozen = _snapshot(state)
    copies = [state.clone(), pickle.loads(pickle.dumps(state)), copy.deepcopy(state)]
    for c in copies:
        assert _snapshot(c) == frozen
    # Each copy plays to the end on its own: the original does not move ...
    for c in copies:
        moves = random.Random(seed + 1)
        while not c.is_terminal():
            c.apply(moves.choice(c.legal_actions()))
        assert _snapshot(state) == frozen
    # ... and the original, given the same moves, ends exactly as each copy did.
    moves = random.Random(seed + 1)
    while not state.is_terminal():
        state.apply(moves.choice(state.legal_actions()))
    for c in copies:
        assert _snapshot(c) == _snapshot(state)
        assert c.round_scores == state.round_scores


@pytest.mark.parametrize("cls,players", [(CatInTheBoxState, 3), (LunarState, 4),
                                         (CatsleBuildersState, 4), (CatTreeState, 2)])
def test_copies_and_pickles_keep_dealing_their_pinned_chance(cls, players):
    # A game pinned to another game's chance record, copied every way before its first
    # move, the original dropped: each copy deals the pinned rounds (its own copy of them),
    # step for step as the game it was pinned to, with the seed of neither.
    played, moves, rng = cls.new(num_players=players, seed=21), [], random.Random(21)
    while not played.is_terminal():
        moves.append(rng.choice(played.legal_actions()))
        played.apply(moves[-1])
    pinned = cls.new(num_players=players, seed=99, chance=played.chance)
    copies = [pickle.loads(pickle.dumps(pinned)), copy.deepcopy(pinned), pinned.clone()]
    del pinned
    gc.collect()
    for c in copies:
        again = cls.new(num_players=players, seed=21)
        for action in moves:
            assert c.current_player == again.current_player
            assert c.observation(c.current_player).tobytes() == again.observation(
                again.current_player).tobytes()
            c.apply(action)
            again.apply(action)
        assert c.scores() == played.scores() and c.state_vector().tobytes() == \
            played.state_vector().tobytes()


@pytest.mark.parametrize("cls,players", CASES)
def test_fields_load_back_into_the_same_round(cls, players):
    state = cls.new(num_players=players, seed=5)
    rng = random.Random(5)
    for _ in range(23):
        state.apply(rng.choice(state.legal_actions()))
    fields = state._core.fields()
    other = cls.new(num_players=players, seed=99)._core
    other.load(fields)
    assert other.fields() == fields
    other.refresh_legal()
    assert other.legal == state._legal  # the legal moves follow from the loaded round


@pytest.mark.parametrize("cls,players,other", [(CatInTheBoxState, 3, 4), (LunarState, 2, 4)])
def test_a_round_of_another_player_count_is_refused(cls, players, other):
    fields = cls.new(num_players=other, seed=0)._core.fields()
    with pytest.raises(ValueError, match="player"):
        cls.new(num_players=players, seed=0)._core.load(fields)


def test_trick_winners_refuse_tricks_too_long():
    with pytest.raises(ValueError, match="at most 5 cards"):
        citb_trick_winner([(p, 0, p) for p in range(6)], 0)
    with pytest.raises(ValueError, match="4 cards"):
        lunar_trick_winner([(p, p) for p in range(5)], 0, 0, 1)


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**32), size=st.integers(0, 60))
def test_shuffle_is_fisher_yates_on_one_float_per_card(seed, size):
    # The specification: from the end, position i swaps with int(random() * (i + 1)).
    expected, rng = list(range(size)), random.Random(seed)
    for i in range(size - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        expected[i], expected[j] = expected[j], expected[i]
    ours, ours_rng = list(range(size)), random.Random(seed)
    shuffle(ours, ours_rng)
    assert ours == expected
    assert ours_rng.random() == rng.random()  # the same number of draws


def test_the_shuffle_deals_every_order():
    counts = {}
    rng = random.Random(0)
    for _ in range(6000):
        items = [0, 1, 2]
        shuffle(items, rng)
        counts[tuple(items)] = counts.get(tuple(items), 0) + 1
    assert len(counts) == 6
    assert max(counts.values()) - min(counts.values()) < 200  # about 1000 each


@pytest.mark.parametrize("cls,players", CASES)
def test_the_core_refuses_what_would_index_past_its_arrays(cls, players):
    state = cls.new(num_players=players, seed=2)
    core = state._core
    before = core.fields()
    illegal = next(a for a in range(state.num_actions) if not state.is_legal(a))
    for action in (illegal, -1, 64, 1000):
        with pytest.raises(ValueError, match=f"action {action} is not legal"):
            core.apply(action)
    assert core.fields() == before  # nothing was applied
    with pytest.raises(ValueError, match="player 7 is out of range"):
        core.set_hand(7, [0] * 12)
    fields = dict(before, trick=[(0, 3, 99) if cls is CatInTheBoxState else (0, 99, False)])
    with pytest.raises(ValueError, match="card 99 is out of range"):
        core.load(fields)


def test_a_lunar_deck_holds_only_its_own_type():
    core = LunarState.new(num_players=2, seed=0)._core
    suits, ranks = core.order
    with pytest.raises(ValueError, match="card 5 in the suit deck"):
        core.set_order(((5,) + suits[1:], ranks))
    with pytest.raises(ValueError, match="a deck of 23 cards"):
        core.set_order((suits[1:], ranks))
