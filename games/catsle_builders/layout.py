"""The observation layout of CATsle Builders (documented in the env module's docstring).

Cards are indexed ``suit * 12 + value - 1`` with suits Walls 0, Gables 1, Gates 2,
Bridges 3, Moats 4. Board columns are indexed 0-4: the limited columns in the order of
the ``column_limits`` option, then the 0 column (4-5 players).
"""

from __future__ import annotations

from functools import cache

from catzoo.games.catsle_builders.core import (
    BOARD_FEATURES,
    CARD_FEATURES,
    COLUMN_FEATURES,  # noqa: F401  (re-exported: the heuristic reads boards with it)
    NUM_CARDS,
    NUM_PHASES,
    NUM_ROUNDS,
    NUM_SUITS,
    RANK_FEATURES,
)
from catzoo.games.layout import LEADER, Block, Layout, flag, one_hot

# The block sizes are the compiled core's constants (it writes these features):
# COLUMN_FEATURES suit one-hot (5), cards / 5, room / 5, limit / 5; BOARD_FEATURES 5
# columns of them; CARD_FEATURES suit one-hot (5), value one-hot (12).

BLOCKS = [
    Block("hand", NUM_CARDS, "private", "your cards, one flag per card (suit * 12 + value - 1)"),
    Block("board", BOARD_FEATURES, "seat",
          "each seat's board, 5 columns x 8: suit one-hot (W, G, T, B, M), cards / 5, "
          "room left (limit - cards, negative when over) / 5, limit / 5; zeros for a "
          "column that does not exist (the 0 column at 3 players)"),
    Block("trick_card", CARD_FEATURES, "seat",
          "card of the seat still in the trick in progress: suit one-hot (5), value "
          "one-hot (12); cleared once a player takes it"),
    Block("trick_rank", RANK_FEATURES, "seat",
          "rating of the seat's card in the trick so far, one-hot (0 = strongest)"),
    Block("to_take", 1, "seat", "cards the seat still takes from the finished trick, / 2"),
    one_hot("led", NUM_SUITS, "the led suit of the trick in progress"),
    Block("seen", NUM_CARDS, "public", "cards played this round, the trick in progress included"),
    Block("score", 1, "seat", "total score, divided by 50 (clipped to [-4, 4])"),
    Block("last_perfect", 1, "seat",
          "perfect columns in the last scored round (the tie-break), / 4"),
    one_hot("round", NUM_ROUNDS, "round number"),
    Block("phase", NUM_PHASES, "public", "phase one-hot: play, take a card, choose a column"),
    Block("pending", CARD_FEATURES, "public",
          "the card waiting for a column (phase 'column'): suit one-hot, value one-hot"),
    LEADER,
    flag("round_start", "the round's first player"),
    Block("tricks_left", 1, "public", "tricks left in the round (this one included), / 16"),
]


@cache
def layout_for(num_players: int) -> Layout:
    return Layout(num_players, BLOCKS)
