"""Scoring a grid (docs/rules/cat_tree.md, "Points").

[S] Points per structure: pipe 5 + 3 per attached side; scratcher 5 per group (side by
side in a row is one group; a gap of one cell or stacking makes separate groups); hammock
and catwalk 8; box, shelf, nest 5; toy 5 per group (toys at Manhattan distance below 3
are grouped). A card at height 5 or more scores double. A part at distance 3 or more from
the ground-connected structure scores nothing.

[D] readings: the ground-connected structure is every piece orthogonally connected to a
piece in the bottom row; a *part* is an orthogonally connected group of the other pieces,
and it scores when any of its cells is closer than ``detach_distance`` to that
structure; with no piece on the floor nothing scores. Scratcher and toy groups are formed
among the pieces that score; toy grouping is transitive (a chain of close toys is one
group) and a group scores double when any of its toys is at altitude.

The rules are compiled once, in ``core.pyx``, where the engine scores its placements:
``counted_cells``, ``points``, ``gain``, ``toy_points``... are the core's functions, on
Python int cell sets (see ``placement``).
"""

from __future__ import annotations

from catzoo.games.cat_tree.core import (
    counted_cells,
    counted_of_parts,
    gain,
    points,
    points_by_type,
    score,
    score_counted,
    toy_points,
)
from catzoo.games.cat_tree.options import TYPE_NAMES
from catzoo.games.cat_tree.placement import Rules

# breakdown's order of the structures
_ORDER = ("hammock", "catwalk", "box", "shelf", "nest", "pipe", "scratcher", "toy")


def breakdown(boards, rules: Rules) -> dict[str, int]:
    """Points by structure (pipe, scratcher, ... nest) of a grid."""
    by_type = dict(zip(TYPE_NAMES, points_by_type(boards, counted_cells(boards, rules), rules)))
    return {name: by_type[name] for name in _ORDER}


__all__ = [
    "breakdown",
    "counted_cells",
    "counted_of_parts",
    "gain",
    "points",
    "score",
    "score_counted",
    "toy_points",
]
