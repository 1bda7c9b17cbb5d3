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
"""

from __future__ import annotations

from functools import lru_cache

from catzoo.games.cat_tree.options import (
    BOX,
    CATWALK,
    HAMMOCK,
    NEST,
    NUM_TYPES,
    PIPE,
    SCRATCHER,
    SHELF,
    TOY,
    CatTreeOptions,
)

# [S] "You can build on top": scratcher, box, shelf, nest.
CARRIES = (SCRATCHER, BOX, SHELF, NEST)
# [S] "it can be used to hang on the sides": box, shelf, nest.
HANGS = (BOX, SHELF, NEST)
# Which legality class each type uses: 0 flat, 1 both sides, 2 flat or both, 3 off floor.
ON_FLAT, BOTH_SIDES, FLAT_OR_SIDES, OFF_FLOOR = range(4)
RULE_OF_TYPE = (ON_FLAT, ON_FLAT, BOTH_SIDES, BOTH_SIDES, FLAT_OR_SIDES, ON_FLAT, OFF_FLOOR,
                FLAT_OR_SIDES)


class Rules:
    """Masks and numbers derived once from the options (shared by every state)."""

    def __init__(self, options: CatTreeOptions):
        self.options = options
        w, h = options.width, options.height
        self.width, self.height = w, h
        self.num_cells = n = w * h
        self.full = (1 << n) - 1
        self.row0 = (1 << w) - 1
        row = (1 << w) - 1
        self.not_col0 = sum((row & ~1) << (r * w) for r in range(h))
        self.not_last = sum((row >> 1) << (r * w) for r in range(h))
        self.altitude_row = options.altitude_row
        self.alt = self.full & ~((1 << (min(self.altitude_row, h) * w)) - 1)
        self.detach_steps = options.detach_distance - 1
        self.toy_reach = options.toy_distance - 1
        self.pipe_any = options.pipe_sides == "any"

    def dilate(self, cells: int) -> int:
        """The cells at Manhattan distance 1 or less of ``cells``."""
        w = self.width
        return (cells | (cells << w) | (cells >> w) | ((cells << 1) & self.not_col0)
                | ((cells >> 1) & self.not_last)) & self.full

    def ball(self, cells: int, radius: int) -> int:
        """The cells at Manhattan distance ``radius`` or less of ``cells``."""
        w, nc0, nl = self.width, self.not_col0, self.not_last
        for _ in range(radius):
            cells = cells | (cells << w) | (cells >> w) | ((cells << 1) & nc0) | ((cells >> 1) & nl)
        return cells & self.full

    def flood(self, seed: int, within: int) -> int:
        """The cells of ``within`` orthogonally connected to ``seed`` (inside ``within``)."""
        w, nc0, nl = self.width, self.not_col0, self.not_last
        grown = seed & within
        while True:
            nxt = (grown | (grown << w) | (grown >> w) | ((grown << 1) & nc0)
                   | ((grown >> 1) & nl)) & within
            if nxt == grown:
                return grown
            grown = nxt

    def cell(self, row: int, column: int) -> int:
        return row * self.width + column

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.width)


@lru_cache(maxsize=64)
def rules_for(options: CatTreeOptions) -> Rules:
    return Rules(options)


def occupied(boards) -> int:
    out = 0
    for b in boards:
        out |= b
    return out


def legal_classes(boards, rules: Rules) -> tuple[int, int, int, int]:
    """The cells legal for each legality class (on flat, both sides, either, off floor)."""
    occ = occupied(boards)
    empty = rules.full & ~occ
    carriers = boards[SCRATCHER] | boards[BOX] | boards[SHELF] | boards[NEST]
    hangers = boards[BOX] | boards[SHELF] | boards[NEST]
    flat = (rules.row0 | (carriers << rules.width)) & empty
    sides = ((hangers << 1) & rules.not_col0) & ((hangers >> 1) & rules.not_last) & empty
    return (flat, sides, flat | sides, empty & ~rules.row0)


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
    "BOX",
    "CARRIES",
    "CATWALK",
    "HAMMOCK",
    "HANGS",
    "NEST",
    "PIPE",
    "SCRATCHER",
    "SHELF",
    "TOY",
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
