"""The groups of Cat Tree pieces that the placement rules treat alike (docs/rules/cat_tree.md,
"Placing"), for the bounds, the oracle and the CP-SAT programme.

They are read from the rules the engine plays (``games/cat_tree/placement.py``: the
compiled core's tables), not written out again, so the research tools relax the game's
rules and cannot drift from them. The piece types themselves and their points are the
game's (``catzoo.games.cat_tree.options``), which these modules read as ``ct.BOX``.
"""

from __future__ import annotations

from catzoo.games.cat_tree.options import NUM_TYPES
from catzoo.games.cat_tree.placement import (
    BOTH_SIDES,
    CARRIES,
    FLAT_OR_SIDES,
    HANGS,
    ON_FLAT,
    RULE_OF_TYPE,
)


def _placed_by(rule: int) -> tuple[int, ...]:
    return tuple(kind for kind in range(NUM_TYPES) if RULE_OF_TYPE[kind] == rule)


CARRIERS: tuple[int, ...] = CARRIES  # a piece may stand on one: scratcher, box, shelf, nest
HANGERS: tuple[int, ...] = HANGS  # a piece may hang between two: box, shelf, nest
STAND_ONLY = _placed_by(ON_FLAT)  # on the floor or a carrier only: pipe, scratcher, toy
HANGING = _placed_by(BOTH_SIDES)  # hang only: hammock, catwalk
STAND_OR_HANG = _placed_by(FLAT_OR_SIDES)  # stand on a carrier or hang: box, nest
