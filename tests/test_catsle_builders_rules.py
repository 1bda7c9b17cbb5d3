"""Named rule scenarios of CATsle Builders, played from explicit deals.

Each scenario pins the chance outcomes: ``chance=[first player, (hands, undealt), ...]``.
"""

from __future__ import annotations

import pytest

from catzoo.games.base import IllegalActionError, OptionsError
from catzoo.games.catsle_builders import CatsleBuildersState, board_score, rating
from catzoo.games.catsle_builders.options import DEFAULT_COLUMN_LIMITS, DEFAULT_PERFECT_BONUS
from catzoo.games.catsle_builders.state import COLUMN, COLUMN_BASE, PLAY, TAKE, TAKE_BASE

SUIT = {"W": 0, "G": 1, "T": 2, "B": 3, "M": 4}


def card(name: str) -> int:
    """``"W7"`` -> the Walls 7."""
    return SUIT[name[0]] * 12 + int(name[1:]) - 1


def deal(num_players: int, hands, first: int = 0, **options) -> CatsleBuildersState:
    """A game whose first round deals ``hands`` (lists of card names)."""
    cards = [tuple(sorted(card(c) for c in hand)) for hand in hands]
    used = {c for hand in cards for c in hand}
    size = 48 if num_players == 3 else 60
    undealt = tuple(c for c in range(size) if c not in used)
    options.setdefault("hand_size", len(hands[0]))
    options.setdefault("rounds", "single")
    return CatsleBuildersState.new(
        num_players=num_players, chance=[first, (tuple(cards), undealt)], **options
    )


def play(state, *names):
    for name in names:
        assert state.phase == PLAY
        state.apply(card(name))


# --- ranking -------------------------------------------------------------------------------

def test_ranking_equal_non_lead_values_later_card_is_stronger():
    # Walls led; the Gables 9 and the Gates 9 tie in value: the Gates, played later, wins.
    trick = [card("W5"), card("G9"), card("T9"), card("B3")]
    assert rating(trick, led=0) == [0, 2, 1, 3]
    state = deal(4, [["W5"], ["G9"], ["T9"], ["B3"]])
    play(state, "W5", "G9", "T9", "B3")
    assert state.rating == [0, 2, 1, 3]
    # The strongest (P0) takes one card first, choosing among all four.
    assert state.phase == TAKE and state.current_player == 0
    assert sorted(state.legal_actions()) == sorted(TAKE_BASE + card(c)
                                                   for c in ("W5", "G9", "T9", "B3"))


def test_ranking_lead_suit_beats_higher_off_suit_and_higher_beats_lower():
    trick = [card("T2"), card("W12"), card("T7")]
    assert rating(trick, led=2) == [2, 0, 1]


# --- following suit ------------------------------------------------------------------------

def test_must_follow_the_led_suit_when_possible():
    state = deal(3, [["W3", "G4"], ["W8", "T1"], ["G2", "B5"]])
    play(state, "W3")
    assert state.legal_actions() == [card("W8")]
    play(state, "W8")
    # No Walls in hand: any card.
    assert state.legal_actions() == sorted([card("G2"), card("B5")])
    with pytest.raises(IllegalActionError, match="not legal"):
        state.apply(card("W12"))


# --- taking, columns, who leads --------------------------------------------------------------

def _first_trick(**options):
    state = deal(3, [["W12", "G1"], ["W1", "G12"], ["W6", "T5"]], **options)
    play(state, "W12", "W1", "W6")  # rating P0 (W12) > P2 (W6) > P1 (W1)
    assert state.rating == [0, 2, 1]
    assert state.phase == TAKE and state.current_player == 0
    state.apply(TAKE_BASE + card("W6"))
    # A new suit and four empty columns: P0 chooses the column.
    assert state.phase == COLUMN and state.current_player == 0
    assert state.legal_actions() == [COLUMN_BASE + k for k in range(4)]
    state.apply(COLUMN_BASE + 0)
    # P2 (second strongest) must take both cards left: no choice of card is asked, only
    # the column of the first Walls; the second Walls is forced into that column.
    assert state.phase == COLUMN and state.current_player == 2
    assert state.pending == card("W12")
    state.apply(COLUMN_BASE + 3)
    return state


def test_forced_column_and_who_leads_next():
    state = _first_trick()
    assert state.col_cards[2][3] == [card("W12"), card("W1")]
    assert state.col_cards[0][0] == [card("W6")]
    assert state.board_counts(1) == [0, 0, 0, 0]  # the weakest takes nothing at 3 players
    # The player who took two cards (P2) leads the next trick.
    assert state.phase == PLAY and state.current_player == 2 and state.leader == 2


def test_round_scores_after_a_short_round():
    state = _first_trick()
    play(state, "T5", "G1", "G12")  # rating: T5 (led) > G12 (later, higher) > G1
    assert state.rating == [2, 1, 0]
    state.apply(TAKE_BASE + card("G12"))
    state.apply(COLUMN_BASE + 1)
    # P1 takes T5 and G1, choosing a column for each (new suits, several empty columns).
    assert state.current_player == 1 and state.pending == card("T5")
    state.apply(COLUMN_BASE + 2)
    assert state.current_player == 1 and state.pending == card("G1")
    assert COLUMN_BASE + 2 not in state.legal_actions()
    state.apply(COLUMN_BASE + 0)
    assert state.is_terminal()
    # P0: W6 in limit 2 -> 1.  P1: T5 (limit 4), G1 (limit 2) -> 2.  P2: W12 W1 (limit
    # 5) and G12 (limit 3) -> 3.  Nobody has a perfect column.
    assert state.round_scores == [[1, 2, 3]]
    assert state.scores() == [1, 2, 3]
    assert state.winners() == [2]


def test_forced_column_for_the_taker_who_has_the_suit():
    state = deal(3, [["W12", "W11"], ["W1", "W10"], ["W2", "G3"]])
    play(state, "W12", "W1", "W2")  # P0 > P2 > P1
    state.apply(TAKE_BASE + card("W1"))
    state.apply(COLUMN_BASE + 1)
    state.apply(COLUMN_BASE + 2)
    play(state, "G3", "W11", "W10")  # Gables led, then W11, W10 (off-suit): G3 > W11 > W10
    assert state.rating == [2, 0, 1]
    state.apply(TAKE_BASE + card("W10"))  # P2 takes W10: its Walls column is forced
    assert state.col_cards[2][2] == [card("W12"), card("W2"), card("W10")]
    # P0 must take G3 and W11: W11 goes to its Walls column with no question asked,
    # G3 (a new suit) asks for a column.
    assert state.phase == COLUMN and state.current_player == 0 and state.pending == card("G3")
    state.apply(COLUMN_BASE + 3)
    assert state.col_cards[0][1] == [card("W1"), card("W11")]
    assert state.is_terminal()


# --- scoring ---------------------------------------------------------------------------------

LIMITS4 = DEFAULT_COLUMN_LIMITS + (0,)


def test_sideways_cards_cost_a_point_each():
    # Limit 2 with 5 cards: 3 sideways -> -3; limit 3 with 3 -> 3 (perfect, bonus 1).
    assert board_score([5, 3, 0, 0], DEFAULT_COLUMN_LIMITS, DEFAULT_PERFECT_BONUS) == (1, 1)
    # The 0 column: every card is sideways.
    assert board_score([1, 1, 1, 1, 2], LIMITS4, DEFAULT_PERFECT_BONUS) == (2, 0)


def test_perfect_bonus_by_number_of_perfect_columns():
    assert board_score([2, 3, 4, 5], DEFAULT_COLUMN_LIMITS, DEFAULT_PERFECT_BONUS) == (24, 4)
    assert board_score([2, 0, 0, 0], DEFAULT_COLUMN_LIMITS, DEFAULT_PERFECT_BONUS) == (3, 1)
    assert board_score([2, 3, 1, 0], DEFAULT_COLUMN_LIMITS, DEFAULT_PERFECT_BONUS) == (9, 2)
    # An empty 0 column is never perfect.
    assert board_score([0, 0, 0, 0, 0], LIMITS4, DEFAULT_PERFECT_BONUS) == (0, 0)


def test_negative_round_is_clipped_to_zero():
    assert board_score([0, 0, 0, 0, 3], LIMITS4, DEFAULT_PERFECT_BONUS) == (0, 0)
    assert board_score([6, 1, 0, 0], DEFAULT_COLUMN_LIMITS, DEFAULT_PERFECT_BONUS) == (0, 0)


def sideways_first_trick() -> CatsleBuildersState:
    """Limits of 1 at 3 players, after the first trick: P2 has put W12 and W1 in its Walls
    column (limit 1), the second one sideways."""
    state = deal(3, [["W12", "G1"], ["W1", "G12"], ["W6", "T5"]],
                 column_limits=(1, 1, 1, 1), perfect_bonus=(0, 0, 0, 0, 0))
    play(state, "W12", "W1", "W6")
    state.apply(TAKE_BASE + card("W6"))
    state.apply(COLUMN_BASE + 0)
    state.apply(COLUMN_BASE + 3)
    return state


def sideways_last_trick(state: CatsleBuildersState) -> None:
    """The last trick of ``sideways_first_trick``'s round, which ends the game."""
    play(state, "T5", "G1", "G12")
    state.apply(TAKE_BASE + card("G1"))  # P2 takes G1 into a column of its choice
    state.apply(COLUMN_BASE + 1)
    state.apply(COLUMN_BASE + 0)  # P1: T5
    state.apply(COLUMN_BASE + 1)  # P1: G12


def test_sideways_and_clipping_in_play():
    state = sideways_first_trick()
    assert state.col_cards[2][3] == [card("W12"), card("W1")]
    sideways_last_trick(state)
    assert state.is_terminal()
    # P2: Walls 2 cards in limit 1 -> -1, Gables 1 in limit 1 -> +1: 0.
    assert state.round_scores == [[1, 2, 0]]


def test_negative_round_total_in_play_scores_zero():
    state = deal(3, [["W12", "W11"], ["W1", "W10"], ["W2", "W3"]],
                 column_limits=(1, 1, 1, 1), perfect_bonus=(0, 0, 0, 0, 0))
    play(state, "W12", "W1", "W3")  # P0 > P2 > P1
    state.apply(TAKE_BASE + card("W12"))
    state.apply(COLUMN_BASE + 0)
    state.apply(COLUMN_BASE + 0)  # P2 takes W1, W3
    play(state, "W2", "W11", "W10")  # P2 leads; P0 W11 > P1 W10 > P2 W2
    state.apply(TAKE_BASE + card("W2"))  # P0: Walls column forced, now 2 in limit 1
    assert state.phase == COLUMN and state.current_player == 1  # P1 takes W11 and W10
    state.apply(COLUMN_BASE + 0)
    assert state.is_terminal()
    # Every board holds 2 Walls in a column of limit 1: one sideways card, -1, scored 0.
    assert state.round_scores == [[0, 0, 0]]
    assert state.round_boards[0][0][0] == [card("W12"), card("W2")]


# --- the deck, the first player, rounds ---------------------------------------------------------

def test_three_player_deck_has_no_moats():
    state = CatsleBuildersState.new(num_players=3, seed=5)
    hands, undealt = state.chance[1]
    dealt = sorted(c for hand in hands for c in hand)
    assert sorted(dealt + list(undealt)) == list(range(48))
    assert all(len(hand) == 13 for hand in hands) and len(undealt) == 9
    assert state.options.limits == DEFAULT_COLUMN_LIMITS  # no 0 column at 3 players
    assert all(a < 48 for a in state.legal_actions())


def test_four_and_five_players_have_all_suits_and_a_zero_column():
    for n, hand in ((4, 13), (5, 11)):
        state = CatsleBuildersState.new(num_players=n, seed=1)
        hands, undealt = state.chance[1]
        assert sorted([c for h in hands for c in h] + list(undealt)) == list(range(60))
        assert {len(h) for h in hands} == {hand}
        assert state.options.limits == DEFAULT_COLUMN_LIMITS + (0,)


def test_first_player_is_drawn_and_then_rotates():
    firsts = set()
    for seed in range(12):
        state = CatsleBuildersState.new(num_players=4, seed=seed)
        assert state.current_player == state.chance[0] == state.round_start
        firsts.add(state.round_start)
    assert firsts == {0, 1, 2, 3}
    state = CatsleBuildersState.new(num_players=4, seed=3, hand_size=1)
    starts = [state.round_start]
    while not state.is_terminal():
        round_index = state.round_index
        state.apply(state.legal_actions()[0])
        if state.round_index != round_index and not state.is_terminal():
            starts.append(state.round_start)
    assert starts == [(starts[0] + r) % 4 for r in range(3)]
    assert len(state.round_scores) == 3


def test_tie_break_is_perfect_columns_in_the_last_round():
    state = CatsleBuildersState.new(num_players=3, seed=0)
    state.total_scores = [10, 10, 9]
    state.round_perfect = [[0, 0, 0], [1, 2, 0]]
    assert state.standing_keys() == [(10, 1), (10, 2), (9, 0)]
    assert state.winners() == [1]


# --- options --------------------------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    ({"num_players": 2}, "num_players"),
    ({"num_players": 4, "take_counts": (1, 2, 1)}, "take_counts"),
    ({"num_players": 4, "take_counts": (2, 2, 1, 0)}, "sum to 4"),
    ({"column_limits": (2, 3, 4)}, "fewer than the 5 suits"),
    ({"column_limits": (2, 0, 4, 5)}, "positive"),
    ({"perfect_bonus": (0, 1, 2)}, "perfect_bonus"),
    ({"num_players": 5, "hand_size": 13}, "deck has 60"),
    ({"rounds": "two"}, "rounds"),
])
def test_bad_options_are_named(options, message):
    with pytest.raises(OptionsError, match=message):
        CatsleBuildersState.new(**options)


def test_custom_take_counts_pick_the_next_leader():
    # 4 players with (2, 1, 1, 0): the strongest takes two and leads next.
    state = deal(4, [["W12", "W1"], ["W2", "W3"], ["W4", "W5"], ["W6", "W7"]],
                 take_counts=(2, 1, 1, 0))
    play(state, "W12", "W2", "W4", "W6")
    while state.phase != PLAY:
        state.apply(state.legal_actions()[0])
    assert state.current_player == 0
    assert sum(state.board_counts(0)) == 2


def test_options_from_strings():
    state = CatsleBuildersState.new(num_players=4, take_counts="1,2,1,0",
                                    column_limits="2,3,4,5", perfect_bonus="0,1,3,6,10")
    assert state.options.take_counts == (1, 2, 1, 0)
