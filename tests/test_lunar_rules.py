"""Lunar: named rule scenarios from pinned deals (rules in docs/rules/lunar.md).

Cards: W O L B are the suit cards wolf, owl, lynx, bat (0-3); rank r is card 3 + r.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from catzoo.games.base import TERMINAL, IllegalActionError, OptionsError
from catzoo.games.lunar import LunarOptions, LunarState, trick_winner
from catzoo.games.lunar.state import HAND_BASE, PICK_BASE, SKY_BASE, TRUMP_BASE

W, O, L, B = 0, 1, 2, 3


def R(rank: int) -> int:
    return 3 + rank


def order(hands_suits, hands_ranks, sky_suits=(), sky_ranks=(), deck_suits=None,
          deck_ranks=None):
    """One round's pinned shuffle (suit order, rank order) from the players' deals, then
    the sky and the deck (the rest of each deck, sorted, when not given)."""
    out = []
    for dealt, sky, deck, full in (
        (hands_suits, sky_suits, deck_suits, [s for s in range(4) for _ in range(6)]),
        (hands_ranks, sky_ranks, deck_ranks, [R(r) for r in range(1, 9) for _ in range(3)]),
    ):
        seq = [c for hand in dealt for c in hand] + list(sky)
        if deck is None:
            rest = list(full)
            for c in seq:
                rest.remove(c)
            deck = sorted(rest)
        seq += list(deck)
        assert sorted(seq) == sorted(full), "a pinned deal must use every card once"
        out.append(tuple(seq))
    return tuple(out)


# 4 players. Partners pass each other the same cards, so the hands after the exchange are
# the deals: team 0 passes owl, bat, 3, 5; team 1 owl, bat, 6, 4.
SUITS4 = (
    (W, W, W, O, B, L),
    (O, O, O, L, B, B),
    (W, W, L, O, B, L),
    (O, L, L, B, B, W),
)
RANKS4 = (
    (R(8), R(7), R(3), R(5), R(1), R(2)),
    (R(6), R(4), R(1), R(2), R(8), R(7)),
    (R(8), R(7), R(3), R(5), R(4), R(2)),
    (R(6), R(4), R(1), R(6), R(3), R(5)),
)
PASSES4 = ((O, B, R(3), R(5)), (O, B, R(6), R(4)), (O, B, R(3), R(5)), (O, B, R(6), R(4)))


def four_player_game(turns=(O, L, W), **options) -> LunarState:
    """The pinned 4-player deal, after the pass and the trump choice (default: owl, lynx
    and wolf turned face down by P0, P1, P2, so bat is trump); P0 is to lead."""
    state = LunarState.new(num_players=4, seed=0, chance=[order(SUITS4, RANKS4)], **options)
    for p in range(4):
        for c in PASSES4[p]:
            state.apply(PICK_BASE + c)
    for s in turns:
        state.apply(TRUMP_BASE + s)
    return state


# 2 players: hands, the sky (W L B / 5 5 6) and the first cards of the decks.
SUITS2 = ((W, W, W, O, O, L), (O, O, L, L, B, B))
RANKS2 = ((R(8), R(8), R(7), R(1), R(2), R(3)), (R(8), R(6), R(6), R(5), R(4), R(4)))
SKY_SUITS2 = (W, L, B)
SKY_RANKS2 = (R(5), R(5), R(6))
DECK_RANKS2 = (R(1), R(1), R(2), R(2), R(3), R(3), R(4), R(7), R(7))


def two_player_game(turns=(O, L, W), **options) -> LunarState:
    """The pinned 2-player deal after the trump choice (P0 turns owl, P1 lynx, P0 wolf:
    bat is trump); P0 is to lead."""
    chance = [order(SUITS2, RANKS2, SKY_SUITS2, SKY_RANKS2, deck_ranks=DECK_RANKS2)]
    state = LunarState.new(num_players=2, seed=0, chance=chance, **options)
    for s in turns:
        state.apply(TRUMP_BASE + s)
    return state


def hand(c: int) -> int:
    return HAND_BASE + c


def sky(c: int) -> int:
    return SKY_BASE + c


def legal_cards(state, base=HAND_BASE) -> set[int]:
    return {a - base for a in state.legal_actions() if base <= a < base + 12}


def play(state, *actions):
    for a in actions:
        state.apply(a)
    return state


# --- the three winning rules (pure function) --------------------------------------------
# Trick entries are (player, card); players 0 and 2 are team 0, 1 and 3 team 1.

def test_same_suit_higher_rank_wins():
    trick = [(0, W), (1, R(6)), (2, R(8)), (3, W)]
    assert trick_winner(trick, trump=B, lead_team=0, last_team=1) == 0
    trick = [(0, W), (1, R(8)), (2, R(2)), (3, W)]
    assert trick_winner(trick, trump=B, lead_team=0, last_team=1) == 1


def test_same_suit_equal_rank_goes_to_the_team_that_played_last():
    trick = [(0, R(5)), (1, O), (2, O), (3, R(5))]
    assert trick_winner(trick, trump=B, lead_team=1, last_team=1) == 1
    assert trick_winner(trick, trump=B, lead_team=1, last_team=0) == 0


def test_trump_beats_a_higher_rank_of_another_suit():
    trick = [(0, W), (1, B), (2, R(8)), (3, R(1))]
    assert trick_winner(trick, trump=B, lead_team=0, last_team=1) == 1
    # Both teams in trump: same suit, so the rank decides.
    trick = [(0, B), (1, B), (2, R(3)), (3, R(2))]
    assert trick_winner(trick, trump=B, lead_team=0, last_team=1) == 0


def test_different_suits_without_trump_go_to_the_first_suit():
    trick = [(0, R(1)), (1, L), (2, W), (3, R(8))]
    assert trick_winner(trick, trump=B, lead_team=1, last_team=1) == 1
    trick = [(0, W), (1, L), (2, R(2)), (3, R(8))]
    assert trick_winner(trick, trump=B, lead_team=0, last_team=1) == 0


# --- 4 players through the engine ------------------------------------------------------------

def test_pass_keeps_picks_hidden_until_everyone_has_passed():
    state = LunarState.new(num_players=4, seed=0, chance=[order(SUITS4, RANKS4)])
    assert state.current_player == 0
    views = [state.observation(p).copy() for p in range(4)]
    for c in PASSES4[0]:
        state.apply(PICK_BASE + c)
    for p in (1, 2, 3):  # nothing of P0's picks shows to the others
        np.testing.assert_array_equal(state.observation(p), views[p])
    # [R] 2 ranks and 2 suits: after two suits, only ranks may be picked.
    state.apply(PICK_BASE + O)
    state.apply(PICK_BASE + B)
    assert all(PICK_BASE + c >= PICK_BASE + 4 for c in state.legal_actions())
    with pytest.raises(IllegalActionError):
        state.apply(PICK_BASE + W)
    for c in PASSES4[1][2:]:
        state.apply(PICK_BASE + c)
    for c in PASSES4[2] + PASSES4[3]:
        state.apply(PICK_BASE + c)
    dec = state.layout.decode(state.observation(2))
    assert np.round(dec["received"] * 2).astype(int).tolist() == [
        1 if c in PASSES4[0] else 0 for c in range(12)
    ]
    assert state.hands[0] == [SUITS4[0].count(c) + RANKS4[0].count(c) for c in range(12)]


def test_trump_tiles_are_turned_from_the_start_player_clockwise():
    state = LunarState.new(num_players=4, seed=0, chance=[order(SUITS4, RANKS4)])
    for p in range(4):
        for c in PASSES4[p]:
            state.apply(PICK_BASE + c)
    for player, suit in zip((0, 1, 2), (O, L, W)):
        assert state.current_player == player
        assert suit in {a - TRUMP_BASE for a in state.legal_actions()}
        state.apply(TRUMP_BASE + suit)
    assert state.trump == B
    assert state.current_player == 0  # the start player leads the first trick


def test_higher_rank_wins_with_the_type_rule_and_follow_suit():
    state = four_player_game()
    play(state, hand(W))
    # [R] P1 is the first of its team: either type; it holds no wolf, so any suit.
    assert legal_cards(state) == {O, L, B, R(6), R(4), R(1), R(2), R(8), R(7)}
    play(state, hand(R(6)))
    # [R] P2 is the second of team 0 after a suit: ranks only.
    assert legal_cards(state) == {R(8), R(7), R(3), R(5), R(4), R(2)}
    play(state, hand(R(8)))
    # [R] P3 must play a suit (its partner played a rank) and follow wolf, which it holds.
    assert legal_cards(state) == {W}
    play(state, hand(W))
    assert state.track == [1, 0]
    assert state.current_player == 0  # team 0's lead-tile holder


def test_equal_ranks_in_the_same_suit_go_to_the_team_that_played_last():
    state = play(four_player_game(), hand(W), hand(R(8)), hand(R(8)), hand(W))
    assert state.track == [0, 1]
    # [R] team 1's lead-tile holder (P1 holds the white tile) leads next.
    assert state.tiles == [0, 1] and state.current_player == 1


def test_trump_beats_the_lead_suit():
    state = play(four_player_game(), hand(W), hand(B), hand(R(2)), hand(R(1)))
    assert state.track == [0, 1]
    assert state.last_trick[1] == 1


def test_first_suit_wins_between_two_plain_suits():
    state = play(four_player_game(), hand(W), hand(L), hand(R(2)), hand(R(6)))
    assert state.track == [1, 0]


def test_lead_suit_is_set_by_the_first_suit_not_the_leader():
    state = play(four_player_game(), hand(R(1)), hand(L))
    assert state.lead_suit == L and state.lead_by == 1
    # P2, second of team 0 after a rank, must play a suit and follow lynx.
    assert legal_cards(state) == {L}


def test_first_teammate_holding_the_lead_suit_may_play_a_rank():
    state = play(four_player_game(), hand(W), hand(R(8)), hand(R(8)), hand(W))
    assert state.current_player == 1
    play(state, hand(O))
    # P2 is the first of team 0 in this trick: the owl it holds, or any rank.
    assert legal_cards(state) == {O, R(7), R(3), R(5), R(4), R(2)}


def test_starred_cards_go_to_the_trick_winner():
    state = play(four_player_game(), hand(W), hand(R(8)), hand(R(8)), hand(W))
    assert state.kept_stars == [0, 2]  # [D] default: the ranks 1 and 8 carry a star
    state = four_player_game(star_ranks=(6,), star_suits=("wolf",))
    play(state, hand(W), hand(R(6)), hand(R(8)), hand(W))
    assert state.kept_stars == [3, 0]


# --- 2 players -------------------------------------------------------------------------------

def test_two_player_trump_order_is_start_other_start():
    chance = [order(SUITS2, RANKS2, SKY_SUITS2, SKY_RANKS2, deck_ranks=DECK_RANKS2)]
    state = LunarState.new(num_players=2, seed=0, chance=chance)
    seen = []
    for suit in (O, L, W):
        seen.append(state.current_player)
        state.apply(TRUMP_BASE + suit)
    assert seen == [0, 1, 0] and state.trump == B


def test_follow_suit_is_judged_within_the_area_played_from():
    state = play(two_player_game(), hand(W))
    # P1 holds no wolf: any suit from its hand; the sky holds a wolf: only it from there.
    assert legal_cards(state, HAND_BASE) & {W, O, L, B} == {O, L, B}
    assert legal_cards(state, SKY_BASE) & {W, O, L, B} == {W}
    play(state, hand(B))
    # P0's second card: from the other area (the sky), of the other type (a rank).
    assert legal_cards(state, HAND_BASE) == set()
    assert legal_cards(state, SKY_BASE) == {R(5), R(6)}
    play(state, sky(R(6)))
    assert legal_cards(state, HAND_BASE) == set()
    assert legal_cards(state, SKY_BASE) == {R(5)}
    play(state, sky(R(5)))
    assert state.track == [0, 1]  # bat (trump) 5 beats wolf 6
    assert state.current_player == 1


def test_a_second_card_from_the_sky_follows_the_lead_suit_there():
    state = play(two_player_game(), hand(R(8)), hand(L))
    # P0 played a rank from its hand: now a suit from the sky, and the sky holds a lynx.
    assert legal_cards(state, HAND_BASE) == set()
    assert legal_cards(state, SKY_BASE) == {L}


def test_the_sky_is_refilled_by_type_after_each_trick():
    state = play(two_player_game(), hand(W), hand(B), sky(R(6)), sky(R(5)))
    assert state.sky[:4] == [1, 0, 1, 1]  # the suits were not touched
    ranks = {3 + r: state.sky[3 + r] for r in range(1, 9) if state.sky[3 + r]}
    assert ranks == {R(5): 1, R(1): 2}  # two ranks from the top of the rank deck
    assert state._deck_pos == [15, 17]


def test_a_sky_card_first_needs_the_other_type_in_hand_second():
    state = play(two_player_game(), sky(W))
    play(state, hand(R(8)))
    assert legal_cards(state, SKY_BASE) == set()
    # P0 played a suit from the sky: a rank from its hand.
    assert legal_cards(state, HAND_BASE) == {R(8), R(7), R(1), R(2), R(3)}


# --- round scoring, game end, start player ---------------------------------------------------

def test_round_score_is_track_stars_plus_kept_stars():
    for n in (2, 4):
        state = LunarState.new(num_players=n, rounds="single", seed=3)
        rng = random.Random(3)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        o = state.options
        assert sum(state.track) == 12
        for t in (0, 1):
            stars = sum(state.kept[t][c] * o.card_stars[c] for c in range(12))
            assert state.kept_stars[t] == stars
            assert state.team_scores[t] == o.track_stars[state.track[t]] + stars
        # every card is played, so every starred card is kept by a team
        assert sum(state.kept_stars) == 6


def _before_round_end(n: int, seed: int):
    state = LunarState.new(num_players=n, seed=seed)
    rng = random.Random(seed)
    while not (state.tricks_done == 11 and len(state.trick) == 3):
        state.apply(rng.choice(state.legal_actions()))
    last = state.legal_actions()[0]
    probe = state.clone()
    probe.apply(last)
    return state, last, probe.round_scores[0]


@pytest.mark.parametrize("n", [2, 4])
def test_game_ends_above_target_unless_tied_then_an_extra_round(n):
    state, last, (pa, pb) = _before_round_end(n, seed=11)
    # Ends: a team above 30, not tied.
    ends = state.clone()
    ends.team_scores = [31 - pa, 25 - pb]
    ends.apply(last)
    assert ends.current_player == TERMINAL and ends.team_scores == [31, 25]
    assert ends.returns().tolist() == [1, -1] * (n // 2)
    # Exactly 30 is not above 30: play on.
    on = state.clone()
    on.team_scores = [30 - pa, 20 - pb]
    on.apply(last)
    assert on.current_player != TERMINAL
    # Both above 30 and tied: one more round.
    tied = state.clone()
    tied.team_scores = [33 - pa, 33 - pb]
    tied.apply(last)
    assert tied.current_player != TERMINAL and tied.round_index == 1
    rng = random.Random(5)
    while tied.round_index == 1:
        tied.apply(rng.choice(tied.legal_actions()))
    a, b = tied.team_scores
    assert (tied.current_player == TERMINAL) == (a != b)


@pytest.mark.parametrize("n", [2, 4])
def test_next_start_player_is_the_trailing_teams_lead_tile_holder(n):
    state, last, (pa, pb) = _before_round_end(n, seed=12)
    for a, b in ((5, 9), (9, 5), (7, 7)):
        s = state.clone()
        s.team_scores = [a - pa, b - pb]
        s.apply(last)
        # [R] the lead tiles pass clockwise.
        assert s.tiles == [1 % n, 2 % n]
        if a == b:
            expected = s.tiles[0]  # tie: the black lead tile's holder
        else:
            trailing = 0 if a < b else 1
            expected = next(h for h in s.tiles if h % 2 == trailing)
        assert s.round_start == expected
        # 4 players pass first, from the start player; 2 players turn trump tiles first.
        assert s.current_player == expected


def test_single_round_option_ends_after_one_round():
    state = LunarState.new(num_players=4, rounds="single", seed=2)
    rng = random.Random(2)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    assert len(state.round_scores) == 1


# --- options and errors ----------------------------------------------------------------------

@pytest.mark.parametrize("bad", [
    {"num_players": 3},
    {"rounds": "many"},
    {"target": 0},
    {"track_stars": (1, 2, 3)},
    {"star_ranks": (9,)},
    {"star_suits": ("cat",)},
])
def test_bad_options_are_named(bad):
    name = next(iter(bad))
    with pytest.raises(OptionsError, match=name):
        LunarOptions(**bad)


def test_options_accept_comma_strings():
    o = LunarOptions(star_suits="bat, wolf", star_ranks="8")
    assert o.star_suits == ("wolf", "bat")
    assert o.card_stars == (1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1)


def test_illegal_action_is_explained():
    state = four_player_game()
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply(hand(R(6)))  # P0 holds no 6
