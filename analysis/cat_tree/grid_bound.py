"""A second upper bound on a Cat Tree deal: the best final grid, the order of the cards
relaxed away and their numbers priced (the reference deals' bound).

``bound.upper_bound`` follows the cards in their order but keeps only counts, so it cannot
see that two pipes want the same hangers or that a gap's hangers need room in their row.
This bound keeps the opposite: the grid itself, cell by cell, with every rule that holds
between neighbouring cells, and only which cards are kept is relaxed.

**The grid programme.** Every game ends on a grid whose *counted* cells (the pieces that
score; docs/rules/cat_tree.md) obey, in the final grid:

* a pipe, scratcher or toy stands on the floor or on a carrier (scratcher, box, shelf,
  nest) directly below: it was placed on it, and pieces are never moved;
* a shelf is not in the bottom row;
* a hammock or catwalk has a hanger (box, shelf, nest) on both sides;
* a box or nest either stands (a carrier below: *standing*) or has none below and was
  hung: then both of its neighbours are standing hangers or shelves, placed before it.
  A hung piece's neighbour is never a hammock, catwalk, pipe or other hung piece, which
  are no hangers or would have needed it first;
* a piece and what carries it or hangs it are neighbours, so they count or not together:
  the counted cells alone obey these rules;
* if a card counts at altitude, the bottom row holds a counted card and at most
  ``detach_distance - 2`` of the rows between it and altitude hold none (the
  ground-connected structure reaches up to a row, the part at altitude down to one at
  most that many rows above it; ``bound.support_needed`` counts the same);
* at most ``2 * turns`` cards count, no more of a type than the players kept.

A dynamic programme over the cells, row by row from the floor and left to right in each
row, finds the highest score of such a grid exactly: its state is the carriers under the
next ``width`` cells (the row below on the right, the row being filled on the left), what
the previous cell holds (a hanger, a pipe, a scratcher, a hammock or hung piece waiting
for its right-hand hanger), the cards counted so far, and below altitude whether the row
holds a card and how many rows were empty. Scores are those of the rules: pipe sides,
scratcher groups, the altitude bonus; a toy is counted as its own group (toy groups are
the one rule left out, so the bound can only be looser).

**Pricing the cards.** What ties the grid to the deal is which cards count, and at which
level (below altitude or at it). For prices per type and level (any sign), take

* the grid programme with each counted card charged its price, and
* ``bound.PricedCounts``: the counting programme of ``bound`` with every card's points
  replaced by its price, the most the counted cards of one of its paths are worth.

Every game is a path of the counting programme that counts the same cards at the same
levels as its final grid, so for any prices the sum of the two is at least every game's
score: the grid's charge and the path's credit cancel. With ``order=False`` the credit
is the kept cards' alone (each hand's dearer card at either level, or nothing): faster,
looser. Any prices give a bound. Kelley's cutting planes find good ones: each grid and
each path found is a linear cut on the prices, and a linear programme (GLOP) picks the
next prices. The loop stops once the floor of the least sum found equals the floor of
that programme's value (which no prices go below): the floor of the Lagrangian dual.
Prices are multiples of 1/64, so every sum is an exact float32 and the floor is exact.

``free_bound`` credits any ``2 * turns`` cards of the deck instead (four of each type):
a bound on every game under the options, whatever the deal. Under the default options
it is 181, a score reference deal 27 reaches (``bound.MAXIMA``).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from catzoo.analysis.cat_tree import pieces
from catzoo.analysis.cat_tree.bound import PricedCounts, upper_bound
from catzoo.games.cat_tree import options as ct
from catzoo.games.cat_tree.options import CatTreeOptions
from catzoo.games.cat_tree.state import deal_of

# a cell's role in the final grid; a standing and a hung box or nest differ in what they
# need and what may stand beside them
EMPTY, TOY_, SCRATCHER_, PIPE_, STANDING, SHELF_, HUNG, HANGING = range(8)
ROLE_TYPES = ((), (ct.TOY,), (ct.SCRATCHER,), (ct.PIPE,), pieces.STAND_OR_HANG, (ct.SHELF,),
              pieces.STAND_OR_HANG, pieces.HANGING)
# the types of a role score alike
ROLE_POINTS = tuple(ct.BASE_POINTS[types[0]] if types else 0 for types in ROLE_TYPES)
ON_CARRIER = (TOY_, SCRATCHER_, PIPE_, STANDING)
CARRIES = (SCRATCHER_, STANDING, SHELF_, HUNG)
# what the previous cell of the row is to the next one: nothing (the edge, an empty cell),
# another piece, a scratcher (a group goes on), a pipe (a hanger beside it is its side), a
# standing hanger (a side for a pipe, a hammock or a hung piece), a piece waiting for a
# hanger on its right (a hammock, a catwalk or a hung piece)
NOTHING, PIECE, SCRATCH, PIPED, HANGER, WAITS = range(6)
CLASS_OF = (NOTHING, PIECE, SCRATCH, PIPED, HANGER, HANGER, WAITS, WAITS)
NEG = np.float32(-1.0e9)
MAX_CUTS = 80  # Kelley's iterations: the floor is known after 10 to 60 (if not, the least
# sum found is returned: still a bound)
PRICE_CAP = 100.0  # no card is worth more: prices above it change nothing
PRICE_STEPS = 64  # prices are multiples of 1/64: every sum below is an exact float32
SLACK = 1e-6


class _Programme:
    """The grid programme of one set of options: its transitions, cell by cell."""

    def __init__(self, options: CatTreeOptions):
        self.w, self.h = options.width, options.height
        self.a = min(options.altitude_row, self.h)  # rows from a up score double
        self.any_side = options.pipe_sides == "any"
        self.cards = 2 * options.turns
        # below altitude: rows that may be empty between the floor and altitude (fact 6
        # of bound.py), and one more value: too many, no card may count at altitude
        self.low = 1 <= self.a < self.h
        empties = min(max(options.detach_distance - 2, 0), max(self.a - 1, 0))
        self.broken = empties + 1
        self.gains = [self._gains(r, c) for r in range(self.h) for c in range(self.w)]

    def _gains(self, r: int, c: int):
        """For each role cell (r, c) can take: its points after each class of the
        previous cell (``NEG`` where that neighbour forbids it)."""
        m = 2 if r >= self.a else 1
        edge = c == 0 or c == self.w - 1
        out = []
        for role in range(8):
            if role == SHELF_ and r == 0:
                continue
            if role in (HUNG, HANGING) and (edge or (role == HUNG and r == 0)):
                continue
            gains = np.full(6, NEG, dtype=np.float32)
            for prev in range(6):
                if role in (HUNG, HANGING):
                    if prev != HANGER:  # both sides, the left one now
                        continue
                elif prev == WAITS and role not in (STANDING, SHELF_):
                    continue
                points = ROLE_POINTS[role] * m
                if role == SCRATCHER_ and prev == SCRATCH:  # the group goes on
                    points = 0
                # pipe sides: the pipe's left neighbour, or the piece right of a pipe
                if self.any_side:
                    if role == PIPE_ and prev in (PIECE, SCRATCH, PIPED, HANGER):
                        points += ct.PIPE_SIDE_POINTS * m
                    if prev == PIPED and role != EMPTY:
                        points += ct.PIPE_SIDE_POINTS * m
                else:
                    if role == PIPE_ and prev == HANGER:
                        points += ct.PIPE_SIDE_POINTS * m
                    if prev == PIPED and role in (STANDING, SHELF_):
                        points += ct.PIPE_SIDE_POINTS * m
                gains[prev] = points
            out.append((role, gains))
        return out

    def _shape(self, tracked: bool) -> tuple[int, ...]:
        # cards counted, a carrier under each column, the previous cell's class, and
        # below altitude: the row holds a card, the empty rows so far
        extra = (2, self.broken + 1) if tracked else ()
        return (self.cards + 1,) + (2,) * self.w + (6,) + extra

    def best(self, prices) -> tuple[float, np.ndarray]:
        """The most of (score - the prices of the counted cards) over every grid the rules
        allow, and how many cards of each type that grid counts."""
        w = self.w
        prices = np.broadcast_to(np.asarray(prices, dtype=float).reshape(ct.NUM_TYPES, -1),
                                 (ct.NUM_TYPES, 2))
        # per level (below altitude, at altitude): each role's cheapest type, its price
        cheapest = [[min(types, key=lambda t: prices[t, level]) if types else None
                     for types in ROLE_TYPES] for level in (0, 1)]
        charges = [[np.float32(prices[t, level] if t is not None else 0.0)
                    for t in cheapest[level]]
                   for level in (0, 1)]
        values = np.full(self._shape(self.low), NEG, dtype=np.float32)
        values[(0,) * values.ndim] = 0.0
        steps = []  # per step, how each state was reached, to replay the best grid
        final, final_at = NEG, None  # the best grid with nothing at altitude (support lost)
        for r in range(self.h):
            tracked = self.low and r < self.a
            for c in range(w):
                values, decision, below = self._cell(values, r, c, tracked,
                                                     charges[int(r >= self.a)])
                steps.append(("cell", (r, c), decision, below))
            values, decision, broken = self._row_end(values, r, tracked)
            steps.append(("row", tracked, decision, None))
            if broken is not None and broken[0] > final:
                final, final_at = broken[0], (len(steps) - 1, broken[1])
        end = np.unravel_index(int(np.argmax(values)), values.shape)
        if values[end] >= final:
            value, at, start = float(values[end]), end, len(steps)
        else:
            value, (start, at) = final, final_at  # the row end that lost it is not replayed
        return value, self._counts(steps[:start], at, cheapest)

    def _cell(self, values, r: int, c: int, tracked: bool, charge):
        """One cell filled in every way: the states after, how each was reached (role,
        previous class and row filled, coded) and which carrier bit each state before
        had under the cell when either would do."""
        w, cards = self.w, self.cards
        # the carrier under the cell is read and replaced: move its axis last
        moved = np.moveaxis(values, 1 + c, -1)
        either, below = moved.max(axis=-1), moved.argmax(axis=-1).astype(np.int8)
        on_carrier = moved[..., 1] if r > 0 else either
        after = np.full(moved.shape, NEG, dtype=np.float32)  # the new carrier bit: last axis
        decision = np.full(moved.shape, -1, dtype=np.int16)
        for role, gains in self.gains[r * w + c]:
            src = on_carrier if role in ON_CARRIER else either
            cand = src + self._on_class(gains - charge[role], src.ndim)
            if tracked and role != EMPTY:  # the row now holds a card: either before
                merged = cand.shape[:w] + (12,) + cand.shape[w + 2:]
                cand = cand.reshape(merged)  # (previous class, row filled) as one axis
            code = role * 16 + cand.argmax(axis=w, keepdims=True) * (
                1 if tracked and role != EMPTY else 2)
            cand = cand.max(axis=w, keepdims=True)
            if tracked and role != EMPTY:
                cand, code = cand[..., None, :], code[..., None, :]
            dst = [slice(None)] * after.ndim
            dst[w] = slice(CLASS_OF[role], CLASS_OF[role] + 1)
            if tracked and role != EMPTY:
                dst[w + 1] = slice(1, 2)
            dst[-1] = int(role in CARRIES)
            if role != EMPTY:  # one more card counted
                dst[0] = slice(1, cards + 1)
                cand, code = cand[:cards], code[:cards]
            dst = tuple(dst)
            better = cand > after[dst]
            after[dst] = np.where(better, cand, after[dst])
            decision[dst] = np.where(better, code, decision[dst])
        back = np.moveaxis(after, -1, 1 + c)
        return back, np.moveaxis(decision, -1, 1 + c), below

    def _on_class(self, gains, ndim: int) -> np.ndarray:
        """``gains`` (one per class of the previous cell) shaped to add along the class
        axis of the states with the carrier axis taken out (axis ``width``)."""
        shape = [1] * ndim
        shape[self.w] = len(gains)
        return gains.reshape(shape)

    def _row_end(self, values, r: int, tracked: bool):
        """The states at the start of the next row (the previous cell: the edge), the
        decision (which state each came from, flat), and below altitude the best state
        whose support is lost on leaving the last row under altitude (value, index)."""
        shape = values.shape
        ok = [NOTHING, PIECE, SCRATCH, PIPED, HANGER]  # nothing waits for a right side
        if not tracked:
            out = np.full(shape, NEG, dtype=np.float32)
            decision = np.full(shape, -1, dtype=np.int16)
            for cl in ok:
                better = values[..., cl] > out[..., NOTHING]
                out[..., NOTHING] = np.where(better, values[..., cl], out[..., NOTHING])
                decision[..., NOTHING] = np.where(better, cl, decision[..., NOTHING])
            return out, decision, None
        last = r == self.a - 1
        out = np.full(self._shape(not last), NEG, dtype=np.float32)
        decision = np.full(out.shape, -1, dtype=np.int16)
        broken = (NEG, None)
        for cl in ok:
            for filled in (0, 1):
                for s in range(self.broken + 1):
                    if filled:
                        s2 = s
                    else:
                        s2 = self.broken if r == 0 else min(s + 1, self.broken)
                    value = values[..., cl, filled, s]
                    code = (cl * 2 + filled) * (self.broken + 1) + s
                    if last and s2 == self.broken:
                        i = int(np.argmax(value))
                        if value.flat[i] > broken[0]:
                            at = np.unravel_index(i, value.shape) + (cl, filled, s)
                            broken = (float(value.flat[i]), at)
                        continue
                    dst = (Ellipsis, NOTHING) if last else (Ellipsis, NOTHING, 0, s2)
                    better = value > out[dst]
                    out[dst] = np.where(better, value, out[dst])
                    decision[dst] = np.where(better, code, decision[dst])
        return out, decision, broken if broken[1] is not None else None

    def _counts(self, steps, at, cheapest) -> np.ndarray:
        """The cards of each type of the grid ending in state ``at``, the steps replayed
        backwards."""
        w = self.w
        counts = np.zeros((ct.NUM_TYPES, 2))
        at = list(at)
        for kind, where, decision, extra in reversed(steps):
            code = int(decision[tuple(at)])
            if kind == "row":
                if where:  # tracked: (class, filled, support) it came from
                    s = code % (self.broken + 1)
                    cl, filled = divmod(code // (self.broken + 1), 2)
                    at = at[:1 + w] + [cl, filled, s]
                else:
                    at[1 + w] = code
                continue
            (r, c), below = where, extra
            role, prev, filled = code // 16, (code % 16) // 2, code % 2
            if role != EMPTY:
                at[0] -= 1
                level = int(r >= self.a)
                counts[cheapest[level][role], level] += 1
                if len(at) > 2 + w:  # tracked
                    at[2 + w] = filled
            at[1 + w] = prev
            if role in ON_CARRIER and r > 0:
                at[1 + c] = 1
            else:
                at[1 + c] = int(below[tuple(at[:1 + c] + at[2 + c:])])
        return counts


@lru_cache(maxsize=8)
def _programme(options: CatTreeOptions) -> _Programme:
    return _Programme(options)


def grid_value(prices, options: CatTreeOptions | None = None) -> tuple[float, np.ndarray]:
    """The grid programme at ``prices`` (per card type, or per type and level): the most
    of score minus the counted cards' prices over every grid, and that grid's cards per
    type and level."""
    return _programme(options or CatTreeOptions()).best(prices)


def _glop():
    try:
        from ortools.linear_solver import pywraplp
    except ImportError as err:  # an optional extra: say which
        raise ImportError("the Cat Tree grid bound needs OR-Tools: pip install 'catzoo[oracle]'"
                          ) from err
    return pywraplp.Solver.CreateSolver("GLOP")


class _Kept:
    """The cheap counterpart of ``bound.PricedCounts``: the kept cards alone, each hand's
    card counted at either level or not at all, whichever is worth most."""

    def __init__(self, deck, options: CatTreeOptions):
        self.hands = [set(deal_of(deck, t, p)) for t in range(options.turns) for p in (0, 1)]

    def best(self, prices) -> tuple[float, np.ndarray]:
        counts = np.zeros((ct.NUM_TYPES, 2))
        value = 0.0
        for hand in self.hands:
            worth, card = max((prices[t, level], (t, level)) for t in hand for level in (0, 1))
            if worth > 0:
                value += worth
                counts[card] += 1
        return value, counts


class _AnyCards:
    """Any ``cards`` cards of the deck (``COPIES`` of each type), each counted at either
    level or not at all, whichever is worth most: no deal at all."""

    def __init__(self, cards: int):
        self.cards = cards

    def best(self, prices) -> tuple[float, np.ndarray]:
        worth = sorted(((max(prices[t]), t, int(prices[t, 1] > prices[t, 0]))
                        for t in range(ct.NUM_TYPES) for _ in range(ct.COPIES)), reverse=True)
        counts = np.zeros((ct.NUM_TYPES, 2))
        value = 0.0
        for price, t, level in worth[:self.cards]:
            if price > 0:
                value += price
                counts[t, level] += 1
        return value, counts


def grid_bound(deck, options: CatTreeOptions | None = None, order: bool = True) -> int:
    """An upper bound on the final score of any game played on ``deck``: the grid
    programme priced against the counting programme of ``bound`` (``order``) or, faster
    and looser, against the kept cards alone (module docstring)."""
    o = options or CatTreeOptions()
    kept = PricedCounts(deck, o) if order else _Kept(deck, o)
    return _dual(o, kept, levels=2 if order else 1)


def free_bound(options: CatTreeOptions | None = None) -> int:
    """An upper bound on the score of every game under ``options``, whatever the deal: the
    grid programme priced against any ``2 * turns`` cards of the deck."""
    o = options or CatTreeOptions()
    return _dual(o, _AnyCards(2 * o.turns), levels=1)


def _dual(options: CatTreeOptions, kept, levels: int) -> int:
    """The floor of the least (grid programme + ``kept``'s credit) Kelley's cutting planes
    find, prices per type and ``levels`` (1: the same at both levels)."""
    grid = _programme(options)
    prices = np.zeros((ct.NUM_TYPES, 2))
    grid_cuts, kept_cuts, best = [], [], math.inf
    for _ in range(MAX_CUTS):
        grid_value_, grid_counts = grid.best(prices)
        kept_value, kept_counts = kept.best(prices)
        best = min(best, grid_value_ + kept_value)
        grid_cuts.append((grid_value_ + float((prices * grid_counts).sum()), grid_counts))
        kept_cuts.append(kept_counts)
        prices, least = _next_prices(grid_cuts, kept_cuts, levels)
        if math.floor(best + SLACK) <= math.floor(least + SLACK):
            break  # no prices give a lower floor
    return max(math.floor(best + SLACK), 0)


def _next_prices(grid_cuts, kept_cuts, levels: int):
    """Kelley's step: the prices at which the grids and the paths found so far
    (``grid_cuts``: score and cards per type and level; ``kept_cuts``: cards) promise the
    least, on a grid of ``1 / PRICE_STEPS`` (sums of such prices are exact floats), and
    that least (no prices give a lower bound). With ``levels`` 1 a type costs the same at
    both levels (the kept cards alone do not tell them apart)."""
    lp = _glop()
    prices = [[lp.NumVar(-PRICE_CAP, PRICE_CAP, "") for _ in range(levels)] * (3 - levels)
              for _ in range(ct.NUM_TYPES)]
    grid = lp.NumVar(-lp.infinity(), lp.infinity(), "grid")
    kept = lp.NumVar(-lp.infinity(), lp.infinity(), "kept")

    def worth(counts):
        return sum(float(counts[t, level]) * prices[t][level]
                   for t in range(ct.NUM_TYPES) for level in (0, 1) if counts[t, level])

    for score, counts in grid_cuts:  # a grid's score less its cards' prices
        lp.Add(grid >= score - worth(counts))
    for counts in kept_cuts:  # a path's cards at these prices
        lp.Add(kept >= worth(counts))
    lp.Minimize(grid + kept)
    if lp.Solve() != lp.OPTIMAL:
        raise RuntimeError("the grid bound's linear programme did not solve")
    found = np.array([[v.solution_value() for v in row] for row in prices])
    return np.round(found * PRICE_STEPS) / PRICE_STEPS, lp.Objective().Value()


def best_bound(deck, options: CatTreeOptions | None = None) -> int:
    """The least of the project's two upper bounds: ``bound.upper_bound`` (the counting
    programme with points) and ``grid_bound`` (the grid programme priced against it).
    Neither is below the other on every deal; the reference deals keep this one."""
    return min(upper_bound(deck, options), grid_bound(deck, options))
