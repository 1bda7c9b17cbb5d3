"""Named Cat in the Box rule scenarios, each from an explicit deal.

Cards are written 1-based as on the cards; colours B(lue), Y(ellow), G(reen), R(ed).
Every scenario names the rule it pins (docs/rules/cat_in_the_box.md).
"""

from __future__ import annotations

import numpy as np
import pytest

from catzoo.games.base import IllegalActionError, OptionsError
from catzoo.games.cat_in_the_box import CatInTheBoxState, play_action, trick_winner
from catzoo.games.cat_in_the_box.scoring import largest_group, round_scores
from catzoo.games.cat_in_the_box.state import ASIDE_BASE, PREDICT_BASE, bits_of

B, Y, G, R = 0, 1, 2, 3
COLOUR = {"B": B, "Y": Y, "G": G, "R": R}


def deal(*hands, leftover=()):
    """One round's chance outcome from 1-based hands."""
    return (tuple(tuple(sorted(k - 1 for k in h)) for h in hands), tuple(k - 1 for k in leftover))


def card(text: str) -> int:
    """'R7' -> the action playing a 7 declared red."""
    return play_action(COLOUR[text[0]], int(text[1:]))


def spaces(*texts) -> int:
    return bits_of(COLOUR[t[0]] * 9 + int(t[1:]) - 1 for t in texts)


def legal_cards(state) -> set[str]:
    names = {v: k for k, v in COLOUR.items()}
    out = set()
    for a in state.legal_actions():
        colour, k = divmod(a - 14, 9)
        out.add(f"{names[colour]}{k + 1}")
    return out


# A two-player round scripted to the end (see test_two_player_round_ends_in_paradox).
TWO_PLAYER_DEAL = deal(
    (1, 1, 1, 2, 2, 3, 3, 4, 4, 5),
    (2, 2, 2, 3, 3, 3, 4, 4, 5, 5),
    leftover=(5, 5, 4, 1, 1),
)


def test_deck_and_hands_by_player_count():
    # [R] 5p: 1-9, 9 each; 4p: 1-8, 10 each; 3p: 1-6, 10 each; 2p: 1-5, 10 each + 5 left.
    for n, top, size in ((5, 9, 9), (4, 8, 10), (3, 6, 10), (2, 5, 10)):
        s = CatInTheBoxState.new(num_players=n, seed=1)
        hands, leftover = s.chance[0]
        assert all(len(h) == size for h in hands)
        cards = [k for h in hands for k in h] + list(leftover)
        assert sorted(cards) == sorted(k for k in range(top) for _ in range(5))
        assert len(leftover) == (5 if n == 2 else 0)


def test_numbers_outside_the_deck_are_blocked():
    # [R] with 4 players all four spaces of 9 are blocked (the board has columns 1-9).
    s = CatInTheBoxState.new(num_players=4, seed=0)
    assert (s.owner[:, 8] == -2).all() and (s.owner[:, :8] == -1).all()


def test_two_player_revealed_leftovers_place_neutral_tokens():
    # [R] 3 of the 5 leftovers are revealed: green space per number, yellow for a second
    # copy, blue for a third.
    # (the hands with the rest of the 2-player deck: five of each number 1-5)
    s = CatInTheBoxState.new(num_players=2, chance=[deal(
        (1, 1, 1, 2, 2, 3, 3, 3, 4, 4), (2, 2, 3, 4, 4, 5, 5, 5, 5, 5),
        leftover=(1, 1, 2, 3, 4))])
    blocked = s.owner == -2
    assert blocked[G, 0] and blocked[Y, 0] and not blocked[B, 0]  # two 1s
    assert blocked[G, 1] and not blocked[Y, 1]  # one 2
    assert not blocked[:, 2].any() and not blocked[:, 3].any()  # 3 and 4 were not revealed
    assert blocked[:, 5:].all()  # numbers 6-9 are outside the 2-player deck


def test_set_aside_card_leaves_the_hand_and_stays_hidden():
    # [R] every player secretly sets one card aside.
    chance = [deal((1, 2, 3, 4, 5, 6, 1, 2, 3, 4), (1, 2, 3, 4, 5, 6, 5, 6, 5, 6),
                   (1, 2, 3, 4, 5, 6, 1, 2, 3, 4))]
    a = CatInTheBoxState.new(num_players=3, chance=chance)
    b = CatInTheBoxState.new(num_players=3, chance=chance)
    a.apply(ASIDE_BASE + 0)  # P0 sets aside a 1
    b.apply(ASIDE_BASE + 5)  # P0 sets aside a 6 instead
    assert a.hands[0, 0] == 1 and a.aside[0] == 0
    np.testing.assert_array_equal(a.observation(1), b.observation(1))
    np.testing.assert_array_equal(a.observation(2), b.observation(2))
    assert not np.array_equal(a.observation(0), b.observation(0))


def test_predictions_allowed_by_player_count():
    # [R] 3 players predict 1, 3 or 4; [D] 4-5 players default 1-4 with options.
    def predictions(n, **opts):
        s = CatInTheBoxState.new(num_players=n, seed=3, **opts)
        for _ in range(n):
            s.apply(s.legal_actions()[0])
        return [a - PREDICT_BASE for a in s.legal_actions()]

    assert predictions(3) == [1, 3, 4]
    assert predictions(4) == [1, 2, 3, 4]
    assert predictions(5, predictions="0-4") == [0, 1, 2, 3, 4]
    assert predictions(4, predictions="1-3") == [1, 2, 3]
    s = CatInTheBoxState.new(num_players=2, seed=3)
    s.apply(s.legal_actions()[0])
    s.apply(s.legal_actions()[0])
    assert s.phase == 2  # [R] 2 players: no predictions


def _after_asides(n, chance, asides):
    s = CatInTheBoxState.new(num_players=n, chance=chance)
    for k in asides:
        s.apply(ASIDE_BASE + k - 1)
    return s


def test_leader_may_not_lead_red_before_it_is_broken():
    s = _after_asides(2, [TWO_PLAYER_DEAL], (5, 5))
    assert not any(c.startswith("R") for c in legal_cards(s))
    with pytest.raises(IllegalActionError, match="not legal for player 0"):
        s.apply(card("R1"))


def test_two_player_round_ends_in_paradox():
    """A scripted 2-player round: tricks won by the highest led colour and by red, the
    loss of a marker, red leads once broken, and a paradox in the last trick.

    Neutral tokens: 5 twice (green, yellow) and 4 once (green).
    """
    s = _after_asides(2, [TWO_PLAYER_DEAL], (5, 5))
    plays = [
        ("B1", "B2", 1),  # P0 leads; P1 wins with the higher blue
        ("Y2", "Y1", 1),  # P1 leads
        ("B3", "G1", 1),  # P0 declares green on a blue lead: loses the blue marker
        ("Y3", "Y4", 0),  # P0 wins with the higher yellow
        ("G2", "R3", 1),  # P0 leads green; P1's red wins (red breaks; P1 loses green)
        ("R4", "R2", 1),  # red is broken: P1 may lead it
        ("B4", "G3", 1),
    ]
    for first, second, winner in plays:
        s.apply(card(first))
        s.apply(card(second))
        assert s.last_trick[1] == winner, (first, second)
        assert s.current_player == winner  # [R] the trick's winner leads the next
    assert not s.markers[0][B] and s.markers[0][Y] and s.markers[0][G]
    assert not s.markers[1][G]
    # Trick 8: P1 leads blue 5; P0 holds 3 and 4, every space of which is taken,
    # blocked, or of the colour it lost: a paradox.
    s.apply(card("B5"))
    assert s.round_index == 1 and s.last_paradox == 0
    record = s.round_records[0]
    assert record["tricks"] == [1, 6] and record["tricks_played"] == 7
    # [R] the paradox player scores -1 per trick; P1 won more than 4 tricks: no bonus.
    assert s.round_scores[0] == [-1, 6]
    assert s.last_trick == (((1, B, 4),), None)  # the trick in progress is won by nobody


def test_follower_declaring_another_colour_loses_only_the_led_marker():
    s = _after_asides(2, [TWO_PLAYER_DEAL], (5, 5))
    s.apply(card("B1"))
    s.apply(card("G2"))  # P1 declares green on a blue lead
    assert s.markers[1] == [False, True, True, True]
    assert s.markers[0] == [True, True, True, True]


def test_marker_lost_forbids_that_colour_for_the_rest_of_the_round():
    s = _after_asides(2, [TWO_PLAYER_DEAL], (5, 5))
    s.apply(card("B1"))
    s.apply(card("G2"))  # P1 loses blue
    # P0 won (blue 1 was the only card of the led colour); P0 leads yellow 2.
    assert s.current_player == 0
    s.apply(card("Y2"))
    assert not any(c.startswith("B") for c in legal_cards(s))


def test_trick_winner_rules():
    # [R] the highest red wins if any red was declared, else the highest led colour;
    # other colours never win.
    assert trick_winner([(0, B, 3), (1, Y, 8), (2, B, 5)], B) == 2
    assert trick_winner([(0, B, 3), (1, R, 1), (2, B, 8)], B) == 1
    assert trick_winner([(0, B, 3), (1, R, 1), (2, R, 2)], B) == 2
    assert trick_winner([(0, R, 4), (1, G, 8), (2, R, 2)], R) == 0


def _position(n, hands, tokens=(), markers=None, to_act=0, trick=(), red_broken=False):
    """A play-phase position set up directly (for rules that arise late in a round)."""
    s = CatInTheBoxState.new(num_players=n, seed=0)
    core = s._core
    f = core.fields()
    f["phase"] = 2
    f["counts"] = [[list(h).count(k + 1) for k in range(9)] for h in hands]
    f["tokens"] = [0] * n
    for p, owned in enumerate(tokens):
        f["tokens"][p] = spaces(*owned)
    for t in f["tokens"]:
        f["empty_bits"] &= ~t
    if markers is not None:
        f["marker_bits"] = [sum(0x1FF << (c * 9) for c in range(4) if m[c]) for m in markers]
    f["red_broken"] = red_broken
    f["trick"] = list(trick)
    f["led"] = trick[0][1] if trick else -1
    f["current_player"] = to_act
    core.load(f)
    core.refresh_legal()
    s.current_player, s._legal = core.current_player, core.legal
    return s


def test_leader_may_lead_red_when_no_other_colour_is_possible():
    # [R] exception: the leader may lead red when no other colour can be declared with
    # any card in hand. P0 holds only 6s; blue 6 and green 6 are taken, yellow is lost.
    s = _position(3, hands=[(6, 6), (1, 2), (3, 4)], tokens=[(), ("B6",), ("G6",)],
                  markers=[(True, False, True, True)] + [(True,) * 4] * 2)
    assert legal_cards(s) == {"R6"}


def test_leader_may_lead_red_once_broken():
    s = _position(3, hands=[(2, 5), (1, 2), (3, 4)], tokens=[(), ("R1",), ()], red_broken=True)
    assert legal_cards(s) == {"B2", "Y2", "G2", "R2", "B5", "Y5", "G5", "R5"}


def test_paradox_when_the_leader_has_no_move():
    # [R] a paradox can strike the leader too: P0 holds only 1s, every space of 1 is
    # taken and red is unbroken but red 1 is taken as well.
    s = _position(3, hands=[(1,), (2, 3), (4, 5)],
                  tokens=[(), ("B1", "Y1"), ("G1", "R1")], red_broken=True)
    assert s.legal_actions() == []


def test_bonus_is_the_largest_connected_group():
    tokens = spaces("B1", "B2", "Y2", "Y3", "R7")
    # Default rows top to bottom: blue, yellow, green, red: B2 touches Y2.
    assert largest_group(tokens, ("blue", "yellow", "green", "red")) == 4
    # With green between blue and yellow the group splits in two pairs.
    assert largest_group(tokens, ("blue", "green", "yellow", "red")) == 2
    # Adjacency does not wrap from one row's 9 to the next row's 1.
    assert largest_group(spaces("B9", "Y1"), ("blue", "yellow", "green", "red")) == 1


def test_round_scores_exact_prediction_bonus_and_paradox():
    tokens = [spaces("B1", "B2", "Y2", "Y3"), spaces("G5", "G7"), spaces("R1")]
    # P0 predicted 2 and won 2: 2 + bonus 4. P1 predicted 1 and won 3: 3, no bonus.
    # P2 caused a paradox with 1 trick: -1.
    assert round_scores(tokens, [2, 3, 1], [2, 1, 1], 2, ("blue", "yellow", "green", "red")) \
        == [6, 3, -1]
    # [R] 2 players: the bonus for 4 tricks or fewer, no prediction needed.
    assert round_scores(tokens[:2], [4, 5], [-1, -1], -1, ("blue", "yellow", "green", "red")) \
        == [8, 5]


def test_rounds_rotate_the_start_player_and_game_ends_after_n_rounds():
    s = CatInTheBoxState.new(num_players=3, seed=5)
    starts = []
    while not s.is_terminal():
        if s.phase == 0 and s.current_player == s.round_start and s.aside == [-1] * 3:
            starts.append(s.round_start)
        s.apply(s.legal_actions()[-1])
    assert starts == [0, 1, 2] and len(s.round_scores) == 3
    assert [r["start_player"] for r in s.round_records] == [0, 1, 2]
    single = CatInTheBoxState.new(num_players=3, seed=5, rounds="single")
    while not single.is_terminal():
        single.apply(single.legal_actions()[-1])
    assert len(single.round_scores) == 1


def test_tie_break_by_final_round_score():
    # [R] highest total; tied: highest score in the final round; still tied: shared.
    s = CatInTheBoxState.new(num_players=3, seed=0)
    s.total_scores = [10, 10, 4]
    s.round_scores = [[5, 2, 2], [5, 8, 2]]
    assert s.winners() == [1]
    np.testing.assert_allclose(s.returns(), [0.0, 1.0, -1.0])
    s.round_scores = [[5, 2, 2], [5, 5, 2]]
    assert s.winners() == [0, 1]


@pytest.mark.parametrize(("options", "message"), [
    ({"num_players": 6}, "num_players=6"),
    ({"predictions": "2-5"}, "predictions"),
    ({"row_order": ("blue", "blue", "green", "red")}, "row_order"),
    ({"colours": 3}, "unknown option"),
])
def test_options_are_validated(options, message):
    with pytest.raises(OptionsError, match=message):
        CatInTheBoxState.new(**options)


def test_the_row_order_may_be_given_as_text():
    assert CatInTheBoxState.new(row_order="red,green,yellow,blue").options.row_order == (
        "red", "green", "yellow", "blue")
