"""The grid as bit sets and the placement rules (docs/rules/cat_tree.md, "Placing").

A set of cells is an int, bit ``row * width + column`` with row 0 the bottom row (lying on
the floor) and column 0 the left edge. The grid is one such set per structure type
(``boards[type]``); a cell holds at most one card.

Placement rules, from the seed's restriction column [S], with the project's reading [D]:

* a *flat surface* under a cell is the floor (the cell is in the bottom row) or a piece
  that can be built on, directly below: scratcher, box, shelf, nest;
* a cell is *attached by both sides* when the cells directly left and right of it hold
  pieces that can be hung from: box, shelf, nest (not the grid's edge);
* pipe, scratcher, toy: on a flat surface; hammock, catwalk: attached by both sides;
  box, nest: on a flat surface or attached by both sides; shelf: any cell not in the
  bottom row (shelves never touch the ground).

The rules themselves are compiled, once, in ``core.pyx`` (the engine plays them there):
``Rules`` is the core's ``CoreConfig`` (the masks as ints, ``dilate``/``ball``/``flood``
in C) and ``legal_classes`` is the core's.
"""

from __future__ import annotations

from catzoo.games.cat_tree.core import (
    BOTH_SIDES,
    CARRIES,
    FLAT_OR_SIDES,
    HANGS,
    OFF_FLOOR,
    ON_FLAT,
    RULE_OF_TYPE,
    legal_classes,
)
from catzoo.games.cat_tree.core import CoreConfig as Rules
from catzoo.games.cat_tree.core import make_config as rules_for
from catzoo.games.cat_tree.options import NUM_TYPES, CatTreeOptions


def occupied(boards) -> int:
    out = 0
    for b in boards:
        out |= b
    return out


def legal_cells(boards, rules: Rules) -> list[int]:
    """For each of the 8 types, the set of cells where a card of it may be placed now."""
    classes = legal_classes(boards, rules)
    return [classes[RULE_OF_TYPE[t]] for t in range(NUM_TYPES)]


def can_place(boards, rules: Rules, kind: int, cell: int) -> bool:
    return bool((legal_classes(boards, rules)[RULE_OF_TYPE[kind]] >> cell) & 1)


def cells_of(bits: int):
    """The indices of the set bits, lowest first."""
    while bits:
        low = bits & -bits
        yield low.bit_length() - 1
        bits ^= low


def boards_from_grid(grid, rules: Rules) -> list[int]:
    """Bit sets from a row-major list of types (-1 empty), row 0 the bottom row."""
    boards = [0] * NUM_TYPES
    for i, kind in enumerate(grid):
        if kind >= 0:
            boards[kind] |= 1 << i
    return boards


def boards_from_picture(picture: str, options: CatTreeOptions | None = None):
    """Bit sets from a drawing, top row first, one letter per cell (``.`` empty), as in
    the rules doc. The drawing's bottom line is row 0. Returns (boards, options)."""
    from catzoo.games.cat_tree.options import LETTERS

    lines = [line.strip() for line in picture.strip("\n").splitlines() if line.strip()]
    if options is None:
        options = CatTreeOptions()
    rules = rules_for(options)
    if len(lines) > rules.height or any(len(line) > rules.width for line in lines):
        raise ValueError(f"picture larger than the {rules.width} x {rules.height} grid")
    boards = [0] * NUM_TYPES
    for depth, line in enumerate(lines):
        row = len(lines) - 1 - depth
        for col, ch in enumerate(line):
            if ch == ".":
                continue
            if ch not in LETTERS:
                raise ValueError(f"unknown piece letter {ch!r}; use one of {''.join(LETTERS)} or .")
            boards[LETTERS.index(ch)] |= 1 << rules.cell(row, col)
    return boards, options


__all__ = [
    "BOTH_SIDES",
    "CARRIES",
    "FLAT_OR_SIDES",
    "HANGS",
    "OFF_FLOOR",
    "ON_FLAT",
    "RULE_OF_TYPE",
    "Rules",
    "boards_from_grid",
    "boards_from_picture",
    "can_place",
    "cells_of",
    "legal_cells",
    "legal_classes",
    "occupied",
    "rules_for",
]
