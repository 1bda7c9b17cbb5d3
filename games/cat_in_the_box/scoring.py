"""Round scoring and the research board as bit sets.

A set of research-board spaces is a 36-bit int, bit ``colour * 9 + (number - 1)`` with
colours blue 0, yellow 1, green 2, red 3. The bonus looks for connected groups on the
board as printed, whose row order is an option. The rules themselves are in the compiled
core (``core.pyx``: ``largest_group``, ``score_round``), which scores every round; these
are their Python entry points.
"""

from __future__ import annotations

from functools import cache

from catzoo.games.cat_in_the_box.core import largest_group_of, round_scores_of
from catzoo.games.cat_in_the_box.options import COLOURS, TWO_PLAYER_BONUS_MAX_TRICKS


@cache
def row_positions(row_order: tuple[str, ...]) -> tuple[int, ...]:
    """For each colour (blue, yellow, green, red), its row from the top of the board."""
    return tuple(row_order.index(name) for name in COLOURS)


def largest_group(bits: int, row_order: tuple[str, ...]) -> int:
    """[R] Size of the largest orthogonally connected group among the spaces in ``bits``."""
    return largest_group_of(bits, row_positions(tuple(row_order)))


def round_scores(tokens, tricks, predictions, paradox_player, row_order) -> list[int]:
    """[R] +1 per trick; the bonus (largest connected group of own tokens) for an exact
    prediction, or with 2 players for 4 tricks or fewer; the paradox player instead loses
    1 per trick and gets no bonus. ``tokens[p]`` is player p's set of spaces."""
    return round_scores_of(tokens, tricks, predictions, paradox_player,
                           row_positions(tuple(row_order)), TWO_PLAYER_BONUS_MAX_TRICKS)
