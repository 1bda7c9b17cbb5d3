"""Round scoring and the research board as bit sets.

A set of research-board spaces is a 36-bit int, bit ``colour * 9 + (number - 1)`` with
colours blue 0, yellow 1, green 2, red 3. The bonus looks for connected groups on the
board as printed, whose row order is an option, so sets are re-laid row by row first.
"""

from __future__ import annotations

from functools import cache

from catzoo.games.cat_in_the_box.options import COLOURS, TWO_PLAYER_BONUS_MAX_TRICKS

NUMBERS = 9
ROW = (1 << NUMBERS) - 1
NOT_FIRST_COLUMN = sum((ROW & ~1) << (r * NUMBERS) for r in range(4))
NOT_LAST_COLUMN = sum((ROW >> 1) << (r * NUMBERS) for r in range(4))
BOARD = (1 << 36) - 1
IDENTITY = (0, 1, 2, 3)


@cache
def row_positions(row_order: tuple[str, ...]) -> tuple[int, ...]:
    """For each colour (blue, yellow, green, red), its row from the top of the board."""
    return tuple(row_order.index(name) for name in COLOURS)


def as_printed(bits: int, row_order: tuple[str, ...]) -> int:
    """Re-lay a colour-major set so that bit ``row * 9 + number - 1`` follows ``row_order``."""
    rows = row_positions(tuple(row_order))
    if rows == IDENTITY:  # the default order: the board as printed is colour-major
        return bits
    out = 0
    for colour, row in enumerate(rows):
        out |= ((bits >> (colour * NUMBERS)) & ROW) << (row * NUMBERS)
    return out


def largest_group(bits: int, row_order: tuple[str, ...]) -> int:
    """[R] Size of the largest orthogonally connected group among the spaces in ``bits``."""
    left = as_printed(bits, row_order)
    # Tokens with no neighbour are groups of one: set apart at once, they would each cost
    # a flood fill, and scattered tokens are the common case.
    linked = left & (
        ((left << 1) & NOT_FIRST_COLUMN)
        | ((left >> 1) & NOT_LAST_COLUMN)
        | (left << NUMBERS)
        | (left >> NUMBERS)
    )
    best = 1 if left else 0
    left = linked
    while left:
        group = left & -left
        while True:
            grown = (
                group
                | ((group << 1) & NOT_FIRST_COLUMN)
                | ((group >> 1) & NOT_LAST_COLUMN)
                | (group << NUMBERS)
                | (group >> NUMBERS)
            ) & left
            if grown == group:
                break
            group = grown
        best = max(best, group.bit_count())
        left &= ~group
    return best


def round_scores(tokens, tricks, predictions, paradox_player, row_order) -> list[int]:
    """[R] +1 per trick; the bonus (largest connected group of own tokens) for an exact
    prediction, or with 2 players for 4 tricks or fewer; the paradox player instead loses
    1 per trick and gets no bonus. ``tokens[p]`` is player p's set of spaces."""
    n = len(tricks)
    out = []
    for p in range(n):
        if p == paradox_player:
            out.append(-tricks[p])
            continue
        earns = tricks[p] <= TWO_PLAYER_BONUS_MAX_TRICKS if n == 2 else tricks[p] == predictions[p]
        out.append(tricks[p] + (largest_group(tokens[p], row_order) if earns else 0))
    return out
