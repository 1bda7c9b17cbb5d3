"""Named Cat Tree rule scenarios: scoring and placement drawn as small grids, turns played
from explicit deals.

Grids are drawn top row first, the bottom line lying on the floor, one letter per cell:
P pipe, S scratcher, H hammock, C catwalk, B box, T toy, L shelf (ledge), N nest, . empty.
Every scenario names the rule it pins (docs/rules/cat_tree.md).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from catzoo.games.base import IllegalActionError, OptionsError
from catzoo.games.cat_tree import CatTreeOptions, CatTreeState
from catzoo.games.cat_tree.options import (
    BOX,
    CATWALK,
    HAMMOCK,
    LETTERS,
    NEST,
    PIPE,
    SCRATCHER,
    SHELF,
    TOY,
)
from catzoo.games.cat_tree.placement import boards_from_picture, can_place, rules_for
from catzoo.games.cat_tree.scoring import breakdown, counted_cells, score
from catzoo.games.cat_tree.state import (
    DECK,
    KEEP_BASE,
    ME_FIRST,
    PARTNER_FIRST,
    PLACE_BASE,
)
from tests.helpers import assert_replays, random_playout


def points(picture: str, **options) -> int:
    boards, o = boards_from_picture(picture, CatTreeOptions(**options))
    return score(boards, rules_for(o))


def parts(picture: str, **options) -> dict[str, int]:
    boards, o = boards_from_picture(picture, CatTreeOptions(**options))
    return {k: v for k, v in breakdown(boards, rules_for(o)).items() if v}


def legal(picture: str, letter: str, row: int, col: int, **options) -> bool:
    boards, o = boards_from_picture(picture, CatTreeOptions(**options))
    return can_place(boards, rules_for(o), LETTERS.index(letter), row * o.width + col)


def deck_of(*turns) -> tuple[int, ...]:
    """A deck dealing the given hands first: each turn is ((p0 cards), (p1 cards)) in
    letters; the rest of the deck follows in type order."""
    head = [LETTERS.index(ch) for hands in turns for hand in hands for ch in hand]
    rest = list(DECK)
    for kind in head:
        rest.remove(kind)
    return tuple(head + rest)


def game(*turns, **options) -> CatTreeState:
    return CatTreeState.new(CatTreeOptions(**options), chance=[deck_of(*turns)])


def cell_action(state, row: int, col: int) -> int:
    return PLACE_BASE + row * state.options.width + col


# --- scoring -----------------------------------------------------------------------------

def test_pipe_between_two_boxes():
    # [S] pipe 5 + 3 per attached side; [D] a side attaches to a box, shelf or nest.
    assert parts("BPB") == {"box": 10, "pipe": 11}
    assert parts("BP") == {"box": 5, "pipe": 8}
    assert parts("P") == {"pipe": 5}


def test_pipe_next_to_a_scratcher_is_not_attached_unless_any_side_counts():
    # [S] a scratcher can't support pieces on its sides; option pipe_sides="any".
    assert parts("SPN") == {"scratcher": 5, "pipe": 8, "nest": 5}
    assert parts("SPN", pipe_sides="any") == {"scratcher": 5, "pipe": 11, "nest": 5}


def test_two_scratchers_side_by_side_apart_and_stacked():
    # [S] side by side: one group; 2 apart horizontally: two groups; stacked: two groups.
    assert points("SS") == 5
    assert points("SSS") == 5
    assert points("S.S") == 10
    assert points("S\nS") == 10
    assert points("SS\nSS") == 10  # two rows, one group each


def test_toys_at_distance_two_and_three():
    # [S] toys closer than 3 are grouped and count once.
    assert points("T.T") == 5
    assert points("T..T") == 10
    assert points("T.\nBT") == 10  # box 5 + diagonal toys (distance 2): one group
    assert points("T..\nB.T") == 15  # box 5 + toys at distance 1 + 2 = 3: two groups
    # [D] grouping is transitive: a chain of close toys is one group.
    assert points("T.T.T") == 5
    assert points("T.T..T") == 10


def test_card_at_height_four_and_five():
    # [S] a card at height 5 or more scores double; [D] the bottom row is height 1.
    four = "B\nB\nB\nB"
    five = "B\n" + four
    assert points(four) == 20
    assert points(five) == 20 + 10
    # bottom_height=0: the floor row is height 0, so the 5-high column has no bonus.
    assert points(five, bottom_height=0) == 25
    assert points("B\n" + five, bottom_height=0) == 25 + 10


def test_pipe_at_altitude_doubles_with_its_sides():
    picture = "BPB\nNNN\nNNN\nNNN\nNNN"  # the pipe row is the 5th row
    assert parts(picture) == {"nest": 60, "box": 20, "pipe": 22}


def test_floating_shelf_two_and_three_away_from_the_structure():
    # [S] a part at distance 3 or more from the ground-connected structure scores nothing.
    assert points("L\n.\nB") == 10  # distance 2: part of the tree
    assert points("L\n.\n.\nB") == 5  # distance 3: not part of the tree
    assert points("T\nL\n.\n.\nB") == 5  # the seed's "shelf + toy at distance 3"
    assert points("T\nL\n.\nB") == 15  # the same part at distance 2 scores
    assert points("L.\n.B") == 10  # diagonal neighbour: distance 1 + 1 = 2
    assert points(".L\n..\nB.") == 5  # distance 2 + 1 = 3


def test_a_tree_without_anything_on_the_floor_scores_nothing():
    # [D] no ground-connected structure, no tree.
    assert points("L\n.") == 0


def test_hammock_with_both_sides():
    # [S] hammock 8 (and catwalk 8), attached by both sides.
    assert parts("BHN") == {"box": 5, "hammock": 8, "nest": 5}
    assert parts("LCL\n.B.") == {"shelf": 10, "catwalk": 8, "box": 5}


def test_hammock_without_both_sides_cannot_be_placed():
    assert legal("B.B", "H", 0, 1)
    assert not legal("B..", "H", 0, 1)  # one side only
    assert not legal("S.S", "H", 0, 1)  # scratchers don't hold sides
    assert not legal("B.P", "H", 0, 1)  # neither do pipes
    assert not legal("H.B\nB.B", "H", 1, 1)  # nor hammocks
    assert not legal(".B", "H", 0, 0)  # the grid's edge is no side


def test_counted_cells_leave_out_detached_parts():
    boards, o = boards_from_picture("L\n.\n.\nB")
    assert counted_cells(boards, rules_for(o)) == 1  # only the box, cell 0


# --- placement legality -----------------------------------------------------------------

@pytest.mark.parametrize("letter", ["P", "S", "T"])
def test_flat_surface_pieces(letter):
    # [S] pipe, scratcher, toy: laid on a flat surface (floor or a piece that carries).
    assert legal("", letter, 0, 3)
    for carrier in "SBN":
        assert legal(carrier, letter, 1, 0), carrier
    assert legal("L\n.", letter, 2, 0)  # on a shelf in the air
    for other in "PHCT":
        assert not legal(f"B{other}B", letter, 1, 1), other
    assert not legal("B", letter, 2, 0)  # floating
    assert not legal("B", letter, 0, 0)  # occupied


@pytest.mark.parametrize("letter", ["H", "C"])
def test_hanging_pieces(letter):
    # [S] hammock and catwalk: attached by both left and right side.
    assert not legal("", letter, 0, 3)
    assert legal("L.L\n...\n...", letter, 2, 1)  # between two shelves in the air
    assert legal("N.B", letter, 0, 1)
    assert not legal(".\nB", letter, 1, 0)  # a flat surface is not enough


@pytest.mark.parametrize("letter", ["B", "N"])
def test_box_and_nest(letter):
    # [S] laid on a flat surface or attached by both sides.
    assert legal("", letter, 0, 5)
    assert legal("S", letter, 1, 0)
    assert legal("L.L\n...", letter, 1, 1)
    assert not legal("P", letter, 1, 0)  # a pipe can't be used as a basement
    assert not legal("T", letter, 1, 0)
    assert not legal("B.H\n...", letter, 1, 1)  # a hammock holds no side
    assert not legal("...", letter, 2, 1)


def test_shelf_anywhere_but_the_floor():
    # [S] a shelf can be placed anywhere on the grid but never touches the ground.
    assert legal("", "L", 7, 7)
    assert legal("", "L", 1, 0)
    assert not legal("", "L", 0, 0)
    assert not legal("L\n.", "L", 1, 0)  # occupied


def test_mask_is_the_legal_cells_of_the_kept_card():
    s = game(("PB", "HH"))
    s.apply(KEEP_BASE + 1)  # player 0 keeps the box (types sorted: pipe, box)
    s.apply(KEEP_BASE)  # player 1 keeps a hammock
    s.apply(ME_FIRST)  # leader (player 0) places first
    assert s.current_player == 0
    assert s.legal_actions() == [cell_action(s, 0, c) for c in range(8)]
    s.apply(cell_action(s, 0, 3))
    # the hammock has no place: dismissing is the only legal action
    assert s.current_player == 1
    assert s.legal_actions() == [s.dismiss]


# --- turns ----------------------------------------------------------------------------------

def test_dismiss_only_when_nothing_fits():
    # [S] a card that can't be placed is dismissed, and only then.
    s = game(("BB", "BB"), ("HH", "NN"))
    s.apply(KEEP_BASE)
    s.apply(KEEP_BASE)
    s.apply(ME_FIRST)
    s.apply(cell_action(s, 0, 2))
    assert s.dismiss not in s.legal_actions()
    with pytest.raises(IllegalActionError):
        s.apply(s.dismiss)
    s.apply(cell_action(s, 0, 4))
    # turn 2: the leader is player 1; player 0's hammock fits between the boxes only if
    # ... they are two apart: (0,2) and (0,4) leave (0,3) between them.
    s.apply(KEEP_BASE)
    s.apply(KEEP_BASE)
    assert s.current_player == 1  # player 1 leads turn 2
    s.apply(PARTNER_FIRST)
    assert s.current_player == 0
    assert s.legal_actions() == [cell_action(s, 0, 3)]
    s.apply(cell_action(s, 0, 3))
    assert s.total == 5 + 8 + 5


def test_the_order_decides_whether_a_hammock_fits():
    # The partner's box placed first makes the hammock placeable in the same turn.
    def turn_two(first_action):
        s = game(("BB", "NN"), ("HH", "BB"))
        for a in (KEEP_BASE, KEEP_BASE, ME_FIRST):
            s.apply(a)
        s.apply(cell_action(s, 0, 1))
        s.apply(cell_action(s, 0, 5))
        s.apply(KEEP_BASE)
        s.apply(KEEP_BASE)
        s.apply(first_action)  # player 1 leads: ME_FIRST puts player 1's box first
        return s

    box_first = turn_two(ME_FIRST)
    box_first.apply(cell_action(box_first, 0, 3))
    assert box_first.current_player == 0
    assert cell_action(box_first, 0, 2) in box_first.legal_actions()
    hammock_first = turn_two(PARTNER_FIRST)
    assert hammock_first.legal_actions() == [hammock_first.dismiss]


def test_alternate_order_has_no_order_decision():
    s = game(("BB", "BB"), placing_order="alternate")
    s.apply(KEEP_BASE)
    s.apply(KEEP_BASE)
    assert s.current_player == 0 and s.legal_actions()[0] >= PLACE_BASE


def test_eight_turns_use_the_whole_deck():
    s = CatTreeState.new(seed=3)
    random_playout(s, random.Random(3))
    assert s.turn == 8 and len(s.placements) == 16
    assert sorted(s.deck) == list(DECK)


def test_hidden_pick_is_not_visible_to_the_partner():
    def after_pick(index):
        s = game(("PB", "HT"))
        s.apply(KEEP_BASE + index)
        return s

    a, b = after_pick(0), after_pick(1)
    assert a.current_player == b.current_player == 1
    np.testing.assert_array_equal(a.observation(1), b.observation(1))
    assert not np.array_equal(a.observation(0), b.observation(0))
    # after the reveal the partner sees the kept card
    a.apply(KEEP_BASE)
    parts_ = a.layout.decode(a.observation(1))
    assert parts_["kept"][1].argmax() == PIPE and parts_["kept"][1].sum() == 1


def test_partner_hand_is_not_visible_before_the_reveal():
    s1 = game(("PB", "HT"))
    s2 = game(("PB", "NS"))
    np.testing.assert_array_equal(s1.observation(0), s2.observation(0))
    assert not np.array_equal(s1.observation(1), s2.observation(1))


def test_unseen_counts_what_the_viewer_saw():
    s = game(("PB", "HT"))
    unseen = s.layout.decode(s.observation(0))["unseen"] * 4
    expected = np.full(8, 4.0)
    expected[PIPE] -= 1
    expected[BOX] -= 1
    np.testing.assert_allclose(unseen, expected)


def test_scores_are_shared_and_returns_scaled():
    s = CatTreeState.new(seed=5)
    random_playout(s, random.Random(5))
    assert s.scores() == [s.total, s.total]
    np.testing.assert_allclose(s.returns(), [s.total / 100] * 2)
    assert s.winners() == [0, 1]


def test_replay_and_resample_keep_what_the_viewer_saw():
    rng = random.Random(2)
    s = CatTreeState.new(seed=2)
    for _ in range(13):
        s.apply(rng.choice(s.legal_actions()))
    assert_replays(s)
    for viewer in (0, 1):
        r = s.resample(viewer, random.Random(viewer))
        np.testing.assert_array_equal(r.observation(viewer), s.observation(viewer))
        assert r.boards == s.boards and r.current_player == s.current_player
        assert_replays(r)
    random_playout(r, rng)


def test_the_partners_unseen_pick_is_the_keep_before_the_reveal():
    # [D] player 0 picks, then player 1, neither seeing the other's pick until the reveal:
    # only player 1, between the two picks, has a partner's pick it has not seen
    s = CatTreeState.new(seed=5)
    assert s.unseen_pick(0) is None and s.unseen_pick(1) is None
    s.apply(1)  # player 0 keeps its higher card
    assert s.unseen_pick(1) == 0 and s.unseen_pick(0) is None
    s.apply(0)  # player 1 keeps: both cards revealed
    assert s.unseen_pick(0) is None and s.unseen_pick(1) is None
    while s.turn == 0:
        s.apply(s.legal_actions()[0])
    s.apply(0)  # turn 2: player 0's pick is the 6th action logged (with the order chosen)
    assert s.unseen_pick(1) == 5


def test_options_are_checked():
    with pytest.raises(OptionsError, match="num_players"):
        CatTreeOptions(num_players=3)
    with pytest.raises(OptionsError, match="placing_order"):
        CatTreeOptions(placing_order="random")
    with pytest.raises(OptionsError, match="width"):
        CatTreeOptions(width=2)
    with pytest.raises(OptionsError, match="bottom_height"):
        CatTreeOptions(bottom_height=2)
    with pytest.raises(OptionsError, match="unknown option"):
        CatTreeState.new(grid=3)


def test_illegal_actions_raise_clear_errors():
    s = CatTreeState.new(seed=0)
    with pytest.raises(IllegalActionError, match="not legal"):
        s.apply(PLACE_BASE)
    with pytest.raises(IllegalActionError, match="out of range"):
        s.apply(s.num_actions)


def test_every_structure_letter_round_trips():
    assert LETTERS[PIPE] == "P" and LETTERS[SCRATCHER] == "S" and LETTERS[HAMMOCK] == "H"
    assert LETTERS[CATWALK] == "C" and LETTERS[BOX] == "B" and LETTERS[TOY] == "T"
    assert LETTERS[SHELF] == "L" and LETTERS[NEST] == "N"
