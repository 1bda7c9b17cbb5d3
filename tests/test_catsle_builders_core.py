"""CATsle Builders' compiled core (games/catsle_builders/core.pyx): it deals what
``random.Random(seed)`` dealt, pinned chance is checked in full and draws nothing, the
observation holds the documented values in hand-worked positions, the incremental rating
agrees with the rule's key sort, bad input leaves the game untouched, copies share nothing.
"""

from __future__ import annotations

import json
import pickle
import random
import re

import numpy as np
import pytest

from catzoo.games.base import ReplayError, SeedError
from catzoo.games.catsle_builders import CatsleBuildersState, board_score, rating
from catzoo.games.catsle_builders.core import Core
from catzoo.games.catsle_builders.layout import layout_for
from catzoo.games.catsle_builders.state import COLUMN, COLUMN_BASE, PLAY, TAKE, TAKE_BASE
from catzoo.games.compiled import core_config
from tests.helpers import random_moves, random_playout
from tests.test_catsle_builders_rules import (
    card,
    deal,
    play,
    sideways_first_trick,
    sideways_last_trick,
)


def python_deal(rng: random.Random, n: int, hand: int, deck: int):
    """The deal as the engine has always drawn it: one ``random()`` key per card in index
    order, a stable sort of the indices by key, hands in slices of ``hand``."""
    rnd = rng.random
    order = sorted(range(deck), key=lambda _: rnd())
    hands = tuple(tuple(sorted(order[p * hand:(p + 1) * hand])) for p in range(n))
    return hands, tuple(sorted(order[n * hand:]))


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("seed", [0, 1, 77, 2**32 + 5, 2**70 + 3])
def test_the_core_deals_what_random_random_deals(n, seed):
    state = CatsleBuildersState.new(num_players=n, seed=seed, hand_size=2)
    o = state.options
    rng = random.Random(seed)
    assert state.chance[0] == state.round_start == rng.randrange(n)
    assert state.chance[1] == python_deal(rng, n, o.hands, o.deck_size)
    assert state.rng.getstate() == rng.getstate()  # the same draws, no more
    # The later rounds deal on from the same generator.
    moves = random.Random(seed)
    while not state.is_terminal():
        state.apply(moves.choice(state.legal_actions()))
    for r in (1, 2):
        assert state.chance[1 + r] == python_deal(rng, n, o.hands, o.deck_size)
    assert state.rng.getstate() == rng.getstate()


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("seed", [-12, -(2**70 + 3)])
def test_the_core_seeds_a_negative_int_as_random_random_does(n, seed):
    # a state refuses such seeds (gymnasium's rule); the core's own contract is any int
    state = CatsleBuildersState.new(num_players=n, seed=0, hand_size=2)
    core = Core.new(core_config(CatsleBuildersState.core_module, state.options), seed, [])
    rng = random.Random(seed)
    assert core.current_player == rng.randrange(n)
    assert core.deal == python_deal(rng, n, state.options.hands, state.options.deck_size)
    assert core.mt_state == rng.getstate()[1]  # the same draws, no more


def test_seeds_are_non_negative_ints_as_for_every_engine():
    for bad in (-12, "abc", 1.0, True):
        with pytest.raises(SeedError, match="seed"):
            CatsleBuildersState.new(num_players=3, seed=bad)
    assert (CatsleBuildersState.new(num_players=3, seed=np.int64(5)).chance
            == CatsleBuildersState.new(num_players=3, seed=5).chance)


def test_pinned_outcomes_draw_nothing_and_a_set_generator_deals_on():
    pinned = [2]
    state = CatsleBuildersState.new(num_players=4, seed=9, hand_size=1, chance=pinned)
    rng = random.Random(9)  # no randrange drawn: the first player was pinned
    assert state.round_start == state.current_player == 2
    assert state.chance[1] == python_deal(rng, 4, 1, 60)
    other = state.clone()
    other.rng = random.Random(123)  # the search bots give a copy a fresh generator
    while not other.is_terminal():
        other.apply(other.legal_actions()[0])
    again = random.Random(123)
    assert other.chance[2:] == [python_deal(again, 4, 1, 60) for _ in range(2)]
    assert state.rng.getstate() == rng.getstate()  # the original's generator is its own


def _a_deal(n=3, hand=2):
    deck = list(range(48 if n == 3 else 60))
    return [deck[p * hand:(p + 1) * hand] for p in range(n)], deck[n * hand:]


@pytest.mark.parametrize(("chance", "message"), [
    ([3], "chance[0] (the start player): 3 is not a player (0 to 2)"),
    ([True], "chance[0] (the start player): True is not a player"),
    (["0"], "chance[0] (the start player): '0' is not a player"),
    ([0, (*_a_deal(), "extra")], "chance[1] (round 1's deal): holds 3 items, not 2"),
    ([0, 5], "chance[1] (round 1's deal): 5 must be a list"),
    ([0, ([[0, 1], [2, 3]], list(range(4, 48)))],
     "chance[1] (round 1's deal), the hands: holds 2 items, not 3"),
    ([0, ([[0, 1, 2], [3, 4], [5, 6]], list(range(7, 48)))],
     "chance[1] (round 1's deal), the hand of player 0: holds 3 cards, not 2"),
    ([0, ([[0, 0], [2, 3], [4, 5]], list(range(6, 48)))],
     "chance[1] (round 1's deal): holds 2 of card 0 (W1); the deck has 1"),
    ([0, ([[0, 1], [2, 3], [4, 50]], list(range(5, 48)))],
     "chance[1] (round 1's deal), the hand of player 2, item 1: 50 is not a card (0 to 47)"),
    ([0, ([[0, 1], [2, 3], [4, 5]], list(range(6, 47)))],
     "chance[1] (round 1's deal), the undealt cards: holds 41 cards, not 42"),
    ([0, ([[0, 1], [2, 3], [4, 1.0]], list(range(5, 48)))],
     "chance[1] (round 1's deal), the hand of player 2, item 1: 1.0 is not a card"),
    ([0, ([[0, 1], [2, 3], [4, 5]], [1] + list(range(7, 48)))],
     "chance[1] (round 1's deal): holds 2 of card 1 (W2); the deck has 1"),
    ([0, _a_deal(), _a_deal()], "chance: 2 outcomes, but the game has at most 1"),
])
def test_pinned_chance_is_checked_in_full(chance, message):
    with pytest.raises(ReplayError, match=re.escape(message)):
        CatsleBuildersState.new(num_players=3, hand_size=2, rounds="single", chance=chance)


@pytest.mark.parametrize(("chance", "message"), [
    ([3], "first player 3"),
    ([True], "first player True"),
    (["0"], "first player '0'"),
    ([0, (*_a_deal(), "extra")], r"pinned deal 1 must be \(hands, undealt\)"),
    ([0, 5], r"pinned deal 1 must be \(hands, undealt\)"),
    ([0, ([[0, 1], [2, 3]], list(range(4, 48)))], "3 hands of 2 cards"),
    ([0, ([[0, 1, 2], [3, 4], [5, 6]], list(range(7, 48)))], "3 hands of 2 cards"),
    ([0, ([[0, 0], [2, 3], [4, 5]], list(range(6, 48)))], "each card of 0..47 once"),
    ([0, ([[0, 1], [2, 3], [4, 50]], list(range(5, 48)))], "card 50"),
    ([0, ([[0, 1], [2, 3], [4, 5]], list(range(6, 47)))], "each card of 0..47 once"),
    ([0, ([[0, 1], [2, 3], [4, 1.0]], list(range(5, 48)))], "card 1.0"),
    ([0, _a_deal(), _a_deal()], "3 pinned chance outcomes; a game of 1 round"),
])
def test_the_core_guards_its_arrays_for_any_caller_of_its_own(chance, message):
    options = CatsleBuildersState.new(num_players=3, hand_size=2, rounds="single").options
    with pytest.raises(ValueError, match=message):
        Core.new(core_config(CatsleBuildersState.core_module, options), 0, chance)


def test_a_tampered_log_is_refused_with_the_reason():
    state = CatsleBuildersState.new(num_players=3, seed=4, rounds="single")
    random_playout(state, random.Random(4))
    log = state.action_log()
    hands = [list(h) for h in log["chance"][1][0]]
    twice = hands[1][0]
    hands[0][0], hands[1][0] = hands[1][0], hands[1][0]  # one card twice, one missing
    log["chance"][1][0] = hands
    with pytest.raises(ReplayError, match=re.escape(
            f"chance[1] (round 1's deal): holds 2 of card {twice} (")):
        CatsleBuildersState.replay(json.dumps(log))


def _view(state, viewer):
    return layout_for(state.num_players).decode(state.observation(viewer))


def _card_features(name):
    out = np.zeros(17, np.float32)
    c = card(name)
    out[c // 12] = out[5 + c % 12] = 1.0
    return out


def test_observation_values_through_a_hand_worked_trick():
    state = deal(3, [["W12", "G1"], ["W1", "G12"], ["W6", "T5"]])
    play(state, "W12", "W1", "W6")  # P0 (W12) > P2 (W6) > P1 (W1)
    assert state.phase == TAKE and state.current_player == 0
    v = _view(state, 0)
    for seat, name in enumerate(["W12", "W1", "W6"]):
        np.testing.assert_array_equal(v["trick_card"][seat], _card_features(name))
    assert [int(np.argmax(r)) for r in v["trick_rank"]] == [0, 2, 1]
    assert v["to_take"][:, 0].tolist() == [0.5, 0.0, 1.0]  # takes 1, 0, 2 (/ 2)
    assert v["led"].tolist() == [1, 0, 0, 0, 0]
    assert sorted(np.flatnonzero(v["seen"])) == sorted(card(c) for c in ("W12", "W1", "W6"))
    assert v["phase"].tolist() == [0, 1, 0] and v["tricks_left"][0] == np.float32(2 / 16)
    assert v["leader"][:, 0].tolist() == [1, 0, 0] and v["round_start"][:, 0].tolist() == [1, 0, 0]
    assert sorted(np.flatnonzero(v["hand"])) == [card("G1")]
    # Seen from P2, the seat rows rotate: row 0 is P2 (the second strongest).
    v2 = _view(state, 2)
    assert [int(np.argmax(r)) for r in v2["trick_rank"]] == [1, 0, 2]
    assert v2["to_take"][:, 0].tolist() == [1.0, 0.5, 0.0]
    assert v2["leader"][:, 0].tolist() == [0, 1, 0]

    state.apply(TAKE_BASE + card("W6"))  # a new suit, four empty columns: P0 chooses
    v = _view(state, 0)
    assert state.phase == COLUMN and v["phase"].tolist() == [0, 0, 1]
    np.testing.assert_array_equal(v["pending"], _card_features("W6"))
    assert not v["trick_card"][2].any()  # the W6 left the trick
    assert v["to_take"][0, 0] == 0.0
    state.apply(COLUMN_BASE + 0)
    column = _view(state, 0)["board"][0].reshape(5, 8)[0]
    np.testing.assert_array_equal(column, np.float32([1, 0, 0, 0, 0, 1 / 5, 1 / 5, 2 / 5]))
    # P2 takes both cards left (no choice asked), choosing the column of the first only.
    assert state.current_player == 2 and state.pending == card("W12")
    np.testing.assert_array_equal(_view(state, 2)["pending"], _card_features("W12"))
    state.apply(COLUMN_BASE + 3)
    v = _view(state, 2)
    column = v["board"][0].reshape(5, 8)[3]
    np.testing.assert_array_equal(column, np.float32([1, 0, 0, 0, 0, 2 / 5, 3 / 5, 5 / 5]))
    # The trick is over: its blocks are clear, P2 leads the last trick.
    assert state.phase == PLAY and state.current_player == 2
    for block in ("trick_card", "trick_rank", "to_take", "led", "pending"):
        assert not v[block].any(), block
    assert v["leader"][:, 0].tolist() == [1, 0, 0] and v["tricks_left"][0] == np.float32(1 / 16)
    assert v["phase"].tolist() == [1, 0, 0]


def test_observation_of_a_sideways_card_and_of_the_game_end():
    state = sideways_first_trick()  # P2: two Walls in a column of limit 1
    column = _view(state, 2)["board"][0].reshape(5, 8)[3]
    np.testing.assert_array_equal(column, np.float32([1, 0, 0, 0, 0, 2 / 5, -1 / 5, 1 / 5]))
    sideways_last_trick(state)
    assert state.is_terminal() and state.scores() == [1, 2, 0]
    v = _view(state, 0)
    np.testing.assert_array_equal(v["score"][:, 0], np.float32([1 / 50, 2 / 50, 0]))
    # P0: its Walls column of limit 1 holds 1: perfect; P1: 2 perfect; P2: the Gables one.
    assert state.round_perfect == [[1, 2, 1]]
    np.testing.assert_array_equal(v["last_perfect"][:, 0], np.float32([1 / 4, 2 / 4, 1 / 4]))
    assert not v["phase"].any() and v["tricks_left"][0] == 0.0
    assert not state.legal_mask().any() and state.legal_actions() == []


def test_the_incremental_rating_is_the_rules_key_sort():
    checked = 0
    for seed in range(30):
        n = 3 + seed % 3
        state = CatsleBuildersState.new(num_players=n, seed=seed, rounds="single")
        rng = random.Random(seed)
        while not state.is_terminal():
            trick = state.trick
            if len(trick) == n and state.rating:
                order = rating([c for _, c in trick], trick[0][1] // 12)
                assert state.rating == [trick[i][0] for i in order]
                checked += 1
            state.apply(rng.choice(state.legal_actions()))
    assert checked > 100


def test_bad_input_leaves_the_game_untouched():
    state = CatsleBuildersState.new(num_players=4, seed=8)
    random_moves(state, random.Random(8), 30)
    before = state.to_json(), state.state_vector(), state._legal
    illegal = next(a for a in range(125) if not state.is_legal(a))
    with pytest.raises(ValueError, match="not legal"):
        state._core.apply(illegal)  # the last guard of the C arrays
    with pytest.raises(ValueError, match="beyond the deck"):
        state._core.set_hands({1: 1 << 60})
    with pytest.raises(ValueError, match="out of range"):
        state._core.set_hands({4: 1})
    with pytest.raises(ValueError, match="out of range"):
        state.observation(4)
    with pytest.raises(ValueError, match="round_perfect"):
        state.round_perfect = [[0, 0, 0]]
    after = state.to_json(), state.state_vector(), state._legal
    assert after[0] == before[0] and after[2] == before[2]
    np.testing.assert_array_equal(after[1], before[1])


def test_board_score_refuses_what_it_cannot_score():
    with pytest.raises(ValueError, match="at most 5 columns"):
        board_score([1] * 6, [1] * 6, [0] * 7)
    with pytest.raises(ValueError, match="perfect_bonus"):
        board_score([2, 3], [2, 3], [0, 1])  # two perfect columns, a bonus up to one
    with pytest.raises(ValueError, match="column 0"):
        board_score([13], [5], [0, 1])
    assert board_score([2, 3], [2, 3, 4], (0, 1, 3, 6)) == (8, 2)  # zip: the shorter


@pytest.mark.parametrize("n", [3, 5])
def test_copies_and_unpickled_states_play_on_alone_and_alike(n):
    state = CatsleBuildersState.new(num_players=n, seed=n)
    rng = random.Random(n)
    random_moves(state, rng, 150)  # into the second round: past a deal
    frozen = state.to_json(), state.state_vector()
    copies = [state.clone(), pickle.loads(pickle.dumps(state))]
    for c in copies:
        np.testing.assert_array_equal(c.state_vector(), frozen[1])
        assert c.rng.getstate() == state.rng.getstate()
        random_playout(c, random.Random(1))
    assert state.to_json() == frozen[0]
    np.testing.assert_array_equal(state.state_vector(), frozen[1])
    random_playout(state, random.Random(1))
    for c in copies:
        assert c.to_json() == state.to_json() and c.round_boards == state.round_boards
        assert c.returns().tolist() == state.returns().tolist()


def test_unseeded_games_replay_from_their_chance_record():
    state = CatsleBuildersState.new(num_players=4)
    assert state.seed is None
    random_moves(state, random.Random(0), 200)
    again = CatsleBuildersState.replay(state.to_json())
    np.testing.assert_array_equal(again.state_vector(), state.state_vector())
    assert again.chance == state.chance and again.history == state.history
