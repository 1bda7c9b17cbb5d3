"""The observation layout of Cat Tree (documented in the env module's docstring).

Grid planes are row-major with row 0 the bottom row: cell ``row * width + column``.
"""

from __future__ import annotations

from functools import cache

from catzoo.games.cat_tree.core import SCORE_SCALE  # noqa: F401  (score / 100: obs, reward)
from catzoo.games.cat_tree.options import MAX_TURNS, NUM_TYPES
from catzoo.games.layout import Block, Layout, flag, one_hot


def blocks(cells: int) -> list[Block]:
    return [
        Block("grid", NUM_TYPES * cells, "public",
              "one plane per structure (pipe, scratcher, hammock, catwalk, box, toy, shelf, "
              "nest), 1 where a card of it stands"),
        Block("counted", cells, "public", "1 where the piece is part of the tree (scores)"),
        Block("hand", 2 * NUM_TYPES, "private",
              "your two cards of this turn, each one-hot over the 8 structures (lower type "
              "first)"),
        Block("picked", 2, "private", "which of your two cards you kept (one-hot)"),
        Block("kept", NUM_TYPES, "seat",
              "the revealed kept card, one-hot (zeros before the reveal and once placed)"),
        Block("kept_legal", cells, "seat",
              "the cells where that revealed card could be placed now"),
        Block("unseen", NUM_TYPES, "private",
              "cards of each structure you have not seen (deck, partner's hand and "
              "discards), divided by 4"),
        Block("deck", 1, "public", "cards left in the deck, divided by 32"),
        one_hot("turn", MAX_TURNS, "turn number"),
        one_hot("phase", ("keep", "order", "place"), "phase"),
        flag("leader", "this turn's leader (who decides the placing order)"),
        flag("first", "the player who places first this turn, once decided"),
        Block("score", 1, "public", "shared score so far, divided by 100"),
    ]


@cache
def layout_for(cells: int) -> Layout:
    return Layout(2, blocks(cells))
