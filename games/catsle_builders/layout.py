"""The observation layout of CATsle Builders (documented in the env module's docstring).

Cards are indexed ``suit * 12 + value - 1`` with suits Walls 0, Gables 1, Gates 2,
Bridges 3, Moats 4. Board columns are indexed 0-4: the limited columns in the order of
the ``column_limits`` option, then the 0 column (4-5 players).
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace

from catzoo.games.layout import Block, Layout

COLUMN_FEATURES = 8  # suit one-hot (5), cards / 5, room / 5, limit / 5
BOARD_FEATURES = 5 * COLUMN_FEATURES
CARD_FEATURES = 17  # suit one-hot (5), value one-hot (12)

BLOCKS = [
    Block("hand", 60, "private", "your cards, one flag per card (suit * 12 + value - 1)"),
    Block("board", BOARD_FEATURES, "seat",
          "each seat's board, 5 columns x 8: suit one-hot (W, G, T, B, M), cards / 5, "
          "room left (limit - cards, negative when over) / 5, limit / 5; zeros for a "
          "column that does not exist (the 0 column at 3 players)"),
    Block("trick_card", CARD_FEATURES, "seat",
          "card of the seat still in the trick in progress: suit one-hot (5), value "
          "one-hot (12); cleared once a player takes it"),
    Block("trick_rank", 5, "seat",
          "rating of the seat's card in the trick so far, one-hot (0 = strongest)"),
    Block("to_take", 1, "seat", "cards the seat still takes from the finished trick, / 2"),
    Block("led", 5, "public", "the led suit of the trick in progress, one-hot"),
    Block("seen", 60, "public", "cards played this round, the trick in progress included"),
    Block("score", 1, "seat", "total score, divided by 50 (clipped to [-4, 4])"),
    Block("last_perfect", 1, "seat",
          "perfect columns in the last scored round (the tie-break), / 4"),
    Block("round", 3, "public", "round number, one-hot"),
    Block("phase", 3, "public", "phase one-hot: play, take a card, choose a column"),
    Block("pending", CARD_FEATURES, "public",
          "the card waiting for a column (phase 'column'): suit one-hot, value one-hot"),
    Block("leader", 1, "seat", "1 for the leader of the trick in progress"),
    Block("round_start", 1, "seat", "1 for the round's first player"),
    Block("tricks_left", 1, "public", "tricks left in the round (this one included), / 16"),
]


@cache
def layout_for(num_players: int) -> Layout:
    return Layout(num_players, BLOCKS)


@cache
def offsets_for(num_players: int) -> SimpleNamespace:
    """Plain-int block starts and the spans cleared after each trick, for the hot path."""
    L = layout_for(num_players)
    o = SimpleNamespace(**{b.name: L.base[b.name] for b in BLOCKS})
    o.pending_span = L.span("pending")
    # trick_card, trick_rank, to_take and led are consecutive: one slice clears them.
    first, last = L.span("trick_card"), L.span("led")
    o.trick_span = slice(first.start, last.stop)
    return o
