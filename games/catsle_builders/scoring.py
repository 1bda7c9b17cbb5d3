"""Round scoring of a CATsle Builders board, and the trick rating.

Pure functions of plain values, so the tests, the heuristic and the views can call them.
The rules themselves are the compiled core's (``core.pyx``: ``column_score``,
``board_score``, ``card_key``), the ones the game is played with.
"""

from __future__ import annotations

from catzoo.games.catsle_builders.core import board_score, card_key, column_score

__all__ = ["board_score", "card_key", "column_score", "rating"]

# column_score(cards, limit): [S] within the limit a column scores its card count; above
#   it, minus the number of sideways cards (those beyond the limit).
# board_score(counts, limits, bonus) -> (round score, perfect columns): [S] the perfect
#   bonus is indexed by the number of columns exactly at their limit, the 0 column never
#   counting; a negative total scores 0.
# card_key(card, led, position): the strength of a card in a trick, larger is stronger.


def rating(cards, led: int) -> list[int]:
    """Positions in ``cards`` (in play order) from the strongest to the weakest.

    [S] The led suit beats the other suits, a higher value beats a lower one, and among
    equal values of non-led suits the card played later is stronger (``card_key``).
    """
    keys = [card_key(c, led, i) for i, c in enumerate(cards)]
    return sorted(range(len(cards)), key=keys.__getitem__, reverse=True)
