"""An upper bound on the score of a Cat Tree deal, every card known (the oracle's bound).

A dynamic programme over the turns relaxes the grid away and keeps only counting facts
that every real game obeys, so no game on the deal can score more. It follows the 16
kept cards in the order they are placed; each card, once placed, either *counts* at
altitude (rows from ``altitude_row`` up, points doubled), counts *low* (below), or
scores nothing (dismissed, or detached from the tree). The facts (docs/rules/cat_tree.md
for the rules they follow from):

1. **Points.** A counted card scores at most its base points (doubled at altitude); a
   toy or scratcher at most as its own group; a pipe 5 plus 3 per attached side, or at
   altitude 10 plus 6 (fact 5).
2. **Tops.** A pipe, scratcher or toy at altitude, and a box or nest at altitude that is
   not hung (fact 3), stands on a carrier (scratcher, box, shelf, nest) directly below
   it, placed earlier, in a row from ``altitude_row - 1`` up; a carrier holds one piece.
   So such a placement needs a free *top*: the tops are the carriers counted at altitude
   or in the row just under it, minus the pieces already standing on them. A pipe uses
   one up; a scratcher, box or nest standing on one offers its own (net 0); a shelf
   (placed anywhere off the floor) adds one. A toy uses one up too, but the programme
   keeps it counted: a stack of pieces topped by a toy still offers pipes its sides
   (fact 5), and tracking toys apart cost twice the time for a fifth of a point. The
   carrier under a piece touches it, so it counts too.
3. **Gaps.** A hammock or catwalk (and a box or nest hung instead of standing) fills a
   *gap*: the cell between two hangers (box, shelf, nest) of its row, placed earlier;
   so does, in the end, a pipe with two sides. A gap's two hangers are never hung
   themselves: a hung piece hangs from the cells on both of its sides, and one of them
   is the gap, holding a hammock, catwalk or pipe (no hanger) or a box or nest hung
   there, which would have to be placed both before and after it. So a hung box or nest
   fills a gap and adds no hanger: only shelves and standing boxes and nests count as
   hangers here. A row with k hangers has at most k - 1 gaps, and with ``width`` cells
   at most ``width - k``, so at most k - ceil(k / kmax) with kmax = ceil(width / 2);
   over rows holding h hangers in all, at most h - ceil(h / kmax) (filling rows up to
   kmax hangers, one after the other, gives the most). At altitude the programme keeps
   that capacity minus the gaps filled, and the fill of the last row; a hanging piece
   needs one free. The two hangers of a gap lie in two columns, so in two of the
   *stacks* of fact 5 (a stack is one column): a hanging piece at altitude needs two
   stacks started before it. Below altitude it keeps hangers - hanging and hung pieces
   (rows ignored): a new one needs 2.
4. **The row under altitude.** A carrier counted there adds a top at altitude (fact 2).
   Unless it is a shelf or hung, it stands on a carrier placed earlier one row lower,
   which stands on another one row lower, and so on to the floor or to a shelf (or a
   hung box or nest): a *chain* of non-shelf carriers from the floor, or one low shelf,
   or one hung low box or nest, placed earlier, per such carrier.
5. **Pipe sides.** A pipe's attached side is a hanger beside it in its row
   (``pipe_sides="hangers"``); sides are counted at the end, as hangers may come after
   the pipe. At altitude a pipe with two sides fills a gap (fact 3), so there are at
   most as many as the free gaps; any other pipe has at most one side, and none has a
   side if no hanger counts at altitude. The pieces at altitude form *stacks* (a shelf,
   a hung box or nest, or a carrier under altitude, and what stands on it, one on
   another), as many as the tops of fact 2 ever counted; a pipe ends its stack, and
   its sides are cells of the stacks in the two columns beside it, which pass its row.
   The highest pipe with a side therefore has its sides in stacks not ended by a pipe
   with a side (the free tops and the pipes without one): one is needed, two for two
   sides, and two for the highest two-sided pipe among stacks not ended by a two-sided
   pipe. When there are only two of those, every two-sided pipe lies in the column
   between them (the leftmost and rightmost two-sided pipes have one of them beside
   it), one pipe every other row: at most ceil(rows at altitude / 2). Below altitude,
   with h hangers (fact 3's) and m hanging or hung pieces, the gaps hold these and the
   two-sided pipes, so these are at most h - m - 1; each hanger has two neighbours, of
   which a hanging piece takes two and a pipe's side one, so there are at most
   2 (h - m) sides.
6. **Support.** If a card counts at altitude, counted cards lie in at least
   ``support_needed`` rows below altitude: either its part is ground-connected, and it
   covers every row from the floor to altitude, or the ground-connected structure
   reaches a row at most ``detach_distance - 1`` below the lowest cell of the part, and
   the structure and the part together cover every row from the floor to altitude but
   that distance.
7. **Neighbouring pairs.** A row holding k counted pieces has at most k - 1 pairs of
   neighbours. A hanging piece takes the two pairs it hangs by, a pipe's attached side
   one, and no pair serves twice (two pieces hung from each other would each have
   been placed first). So below altitude, sides + 2 (hanging pieces) <= low cards - the
   low rows holding any, which are at least ``support_needed`` if a card counts at
   altitude (fact 6), else one. The programme keeps low cards - 2 (hanging pieces):
   with fact 6 it replaces a count of the low cards, and it caps the low pipes' sides.

Under the default options no game scores more than 181, whatever the deal (``MAXIMA``):
the bound is never above it.

The programme keeps, per state, the best points still to come; the state is (a card
counts at altitude, free tops at altitude, the gaps of fact 3 at altitude, pipes at
altitude, low hangers minus hanging and hung pieces, the chain under altitude, low
pipes, low cards minus twice the low hanging pieces, stacks at altitude up to two).
Counts from a cap up stand for "unlimited" (a state with more of a resource can do
everything one with less can), so the caps only loosen the bound.
It runs forwards over the turns to find the states the deal's cards can reach (a few
percent of the table), then backwards over those: the value of a state is the most a
game can still add from it, so the bound is the value of the empty start.
Each turn either partner's card may be placed first, and each partner keeps either card
of their hand.

What the programme ignores (so it only loosens the bound): where on the grid a piece
goes beyond these counts (the grid's height only limits the pipes of one column, fact
5), toy distances and scratcher rows, how the support column stacks, and which parts
touch which. On small games it is often exact
(``tests/analysis/test_cat_tree_oracle.py`` compares it with every game of small deals).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from catzoo.analysis.cat_tree.pieces import CARRIERS, HANGERS, HANGING, STAND_OR_HANG
from catzoo.games.cat_tree import options as ct
from catzoo.games.cat_tree.options import CatTreeOptions
from catzoo.games.cat_tree.state import deal_of

# the state's axes: a card counts at altitude, free tops at altitude, the gaps at
# altitude (free capacity x fill of the last row), pipes at altitude, low hangers minus
# hanging and hung pieces, the chain under altitude, low pipes, counted low cards minus twice the
# low hanging pieces (facts 6 and 7), stacks started at altitude (fact 3)
ALT, TOPS, HANG, PIPES, LOW_HANG, CHAIN, LOW_PIPES, PAIRS, STACKS = range(9)
# caps of TOPS, HANG (its free capacity), LOW_HANG and PAIRS: that many or more is
# "unlimited"; free tops are kept up to 5 as fact 5 tells 2 from 3 of them after pipes
# used some
CAPS = (5, 6, 3, 6)
MAX_PIPES = ct.COPIES  # the deck's pipes: the pipe axes count them exactly
IMPOSSIBLE = -20000  # a state no game reaches (int16 tables)
# The best score of any game under these options, whatever the deal:
# ``grid_bound.free_bound`` proves that no game scores more (in seconds, with OR-Tools),
# and reference deal 27's plan scores it (tests/analysis/test_cat_tree_grid_bound.py checks both).
MAXIMA = {CatTreeOptions(): 181}


def support_needed(options: CatTreeOptions) -> int:
    """Fact 6: the low rows holding counted cards that any counted card at altitude
    needs."""
    a, steps = options.altitude_row, options.detach_distance - 1
    if a >= options.height or a == 0:
        return 0
    # a ground-connected card at altitude: one card in each row under it; else the
    # ground-connected structure reaches row (lowest row of the part) - steps
    return a if steps == 0 else max(1, a - steps + 1)


class _Model:
    """The state space (flattened), the moves of every card type on it, and the points
    the end of a game adds (the pipes' sides)."""

    def __init__(self, options: CatTreeOptions):
        a = options.altitude_row
        self.a = a
        self.has_alt = has_alt = a < options.height
        self.all_alt = all_alt = has_alt and a == 0  # the floor row is at altitude
        need = support_needed(options)
        self.any_pipe = any_pipe = options.pipe_sides == "any"
        tops, hang, low_hang, pairs = CAPS
        self.need = need
        pairs = max(pairs, need + 1)
        self.split = split = has_alt and not all_alt  # both levels exist
        # a row of ``width`` cells holds at most ``kmax`` hangers with a gap between each
        self.kmax = kmax = (options.width + 1) // 2
        # pipes one column can hold at altitude (each stands on a carrier: not two in a row)
        self.column_pipes = (options.height - a + 1) // 2
        self.fills = fills = kmax + 1  # no hanger yet, or 1..kmax in the last row
        self.hang_cap = hang
        self.shape = shape = (
            2 if split else 1,
            tops + 1 if split else 1,
            (hang + 1) * fills if has_alt else 1,
            MAX_PIPES + 1 if has_alt and not any_pipe else 1,
            low_hang + 1 if not all_alt else 1,
            a + 1 if has_alt and a >= 2 else 1,  # chain heights 0..a-2, a base, unlimited
            MAX_PIPES + 1 if not all_alt and not any_pipe else 1,
            pairs + 1 if not all_alt else 1,
            3 if split else 1,  # stacks at altitude: none, one, two or more
        )
        self.size = int(np.prod(shape))
        self.strides = [int(np.prod(shape[i + 1:])) for i in range(len(shape))]
        self.moves = [self._compile(self._moves(kind)) for kind in range(ct.NUM_TYPES)]
        self.coords = coords = [c.reshape(-1) for c in np.indices(shape, dtype=np.int8)]
        end = np.zeros(shape, dtype=np.int32)
        if shape[PIPES] > 1:  # fact 5
            end += self._pipe_sides(*(coords[i].reshape(shape) for i in (HANG, PIPES, TOPS)))
        if shape[LOW_PIPES] > 1:
            end += self._low_pipe_sides(*(coords[i].reshape(shape)
                                          for i in (LOW_HANG, LOW_PIPES, PAIRS, ALT)))
        if need and shape[ALT] == 2:  # fact 6: as many low rows, each a pair fewer
            short = [slice(None)] * len(shape)
            short[ALT], short[PAIRS] = 1, slice(None, need)
            end[tuple(short)] = IMPOSSIBLE
        self.end = end.astype(np.int16).reshape(-1)
        self.start = 0  # every axis at 0

    def _pipe_sides(self, hang, pipes, tops):
        """Fact 5 at altitude: the most side points of the pipes there, each two-sided,
        one-sided or without a side."""
        fills, unlimited = self.fills, 2 * ct.NUM_TYPES
        free = hang // fills
        free = np.where(free == self.hang_cap, unlimited, free)
        any_hanger = hang % fills != 0
        stacks = unlimited
        if self.split:
            stacks = np.where(tops == self.shape[TOPS] - 1, unlimited, tops)
        best = np.zeros(hang.shape, dtype=np.int32)
        for two in range(self.shape[PIPES]):
            for one in range(self.shape[PIPES] - two):
                ok = (pipes >= two + one) & (free >= two)
                # stacks not topped by a pipe with a side, and by a two-sided one
                others = stacks + pipes - two - one
                if two or one:
                    ok &= any_hanger & (others >= 1)
                if two:
                    ok &= (others + one >= 3) | ((others + one == 2) & (two <= self.column_pipes))
                points = 2 * ct.PIPE_SIDE_POINTS * (2 * two + one)
                best = np.where(ok, np.maximum(best, points), best)
        return best

    def _low_pipe_sides(self, low_hang, pipes, pairs, alt):
        """Facts 5 and 7 below altitude: the most side points of the low pipes
        (``low_hang`` is h - m, hangers minus hanging and hung pieces; ``pairs`` low
        cards minus twice the hanging pieces, less the low rows they must cover: the
        neighbouring pairs left for sides)."""
        unlimited = 2 * MAX_PIPES
        hangers = np.where(low_hang == self.shape[LOW_HANG] - 1, unlimited, low_hang)
        rows = np.where(alt == 1, max(self.need, 1), 1)
        free_pairs = np.where(pairs == self.shape[PAIRS] - 1, unlimited, pairs - rows)
        best = np.zeros(low_hang.shape, dtype=np.int32)
        for two in range(MAX_PIPES + 1):
            for one in range(MAX_PIPES + 1 - two):
                ok = (pipes >= two + one) & (hangers - 1 >= two) & (2 * hangers >= 2 * two + one)
                ok &= free_pairs >= 2 * two + one
                best = np.where(ok, np.maximum(best, ct.PIPE_SIDE_POINTS * (2 * two + one)), best)
        return best

    def _moves(self, kind: int):
        """Every way a ``kind`` card can be played: (points, {axis: change}, {axis: at
        least}) with the changes of ``_compile``."""
        a, base = self.a, ct.BASE_POINTS[kind]
        out = []  # (it may also score nothing, dismissed or detached: see ``pull``)
        # a new stack (a shelf or hung piece at altitude, a carrier under it) offers a top
        stack = {TOPS: "up", STACKS: "up"}
        # filling a gap (a hammock, a catwalk or a hung box or nest, fact 3): below
        # altitude it takes two free hangers and two pairs (a low card less twice, fact 7)
        # and adds no hanger; at altitude a free gap between two stacks
        fill_low, gap_low = {PAIRS: "down", LOW_HANG: "down"}, {LOW_HANG: 2, PAIRS: 2}
        fill_alt, gap_alt = {HANG: "hang"}, {HANG: 1, STACKS: 2}
        if not self.all_alt:  # counted low (fact 1); every one supports (fact 6)
            low = {PAIRS: "up"}
            if kind in HANGING:  # fact 3
                out.append((base, fill_low, gap_low))
            elif kind == ct.SHELF:
                if a >= 2 or not self.has_alt:  # a low row off the floor
                    change = {**low, LOW_HANG: "up"}
                    if self.shape[CHAIN] > 1 and a >= 3:  # a shelf two rows under altitude
                        change[CHAIN] = "base"
                    out.append((base, change, {}))
            else:
                change = dict(low)
                if kind in HANGERS:
                    change[LOW_HANG] = "up"
                if kind in CARRIERS and self.shape[CHAIN] > 1:
                    change[CHAIN] = "extend"
                points = base
                if kind == ct.PIPE and self.any_pipe:  # any neighbour attaches a side
                    points += 2 * ct.PIPE_SIDE_POINTS
                elif kind == ct.PIPE:  # its sides count at the end (fact 5)
                    change[LOW_PIPES] = "up"
                out.append((points, change, {}))
                if kind in STAND_OR_HANG and self.shape[CHAIN] > 1:  # hung: a base
                    out.append((base, {**fill_low, CHAIN: "base"}, gap_low))
            if self.has_alt and a >= 1 and kind in CARRIERS:  # the row under altitude
                under = {**low, **stack}
                if kind == ct.SHELF:
                    if a >= 2:
                        out.append((base, {**under, LOW_HANG: "up"}, {}))
                else:
                    change = dict(under)
                    if kind in HANGERS:
                        change[LOW_HANG] = "up"
                    if a == 1:  # on the floor
                        out.append((base, change, {}))
                    else:  # on a chain (fact 4)
                        out.append((base, {**change, CHAIN: "use"}, {CHAIN: a - 1}))
                    if kind in STAND_OR_HANG:  # hung
                        out.append((base, {**under, **fill_low}, gap_low))
        if self.has_alt:  # counted at altitude
            points = 2 * base
            top = {} if self.all_alt else {TOPS: 1}  # the floor row is at altitude
            up = {ALT: "set"}
            if kind == ct.SHELF:
                out.append((points, {**up, **stack, HANG: "hanger"}, {}))
            elif kind in STAND_OR_HANG:
                out.append((points, {**up, HANG: "hanger"}, top))  # standing: net 0 tops
                out.append((points, {**up, **stack, **fill_alt}, gap_alt))
            elif kind == ct.SCRATCHER:
                out.append((points, up, top))
            elif kind in (ct.PIPE, ct.TOY):
                change = dict(up)
                if not self.all_alt and kind == ct.PIPE:  # a toy keeps its top (fact 2)
                    change[TOPS] = "down"
                if kind == ct.PIPE:
                    if self.any_pipe:
                        points += 2 * 2 * ct.PIPE_SIDE_POINTS
                    else:
                        change[PIPES] = "up"
                out.append((points, change, top))
            else:  # hammock, catwalk
                out.append((points, {**up, **fill_alt}, gap_alt))
        return out

    def _compile(self, moves):
        """Each move as (points, its axis changes): per axis it changes or constrains,
        (axis, the index change for each value of the axis, the values that allow the
        move or None). A state's index plus the changes of its axes' values is the
        target (tables of targets over every state would take hundreds of megabytes)."""
        shape, a = self.shape, self.a
        out = []
        for gain, change, least in moves:
            ops = []
            for axis, n in enumerate(shape):
                if n == 1 or (axis not in change and axis not in least):
                    continue
                c = np.arange(n)
                op = change.get(axis)
                if op is None:
                    t = c
                elif op == "set":
                    t = np.ones_like(c)
                elif op == "up":  # the last value is unlimited (or all the support needed)
                    t = np.minimum(c + 1, n - 1)
                elif op == "down":  # unlimited stays unlimited
                    t = np.where(c == n - 1, c, c - 1)
                elif op == "extend":  # one more chain carrier: heights up to the base
                    t = np.where(c <= a - 2, c + 1, c)
                elif op == "base":  # a carrier two rows under altitude, off any chain
                    t = np.where(c < a - 1, a - 1, a)
                elif op == "use":  # the base is taken
                    t = np.where(c == a, a, 0)
                elif op in ("hanger", "hang"):
                    t = np.array([self._hang(int(x), op) for x in range(n)])
                else:
                    raise ValueError(op)
                allowed = None
                if axis in least:
                    if axis == HANG:  # free capacity, not the row fill
                        allowed = c // self.fills >= least[axis]
                    else:
                        allowed = c >= min(least[axis], n - 1)
                ops.append((axis, (t - c) * self.strides[axis], allowed))
            out.append((gain, ops))
        return out

    def _targets(self, kind: int, at: np.ndarray, coords: dict):
        """For each move of ``kind``: its points and the target of each state of ``at``
        (``size`` where the move is not allowed). ``coords`` caches the axis values of
        the states of ``at``."""
        size = self.size
        for gain, ops in self.moves[kind]:
            target = at.copy()
            ok = None
            for axis, delta, allowed in ops:
                c = coords.get(axis)
                if c is None:
                    c = coords[axis] = self.coords[axis][at].astype(np.intp)
                target += delta[c]
                if allowed is not None:
                    ok = allowed[c] if ok is None else ok & allowed[c]
            yield gain, (target if ok is None else np.where(ok, target, size))

    def _hang(self, value: int, op: str) -> int:
        """The HANG value after a hanger joins (``hanger``: a shelf or a standing box or
        nest) or a gap is filled (``hang``: by a hammock, a catwalk or a hung box or
        nest, which adds no hanger): the free capacity (gaps between hangers of a row,
        minus what fills them) and the fill of the last row.
        Hangers fill a row up to ``kmax`` (then the next opens a new row): after h
        hangers the capacity is h - ceil(h / kmax), at least the real one (fact 3)."""
        fills, cap = self.fills, self.hang_cap
        free, fill = divmod(value, fills)

        def add(free: int, step: int) -> int:
            return free if free == cap else min(free + step, cap)

        if op == "hang":  # a gap is filled (free >= 1 is required); never a side (fact 3)
            free = free if free == cap else free - 1
            return free * fills + fill
        if fill == 0 or fill == self.kmax:  # the first hanger of a row
            return free * fills + 1
        return add(free, 1) * fills + fill + 1

    def push(self, reach: np.ndarray, kinds, also=None) -> np.ndarray:
        """The states (indices, sorted) reachable after placing one card of ``kinds``
        from the states ``reach``, by any of its moves or scoring nothing; with the
        states ``also``, if given."""
        seen = np.zeros(self.size + 1, dtype=bool)  # the last: a move not allowed
        seen[reach] = True
        if also is not None:
            seen[also] = True
        coords = {}
        for kind in kinds:
            for _, target in self._targets(kind, reach, coords):
                seen[target] = True
        return np.flatnonzero(seen[:-1])

    def pull(self, values: np.ndarray, kinds, at: np.ndarray) -> np.ndarray:
        """The value of each state of ``at`` before placing one card of ``kinds`` (the
        best choice among them and their moves), given the ``table`` of values after."""
        best = values[at]  # any card may score nothing, changing nothing
        coords = {}
        for kind in kinds:
            for gain, target in self._targets(kind, at, coords):
                best = np.maximum(best, values[target] + np.int16(gain))
        return best

    def table(self, at: np.ndarray, values: np.ndarray) -> np.ndarray:
        """The values of the states ``at`` as a table over every state, plus one entry,
        ``IMPOSSIBLE``, the target of moves not allowed. The other states are left unset:
        only the states a game on the deal can reach are worked out (a few percent of
        all of them), and only they are ever read."""
        out = np.empty(self.size + 1, dtype=np.int16)
        out[at] = values
        out[-1] = IMPOSSIBLE
        return out


@lru_cache(maxsize=16)
def _model(options: CatTreeOptions) -> _Model:
    return _Model(options)


def _reached(model: _Model, deck, options: CatTreeOptions):
    """The deal's hands (per turn, each partner's two cards), and forwards, the states each
    stage can reach (either partner places first): per turn (the states at its start,
    after the first partner's card, after the second's), and the states at the end."""
    hands = [(set(deal_of(deck, t, 0)), set(deal_of(deck, t, 1)))
             for t in range(options.turns)]
    reach = np.array([model.start])
    stages = []
    for first, second in hands:
        after_first, after_second = model.push(reach, first), model.push(reach, second)
        stages.append((reach, after_first, after_second))
        reach = model.push(after_first, second, model.push(after_second, first))
    return hands, stages, reach


def upper_bound(deck, options: CatTreeOptions | None = None) -> int:
    """An upper bound on the final score of any game played on ``deck``."""
    o = options or CatTreeOptions()
    model = _model(o)
    hands, stages, reach = _reached(model, deck, o)
    # backwards: the most a game can still add from each of them
    values = model.table(reach, model.end[reach])
    for (reach, after_first, after_second), (first, second) in zip(stages[::-1], hands[::-1]):
        first_places = model.table(after_first, model.pull(values, second, after_first))
        second_places = model.table(after_second, model.pull(values, first, after_second))
        values = model.table(reach, np.maximum(model.pull(first_places, first, reach),
                                               model.pull(second_places, second, reach)))
    best = int(values[model.start])
    if o in MAXIMA:  # no game under these options scores more, whatever the deal
        best = min(best, MAXIMA[o])
    return max(best, 0)


class PricedCounts:
    """The counting programme with prices instead of points: for prices per card type
    and level (below altitude, at altitude), the most the counted cards of one path can
    be worth, and that path's cards per type and level. Every game is a path (the facts
    above), counting the cards its final grid counts, at their levels; the end's pipe
    sides are left out, the end's impossible states kept. ``grid_bound`` prices the
    cards this way against its grid programme, many times a deal: the states the deal
    reaches and where each move leads are worked out once."""

    def __init__(self, deck, options: CatTreeOptions | None = None):
        o = options or CatTreeOptions()
        model = _model(o)
        levels = [[int(change.get(ALT) == "set") for _, change, _ in model._moves(kind)]
                  for kind in range(ct.NUM_TYPES)]
        hands, stages, reach = _reached(model, deck, o)
        self.end = np.where(model.end[reach] == IMPOSSIBLE, -np.inf, 0.0).astype(np.float32)

        def moves(at, kinds, after):
            """Where each state of ``at`` goes in ``after`` (positions; ``len(after)`` for a
            move not allowed), placing nothing and by each move of ``kinds``."""
            def where(target):
                found = np.searchsorted(after, target)
                ok = found < len(after)
                ok[ok] = after[found[ok]] == target[ok]
                return np.where(ok, found, len(after))

            out, coords = [(None, where(at))], {}
            for kind in kinds:
                for i, (_, target) in enumerate(model._targets(kind, at, coords)):
                    out.append(((kind, levels[kind][i]), where(target)))
            return out

        # per turn, backwards: (first card placed, second card placed) for each order
        self.turns = []
        later = reach
        for (reach, after_first, after_second), (first, second) in zip(stages[::-1],
                                                                        hands[::-1]):
            self.turns.append(((moves(reach, first, after_first),
                                moves(after_first, second, later)),
                               (moves(reach, second, after_second),
                                moves(after_second, first, later))))
            later = reach
        self.turns.reverse()

    @staticmethod
    def _pull(values, moves, prices):
        """The best value from each state before a card of these ``moves``, and the index
        of the move that gives it."""
        padded = np.append(values, np.float32(-np.inf))
        best = padded[moves[0][1]]
        choice = np.zeros(len(best), dtype=np.int8)
        for i, (card, to) in enumerate(moves[1:], 1):
            value = padded[to] + prices[card]
            better = value > best
            best = np.where(better, value, best)
            choice[better] = i
        return best, choice

    def best(self, prices) -> tuple[float, np.ndarray]:
        """(the most a path's counted cards are worth at ``prices``, an array (type,
        level), that path's cards per type and level)."""
        prices = np.asarray(prices, dtype=np.float32)
        values = self.end
        choices = []
        for orders in self.turns[::-1]:
            done = []
            for first, second in orders:
                mid, second_choice = self._pull(values, second, prices)
                start, first_choice = self._pull(mid, first, prices)
                done.append((start, first_choice, second_choice))
            order = (done[1][0] > done[0][0]).astype(np.int8)  # which partner places first
            values = np.where(order == 1, done[1][0], done[0][0])
            choices.append((order, done))
        # forwards along a best path: the recorded choices, from the start (state 0)
        counts = np.zeros((ct.NUM_TYPES, 2))
        state = 0
        for orders, (order, done) in zip(self.turns, choices[::-1]):
            which = int(order[state])
            (first, second), (_, first_choice, second_choice) = orders[which], done[which]
            for moves, choice in ((first, first_choice), (second, second_choice)):
                card, to = moves[int(choice[state])]
                if card is not None:
                    counts[card] += 1
                state = int(to[state])
        return float(values[0]), counts
