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
"""

from __future__ import annotations

from catzoo.games.cat_tree.options import (
    BASE_POINTS,
    BOX,
    CATWALK,
    HAMMOCK,
    NEST,
    PIPE,
    PIPE_SIDE_POINTS,
    SCRATCHER,
    SHELF,
    TOY,
)
from catzoo.games.cat_tree.placement import Rules, occupied


def counted_cells(boards, rules: Rules) -> int:
    """The cells whose pieces are part of the tree (score)."""
    occ = occupied(boards)
    ground = rules.flood(occ & rules.row0, occ)
    if not ground:
        return 0
    reach = rules.ball(ground, rules.detach_steps)
    floating = occ & ~ground
    return ground | rules.flood(floating & reach, floating)


def score(boards, rules: Rules) -> int:
    """The shared score of a grid."""
    return score_counted(boards, rules)[0]


def score_counted(boards, rules: Rules) -> tuple[int, int]:
    """(score, counted cells) of a grid."""
    counted = counted_cells(boards, rules)
    return points(boards, counted, rules), counted


def counted_of_parts(parts, rules: Rules) -> int:
    """The counted cells given the grid's orthogonally connected parts (bit sets)."""
    ground = 0
    for part in parts:
        if part & rules.row0:
            ground |= part
    if not ground:
        return 0
    reach = rules.ball(ground, rules.detach_steps)
    counted = ground
    for part in parts:
        if part & reach:
            counted |= part
    return counted


def points(boards, counted: int, rules: Rules) -> int:
    """The points of the pieces in ``counted`` (``breakdown`` summed, for any set of
    cells; the engine's and the oracle's hot path)."""
    if not counted:
        return 0
    alt = rules.alt
    total = 0
    for kind in (HAMMOCK, CATWALK, BOX, SHELF, NEST):
        mine = boards[kind] & counted
        if mine:
            total += BASE_POINTS[kind] * (mine.bit_count() + (mine & alt).bit_count())
    pipes = boards[PIPE] & counted
    if pipes:
        holders = occupied(boards) if rules.pipe_any else boards[BOX] | boards[SHELF] | boards[NEST]
        left = pipes & (holders << 1) & rules.not_col0
        right = pipes & (holders >> 1) & rules.not_last
        total += (BASE_POINTS[PIPE] * (pipes.bit_count() + (pipes & alt).bit_count())
                  + PIPE_SIDE_POINTS * (left.bit_count() + (left & alt).bit_count()
                                        + right.bit_count() + (right & alt).bit_count()))
    scratchers = boards[SCRATCHER] & counted
    if scratchers:
        starts = scratchers & ~((scratchers << 1) & rules.not_col0)
        total += BASE_POINTS[SCRATCHER] * (starts.bit_count() + (starts & alt).bit_count())
    toys = boards[TOY] & counted
    if toys:
        total += toy_points(toys, rules)
    return total


def gain(boards, kind: int, bit: int, counted: int, holders: int, toys: int,
         rules: Rules) -> tuple[int, int]:
    """(points added, points of the counted toys after) when a ``kind`` piece at ``bit``
    joins the counted cells alone: ``boards`` and ``counted`` already hold it, ``toys``
    are the counted toys' points before, ``holders`` what attaches a pipe's side now
    (every piece with ``pipe_sides="any"``, else the boxes, shelves and nests). The
    same as ``points`` after minus before: the piece's own points, the sides it gives
    the counted pipes beside it, the scratcher group it starts or extends, the toy
    groups it changes."""
    m = 2 if bit & rules.alt else 1  # the altitude bonus of the piece's row
    nc0, nl = rules.not_col0, rules.not_last
    if kind == TOY:
        after = toy_points(boards[TOY] & counted, rules)
        points_ = after - toys
        toys = after
    elif kind == SCRATCHER:
        mine = boards[SCRATCHER] & counted
        # a new group unless a scratcher stands on its left; the group on its right
        # (which started there) now starts with it
        points_ = 0 if (mine << 1) & bit & nc0 else BASE_POINTS[SCRATCHER] * m
        if (bit << 1) & mine & nc0:
            points_ -= BASE_POINTS[SCRATCHER] * m
    elif kind == PIPE:
        sides = (1 if (holders << 1) & bit & nc0 else 0) + (1 if (holders >> 1) & bit & nl else 0)
        points_ = (BASE_POINTS[PIPE] + PIPE_SIDE_POINTS * sides) * m
    else:
        points_ = BASE_POINTS[kind] * m
    if bit & holders:  # a side for the counted pipes beside it
        pipes = boards[PIPE] & counted
        if pipes:
            if (bit << 1) & pipes & nc0:
                points_ += PIPE_SIDE_POINTS * m
            if (bit >> 1) & pipes & nl:
                points_ += PIPE_SIDE_POINTS * m
    return points_, toys


def breakdown(boards, rules: Rules) -> dict[str, int]:
    """Points by structure (pipe, scratcher, ... nest) of a grid."""
    counted = counted_cells(boards, rules)
    alt = rules.alt
    out = {}
    for kind, name in ((HAMMOCK, "hammock"), (CATWALK, "catwalk"), (BOX, "box"),
                       (SHELF, "shelf"), (NEST, "nest")):
        mine = boards[kind] & counted
        out[name] = BASE_POINTS[kind] * (mine.bit_count() + (mine & alt).bit_count())

    pipes = boards[PIPE] & counted
    if rules.pipe_any:
        holders = occupied(boards)
    else:
        holders = boards[BOX] | boards[SHELF] | boards[NEST]
    left = pipes & (holders << 1) & rules.not_col0
    right = pipes & (holders >> 1) & rules.not_last
    out["pipe"] = (BASE_POINTS[PIPE] * (pipes.bit_count() + (pipes & alt).bit_count())
                   + PIPE_SIDE_POINTS * (left.bit_count() + (left & alt).bit_count()
                                         + right.bit_count() + (right & alt).bit_count()))

    scratchers = boards[SCRATCHER] & counted
    starts = scratchers & ~((scratchers << 1) & rules.not_col0)  # leftmost of each run
    out["scratcher"] = BASE_POINTS[SCRATCHER] * (starts.bit_count() + (starts & alt).bit_count())

    out["toy"] = toy_points(boards[TOY] & counted, rules)
    return out


def toy_points(toys: int, rules: Rules) -> int:
    """[S] 5 per group of toys, [D] groups closed under "closer than toy_distance", a
    group doubled when any of its toys is at altitude."""
    total = 0
    while toys:
        group = toys & -toys
        while True:
            grown = rules.ball(group, rules.toy_reach) & toys
            if grown == group:
                break
            group = grown
        total += 2 * BASE_POINTS[TOY] if group & rules.alt else BASE_POINTS[TOY]
        toys &= ~group
    return total
