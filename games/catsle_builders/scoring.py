"""Round scoring of a CATsle Builders board, and the trick rating.

Both are pure functions of plain values, so the tests and the heuristic can call them.
"""

from __future__ import annotations

from catzoo.games.catsle_builders.options import VALUES


def column_score(cards: int, limit: int) -> int:
    """[S] Within the limit a column scores its card count; above it, minus the number
    of sideways cards (those beyond the limit)."""
    return cards if cards <= limit else limit - cards


def board_score(counts, limits, bonus) -> tuple[int, int]:
    """(round score, perfect columns) of a board whose columns hold ``counts`` cards.

    [S] The perfect bonus is indexed by the number of columns exactly at their limit,
    the 0 column never counting; a negative total scores 0.
    """
    total = perfect = 0
    for cards, limit in zip(counts, limits):
        total += column_score(cards, limit)
        if limit and cards == limit:
            perfect += 1
    total += bonus[perfect]
    return max(total, 0), perfect


def rating(cards, led: int) -> list[int]:
    """Positions in ``cards`` (in play order) from the strongest to the weakest.

    [S] The led suit beats the other suits, a higher value beats a lower one, and among
    equal values of non-led suits the card played later is stronger.
    """
    keys = []
    for i, c in enumerate(cards):
        suit, value = divmod(c, VALUES)
        keys.append(1000 + value * 10 if suit == led else value * 10 + i)
    return sorted(range(len(cards)), key=keys.__getitem__, reverse=True)
