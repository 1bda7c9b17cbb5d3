"""The compiled Cat Tree core (games/cat_tree/core.pyx): its deal from a seed, its checks of
pinned decks and actions, its cell-set geometry on every grid size (up to 144 cells, past
one 64-bit word), and what an observation shows once the game is over."""

from __future__ import annotations

import copy
import pickle
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import IllegalActionError, ReplayError, SeedError
from catzoo.games.cat_tree import CatTreeOptions, CatTreeState
from catzoo.games.cat_tree import core as ct_core
from catzoo.games.cat_tree.placement import rules_for
from catzoo.games.cat_tree.state import DECK, KEEP_BASE, ME_FIRST, PLACE, PLACE_BASE


def rng_after_the_deal(seed) -> random.Random:
    rng = random.Random(seed)
    rng.shuffle(list(DECK))
    return rng


@pytest.mark.parametrize("seed", [0, 1, 5, 2**31, 2**32 - 1, 2**32, 2**64 + 3, 2**100 + 7])
def test_the_core_deals_what_random_shuffle_deals(seed):
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    assert ct_core.deal(seed) == tuple(deck) == CatTreeState.new(seed=seed).deck
    rules = rules_for(CatTreeOptions())
    dealt = ct_core.Core.new(rules, seed)
    state = CatTreeState.new(seed=seed)
    np.testing.assert_array_equal(np.frombuffer(dealt, np.float32), state.master)
    assert state.rng.getstate() == rng_after_the_deal(seed).getstate()


@pytest.mark.parametrize("seed", [-9, -(2**100 + 7)])
def test_the_core_seeds_a_negative_int_as_random_random_does(seed):
    # a state refuses such seeds (gymnasium's rule); the core's own contract is any int
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    assert ct_core.deal(seed) == tuple(deck)
    core = ct_core.Core.new(rules_for(CatTreeOptions()), seed)
    assert core.deck == tuple(deck) and core.mt_state == rng_after_the_deal(seed).getstate()[1]


def test_seeds_are_non_negative_ints_as_for_every_engine():
    for bad in (-9, "abc", 1.0, True):
        with pytest.raises(SeedError, match="seed"):
            CatTreeState.new(seed=bad)
    assert CatTreeState.new(seed=np.int64(5)).deck == CatTreeState.new(seed=5).deck


# Bad decks: what the state's log checks say, and what the core says to a caller of its own
# (None: a deck only the state is given).
BAD_DECKS = [
    (DECK[:-1], "chance[0] (the deck): holds 31 cards, not 32", "each of the 8 types 4 times"),
    (DECK[:-1] + (8,), "chance[0] (the deck), item 31: 8 is not a card (0 to 7)",
     "each of the 8 types 4 times"),
    (DECK[:-1] + (0.5,), "chance[0] (the deck), item 31: 0.5 is not a card (0 to 7)",
     "card types"),
    ((True,) + DECK[1:], "chance[0] (the deck), item 0: True is not a card (0 to 7)",
     "card types"),
    (DECK[1:] + (DECK[0], DECK[0]), "chance[0] (the deck): holds 33 cards, not 32",
     "each of the 8 types 4 times"),
    (DECK[1:] + (DECK[-1],), f"chance[0] (the deck): holds 5 of card {DECK[-1]} (", None),
    (7, "chance[0] (the deck): 7 must be a list", "a sequence of 32 card types"),
    (np.array(DECK[:-1]), "chance[0] (the deck): holds 31 cards, not 32", None),
    (np.array(DECK, dtype=np.float64), "item 0: 0.0 is not a card", None),
]


@pytest.mark.parametrize("deck, message", [(deck, said) for deck, said, _ in BAD_DECKS])
def test_a_pinned_deck_is_checked_before_it_reaches_the_core(deck, message):
    with pytest.raises(ReplayError, match=re.escape(message)):
        CatTreeState.new(chance=[deck])


def test_one_deck_can_be_pinned():
    with pytest.raises(ReplayError, match="chance: 2 outcomes, but the game has at most 1"):
        CatTreeState.new(chance=[DECK, DECK])
    with pytest.raises(ValueError, match="one chance outcome"):
        ct_core.Core.new(rules_for(CatTreeOptions()), 0, [DECK, DECK])


@pytest.mark.parametrize("deck, message",
                         [(deck, said) for deck, _, said in BAD_DECKS if said is not None])
def test_the_core_guards_its_arrays_for_any_caller_of_its_own(deck, message):
    with pytest.raises(ValueError, match=message):
        ct_core.Core.new(rules_for(CatTreeOptions()), 0, [deck])


def test_a_pinned_deck_of_numpy_ints_plays_as_ints():
    deck = np.array(DECK[::-1], dtype=np.int64)
    state = CatTreeState.new(chance=[deck])
    assert state.deck == DECK[::-1] and all(type(k) is int for k in state.deck)
    # the chance record is the deck as ints too, so the action log is JSON and replays
    assert state.chance == [DECK[::-1]] and all(type(k) is int for k in state.chance[0])
    assert CatTreeState.replay(state.to_json()).deck == DECK[::-1]
    assert CatTreeState.new(chance=[[np.int8(k) for k in DECK]]).deck == DECK


def test_an_illegal_action_leaves_the_core_unchanged():
    state = CatTreeState.new(seed=4)
    obs, mask = state.observation(0), state.legal_mask()
    for action in (-1, PLACE_BASE, state.dismiss, state.num_actions, 10**6):
        with pytest.raises(ValueError, match="not legal"):
            state._core.apply(action)
        with pytest.raises(ValueError):  # the unchecked path refuses it too, logging nothing
            state.apply_unchecked(action)
        with pytest.raises(IllegalActionError):
            state.apply(action)
    assert state.history == [] and state.current_player == 0
    np.testing.assert_array_equal(state.observation(0), obs)
    np.testing.assert_array_equal(state.legal_mask(), mask)


def test_the_core_memory_is_read_only():
    state = CatTreeState.new(seed=1)
    with pytest.raises(ValueError):
        state.master[0] = 1.0
    with pytest.raises(TypeError, match="read-only"):
        memoryview(state._core)[0] = 1.0


def test_rules_pickle_as_the_shared_configuration():
    rules = rules_for(CatTreeOptions(width=5, height=4))
    assert pickle.loads(pickle.dumps(rules)) is rules
    assert copy.deepcopy(rules) is rules
    assert rules_for(CatTreeOptions(width=5, height=4)) is rules


def test_the_observation_of_an_ended_game_keeps_its_last_turn():
    # turns=1: after the two placements the game is over; the features of the turn played
    # (its number, the place phase, the cards left, the leader, the first placer) stay.
    state = CatTreeState.new(CatTreeOptions(turns=1), chance=[DECK])
    for action in (KEEP_BASE, KEEP_BASE, ME_FIRST, PLACE_BASE, PLACE_BASE + 1):
        state.apply(action)
    assert state.is_terminal() and state.phase == PLACE and state.turn == 1
    parts = state.layout.decode(state.observation(1))
    assert parts["turn"].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]
    assert parts["phase"].tolist() == [0, 0, 1]
    assert parts["deck"][0] == pytest.approx(28 / 32)
    assert parts["leader"].ravel().tolist() == [0, 1] and parts["first"].ravel().tolist() == [0, 1]
    assert parts["grid"].reshape(8, -1)[0, :2].tolist() == [1, 1]  # two pipes on the floor
    assert parts["kept"].sum() == 0 and parts["kept_legal"].sum() == 0
    assert parts["score"][0] == pytest.approx(state.total / 100) and state.total == 10
    assert not state.legal_mask().any() and state.legal_actions() == []


# --- cell-set geometry against a cell-by-cell reading ------------------------------------------

def naive_ball(cells: set, radius: int, w: int, h: int) -> set:
    return {(r, c) for r in range(h) for c in range(w)
            if any(abs(r - a) + abs(c - b) <= radius for a, b in cells)}


def naive_flood(seed: set, within: set) -> set:
    grown, todo = set(), [x for x in seed if x in within]
    while todo:
        r, c = todo.pop()
        if (r, c) in grown:
            continue
        grown.add((r, c))
        todo.extend(n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in within)
    return grown


def as_int(cells: set, w: int) -> int:
    return sum(1 << (r * w + c) for r, c in cells)


def as_set(bits: int, w: int) -> set:
    return {divmod(i, w) for i in range(bits.bit_length()) if bits >> i & 1}


grids = st.tuples(st.integers(3, 12), st.integers(2, 12))


@settings(max_examples=60, deadline=None)
@given(grid=grids, data=st.data())
def test_ball_dilate_and_flood_on_every_grid_size(grid, data):
    w, h = grid
    rules = rules_for(CatTreeOptions(width=w, height=h))
    cells = st.sets(st.tuples(st.integers(0, h - 1), st.integers(0, w - 1)), max_size=12)
    a, b = data.draw(cells), data.draw(st.sets(st.tuples(st.integers(0, h - 1),
                                                         st.integers(0, w - 1)), max_size=60))
    radius = data.draw(st.integers(0, 5))
    assert rules.ball(as_int(a, w), radius) == as_int(naive_ball(a, radius, w, h), w)
    assert rules.dilate(as_int(a, w)) == as_int(naive_ball(a, 1, w, h), w)
    assert rules.flood(as_int(a, w), as_int(b, w)) == as_int(naive_flood(a, b), w)
    assert as_set(rules.full, w) == naive_ball({(0, 0)}, w + h, w, h)


def test_cell_sets_are_python_ints_on_the_largest_grid():
    rules = rules_for(CatTreeOptions(width=12, height=12))
    top = 1 << 143  # the top right cell, in the third 64-bit word
    assert rules.ball(top, 1) == top | 1 << 142 | 1 << 131
    assert rules.ball(-1, 2) == rules.full  # every bit set, as a Python int has them
    assert rules.flood(1, rules.full) == rules.full
    assert rules.flood(top, rules.full & ~(1 << 142) & ~(1 << 131)) == top  # walled in
    assert rules.alt == rules.full & ~((1 << 4 * 12) - 1)  # the 5th row up


# --- the batched engine on other options ---------------------------------------------------------

@pytest.mark.parametrize("options", [
    {"width": 12, "height": 12, "placing_order": "alternate"},  # 144 cells: three words
    {"width": 9, "height": 8, "pipe_sides": "any", "bottom_height": 0, "turns": 5},
    {"width": 3, "height": 2, "detach_distance": 1, "toy_distance": 5},
])
def test_the_batch_plays_the_aec_envs_games_on_other_options(options):
    from tests.test_vector import lockstep

    for reward in ("standing", "score"):
        assert lockstep("cat_tree", 2, reward, 96, seed=21, options=options) >= 96
