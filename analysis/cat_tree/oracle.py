"""The Cat Tree oracle: the best score a deal allows when every card is known in advance.

Given the whole deal (the shuffled deck: every card both partners will be dealt), it
returns

* ``score``: the best final score its search found, with the plan (``actions``, the env's
  action sequence for both partners) that reaches it; the plan is replayed through the
  rules engine, so the score is achievable;
* ``upper_bound``: a score no game on the deal can beat (``catzoo.analysis.cat_tree.bound``);
  when both agree (``exact``) the score is proven optimal.

A policy is then reported as a percentage of ``score`` on the same deals
(``percent_of_oracle``); ``upper_bound`` says how much better than the oracle's own plan
the deal could possibly be. The reference deals (``catzoo.analysis.cat_tree.reference``,
``catzoo oracle``) ship better plans, found with CP-SAT, for a fixed set of deals.

The search is a beam search over turns, with full information (``_Search``). A node is
a grid; its children are every choice of kept cards, every placing order and, for each
card, the ``width`` most promising cells near the structure. The ``beam`` best distinct
grids go on to the next turn, ranked by a value that looks ahead:

* it plans a support column on the floor (at the column of the setting), as high as
  needed for a part at altitude to be within reach; the points that would count if the
  column stood are valued (a share ``column`` of them while it is unfinished), plus a
  small bonus per column cell built;
* a share (``detached``) of the points of pieces detached even then;
* a share (``future``) of what the cards of the later turns could add on this grid: each
  is matched to a free cell that suits it (a cell at altitude between two hangers for a
  hammock or catwalk, a carrier's top at altitude for the others), else counts its points
  below altitude.

On the last turn a grid is worth its exact score and every cell that can matter is tried
(near a piece or on the floor), so one-turn deals are solved exactly with a wide enough
``width``. The beam runs once per setting of ``SETTINGS`` (a column for the support and
weights: a cheap way to diversify a narrow beam, as other columns lead to other trees);
then the best plan is searched again from its grid after ``REFINE[0]`` turns with a
wider beam, and the best final grid wins. The heuristic's own game on the deal is the
first incumbent, so the oracle never reports less than the heuristic. A grid's value is
derived from its parent's (``_Node``: parts, counted cells and points are updated for
the one piece added, not recomputed), which is where the search spends its time.

The upper bound (``catzoo.analysis.cat_tree.bound``, its argument in that module) is still
above the best plan found on most deals: read ``score`` as the best known play of the
deal, not a proven optimum, unless ``exact``. With ``program_seconds``, CP-SAT then
looks for a better plan from the search's (``catzoo.analysis.cat_tree.program``; how often
it finds one, and how much better, is measured in docs/cat_tree_oracle.md).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import lru_cache, partial

from catzoo.analysis.cat_tree.bound import upper_bound
from catzoo.analysis.cat_tree.pieces import CARRIERS, HANGERS, HANGING, STAND_OR_HANG
from catzoo.games.cat_tree import options as ct
from catzoo.games.cat_tree.options import CatTreeOptions
from catzoo.games.cat_tree.placement import (
    RULE_OF_TYPE,
    Rules,
    cells_of,
    legal_classes,
    occupied,
    rules_for,
)
from catzoo.games.cat_tree.scoring import gain, points, score, toy_points
from catzoo.games.cat_tree.state import (
    KEEP_BASE,
    ME_FIRST,
    PARTNER_FIRST,
    PLACE_BASE,
    CatTreeState,
    deal_of,
)
from catzoo.policies.heuristics.cat_tree import CatTreeHeuristic

# Search settings: the planned support column (its grid column, at most the last one)
# and the future, detached and column weights (see _Search.evaluate). The beam is run
# once per setting and the best plan kept, a cheap way to diversify a narrow beam: runs
# with other columns and weights find other trees. These are the first three picked on
# 160 deals (seeds 5000-5079 and 6000-6079) by adding, one at a time, the setting that
# raised the mean best score most, out of 4 columns x 5 weights.
SETTINGS = (
    (0, (1.0, 0.4, 0.5)),
    (1, (1.0, 0.8, 0.6)),
    (0, (1.0, 0.6, 0.8)),
)
# Then the best plan is searched again from the grid it had after REFINE[0] turns, with
# a wider beam (REFINE[1] grids, REFINE[2] cells per card) and its own setting: more of
# the time goes where the first runs found the best tree.
REFINE = (2, 16, 3)

# Hangers first, so that the matching lets a same-turn hammock use their sides.
_HANGER_FIRST = {ct.SHELF: 0, ct.BOX: 1, ct.NEST: 1, ct.SCRATCHER: 2, ct.PIPE: 3, ct.TOY: 3,
                 ct.HAMMOCK: 4, ct.CATWALK: 4}


def _card_value(kind: int, slots: list, high: bool) -> float:
    """Points a ``kind`` card could score given free ``slots`` [alt tops, alt hanging
    cells, low hanging cells], which it uses up (a carrier at altitude adds a top)."""
    base = ct.BASE_POINTS[kind]
    if kind in HANGING:
        if slots[1]:
            slots[1] -= 1
            return 2 * base
        if slots[2]:
            slots[2] -= 1
            return base
        return 0
    if not high:
        return base + (ct.PIPE_SIDE_POINTS if kind == ct.PIPE else 0)
    if kind == ct.SHELF:
        slots[0] += 1
        return 2 * base
    if kind in STAND_OR_HANG and slots[1]:
        slots[1] -= 1
        slots[0] += 1
        return 2 * base
    if slots[0]:
        if kind not in (ct.SCRATCHER, ct.BOX, ct.NEST):
            slots[0] -= 1
        return 2 * (base + (ct.PIPE_SIDE_POINTS if kind == ct.PIPE else 0))
    return base
COLUMN_STEP = 2.0
DISMISS = -1


@dataclass(frozen=True)
class OracleResult:
    score: int
    upper_bound: int
    actions: tuple[int, ...]
    heuristic_score: int
    search_score: int | None = None  # the beam search's own, before CP-SAT (if it ran)

    @property
    def exact(self) -> bool:
        return self.score == self.upper_bound


class _Search:
    def __init__(self, deck, options: CatTreeOptions, beam: int, width: int, column: int,
                 weights: tuple[float, float, float], shared: dict | None = None):
        self.future_weight, self.detached_weight, self.column_weight = weights
        self.deck = deck
        self.last = options.turns - 1  # on the last turn a grid is worth its score
        self.options = options
        self.rules = rules = rules_for(options)
        self.beam = beam
        self.width = width
        self._evals: dict = {}
        self._cands: dict = {}
        self.pairs = []
        for t in range(options.turns):
            hands = [deal_of(deck, t, p) for p in range(2)]
            self.pairs.append({tuple(sorted((x, y), key=_HANGER_FIRST.__getitem__))
                               for x in set(hands[0]) for y in set(hands[1])})
        # The planned support column: cells from the floor up to the lowest row from
        # which a part at altitude is within reach (empty when no column is planned).
        self.column = 0
        top = rules.altitude_row - rules.detach_steps
        if rules.altitude_row < rules.height and top >= 0:
            for row in range(top + 1):
                self.column |= 1 << rules.cell(row, column)
        self.near = _near(rules)
        self.reach_of = _reach_of(rules)
        # what does not depend on the weights is shared by the runs on one deal: the
        # grids' facts (per planned column) and the potentials of slot counts
        shared = {} if shared is None else shared
        self._nodes: dict = shared.setdefault(("nodes", self.column), {})
        self._potentials: dict = shared.setdefault(("potentials", bool(self.column)), {})

    # --- a grid's value ----------------------------------------------------------------
    # The value of a grid is derived from facts kept per grid (``_Node``): its parts,
    # what counts with and without the planned column, the points of both. A child grid
    # (one more piece) updates its parent's facts instead of recomputing them, which is
    # where the search spends its time; the values are the same as computed afresh.
    def evaluate(self, boards: tuple, turn: int) -> float:
        """The search value of a grid during ``turn``: the points of the pieces that would
        count if the planned column stood, a bonus per column cell built, a share of the
        points of pieces still detached even then, and the potential of the cards of the
        later turns (on the last turn: the grid's score)."""
        key = (boards, turn)
        got = self._evals.get(key)
        if got is None:
            got = self._evals[key] = self._value(self._node(boards), boards, turn)
        return got

    def _value(self, node: _Node, boards: tuple, turn: int) -> float:
        rules, column = self.rules, self.column
        occ, tree = node.occ, node.tree
        if turn == self.last:
            return float(node.real_points if column & ~occ else node.tree_points)
        got = float(node.tree_points)
        if column & ~occ:
            # the column is not built yet: what counts only thanks to it is uncertain
            if node.counted != tree:
                got -= (1 - self.column_weight) * (got - node.real_points)
            got += COLUMN_STEP * (occ & column).bit_count()
        loose = occ & ~tree
        if loose:
            got += self.detached_weight * points(boards, loose, rules)
        return got + self.future_weight * self.potential(node, tree | column, turn)

    def _node(self, boards: tuple) -> _Node:
        node = self._nodes.get(boards)
        if node is None:
            node = self._nodes[boards] = _Node.of(boards, self)
        return node

    def _child(self, parent: _Node, after: tuple, kind: int, cell: int) -> _Node:
        node = self._nodes.get(after)
        if node is None:
            node = self._nodes[after] = parent.child(after, kind, cell, self)
        return node

    def potential(self, node: _Node, tree: int, turn: int) -> float:
        """What the cards of the turns after ``turn`` could add on this grid: each card
        is matched, turn by turn, to a free cell by the tree that suits it (a cell at
        altitude between two hangers for a hammock or catwalk, a carrier's top at
        altitude for a pipe, toy, scratcher, box or nest); a card without one counts its
        points below altitude. Every carrier it places offers its own top in turn."""
        rules = self.rules
        flat, sides = node.flat, node.sides
        region = rules.dilate(tree) if tree else rules.row0
        high = rules.alt if self.column else 0
        slots = ((flat & high & region).bit_count(), (sides & high & region).bit_count(),
                 (sides & ~high & region).bit_count())
        key = (slots, turn)
        got = self._potentials.get(key)
        if got is None:
            got = self._potentials[key] = self._match(list(slots), turn, bool(high))
        return got

    def _match(self, slots: list, turn: int, high: bool) -> float:
        total = 0.0
        for later in range(turn + 1, self.options.turns):
            best, best_slots = -1.0, slots
            for pair in self.pairs[later]:
                trial = list(slots)
                value = sum(_card_value(kind, trial, high) for kind in pair)
                if value > best:
                    best, best_slots = value, trial
            total += best
            slots = best_slots
        return total

    def ranking(self, boards: tuple, kind: int, turn: int) -> list[tuple[float, int, tuple]]:
        """Every (value, cell, grid after) placement of a ``kind`` card within reach of
        the structure (a shelf one cell farther), best first; a lone dismissal when no
        cell is legal."""
        key = (boards, kind, turn)
        got = self._cands.get(key)
        if got is not None:
            return got
        rules = self.rules
        node = self._node(boards)
        legal = node.legal(kind, rules)
        if not legal:
            got = [(self.evaluate(boards, turn), DISMISS, boards)]
            self._cands[key] = got
            return got
        occ = node.occ
        pool = legal & rules.ball(occ | self.column, 3 if kind == ct.SHELF else 2)
        if turn == self.last:
            pool = self._last_pool(legal, occ)
        elif not occ:
            # an empty grid: the first piece on the floor, columns left of the middle
            # (the right half mirrors them)
            pool = legal & ((1 << ((rules.width + 1) // 2)) - 1)
        got = self._score_cells(boards, kind, turn, pool or legal)
        self._cands[key] = got
        return got

    def _score_cells(self, boards: tuple, kind: int, turn: int, pool: int):
        scored = []
        width, middle = self.rules.width, (self.rules.width - 1) / 2
        base = boards[kind]
        parent = self._node(boards)
        evals = self._evals
        for cell in cells_of(pool):
            after = list(boards)
            after[kind] = base | (1 << cell)
            after = tuple(after)
            key = (after, turn)
            value = evals.get(key)
            if value is None:
                value = evals[key] = self._value(
                    self._child(parent, after, kind, cell), after, turn)
            row, col = divmod(cell, width)
            scored.append((value, row, -abs(col - middle), cell, after))
        scored.sort(reverse=True)
        return [(v, cell, after) for v, _, _, cell, after in scored]

    def _last_pool(self, legal: int, occ: int) -> int:
        """The cells worth trying for a game's last card, exactly: near a piece or on the
        floor; anywhere else it touches nothing and scores nothing, so one such cell
        stands for all of them."""
        rules = self.rules
        reach = max(rules.detach_steps, rules.toy_reach, 1)
        pool = legal & (rules.ball(occ, reach) | rules.row0)
        rest = legal & ~pool
        return pool | (rest & -rest)

    def follow_up(self, parent: tuple, mid: tuple, placed: int, kind: int, turn: int):
        """The best placements of the turn's second card, after the first went to cell
        ``placed``: the parent grid's best cells for it that are still free, and the
        cells around ``placed`` (where the first card changed what fits or scores)."""
        rules = self.rules
        node = self._node(mid)
        legal = node.legal(kind, rules)
        if not legal:
            return [(self.evaluate(mid, turn), DISMISS, mid)]
        pool = self._last_pool(legal, node.occ) if turn == self.last else 0
        if placed != DISMISS:
            pool |= legal & rules.ball(1 << placed, 2)
        for _, cell, _ in self.ranking(parent, kind, turn)[: self.width + 2]:
            if cell != DISMISS:
                pool |= legal & (1 << cell)
        return self._score_cells(mid, kind, turn, pool or legal)[: self.width]

    def run(self, start: int = 0, layer: dict | None = None):
        """The best (score, plan) of the beam from turn ``start`` (the grids of ``layer``,
        each with the plan that reached it; by default the empty grid at turn 0)."""
        o = self.options
        # node: grid -> (value, plan) where plan is a tuple of per-turn decisions
        if layer is None:
            layer = {tuple([0] * 8): (0.0, ())}
        for turn in range(start, o.turns):
            hands = [deal_of(self.deck, turn, p) for p in range(2)]
            leader = turn % 2
            children: dict = {}
            for boards, (_, plan) in layer.items():
                for i0 in range(2 if hands[0][0] != hands[0][1] else 1):
                    for i1 in range(2 if hands[1][0] != hands[1][1] else 1):
                        kept = (hands[0][i0], hands[1][i1])
                        firsts = (leader,) if o.placing_order == "alternate" else (0, 1)
                        if kept[0] == kept[1]:
                            firsts = (leader,)
                        for first in firsts:
                            second = 1 - first
                            moves = self.ranking(boards, kept[first], turn)[: self.width]
                            for _, c1, mid in moves:
                                for value, c2, after in self.follow_up(
                                        boards, mid, c1, kept[second], turn):
                                    old = children.get(after)
                                    if old is None or old[0] < value:
                                        children[after] = (
                                            value, plan + ((i0, i1, first, c1, c2),))
            ranked = sorted(children.items(), key=lambda kv: kv[1][0], reverse=True)
            layer = dict(ranked[: self.beam])
        best_plan, best_score = (), -1
        for boards, (_, plan) in layer.items():
            real = score(boards, self.rules)
            if real > best_score:
                best_plan, best_score = plan, real
        return best_score, best_plan


def _parts_of(cells: int, rules: Rules) -> list[int]:
    """The orthogonally connected groups of ``cells``."""
    parts = []
    while cells:
        part = rules.flood(cells & -cells, cells)
        parts.append(part)
        cells &= ~part
    return parts


def _counted_of(parts: list[int], rules: Rules) -> tuple[int, int, int]:
    """(ground-connected cells, what they reach, the counted cells) of a grid's parts."""
    ground = 0
    for part in parts:
        if part & rules.row0:
            ground |= part
    if not ground:
        return 0, 0, 0
    reach = rules.ball(ground, rules.detach_steps)
    counted = ground
    for part in parts:
        if part & reach:
            counted |= part
    return ground, reach, counted


@lru_cache(maxsize=16)
def _near(rules: Rules) -> tuple[int, ...]:
    return tuple(rules.ball(1 << c, 1) for c in range(rules.num_cells))


@lru_cache(maxsize=16)
def _reach_of(rules: Rules) -> tuple[int, ...]:
    return tuple(rules.ball(1 << c, rules.detach_steps) for c in range(rules.num_cells))


class _Node:
    """What the search keeps of a grid: its occupied cells and placement classes, and
    two views of what counts: *virtual* (as if the planned column stood: its cells are
    added to the grid's parts) and *real* (the grid as it is; the same as virtual once
    the column is built, so only kept, in ``real``, while it is not)."""

    __slots__ = ("carriers", "flat", "ground", "hangers", "occ", "parts", "reach", "real",
                 "sides", "tree", "tree_points", "tree_toys", "vcounted")

    def legal(self, kind: int, rules: Rules) -> int:
        """The cells where a ``kind`` card may be placed (``legal_classes``)."""
        rule = RULE_OF_TYPE[kind]
        if rule == 0:
            return self.flat
        if rule == 1:
            return self.sides
        if rule == 2:
            return self.flat | self.sides
        return rules.full & ~self.occ & ~rules.row0

    @property
    def counted(self) -> int:
        return self.real[3] if self.real is not None else self.tree

    @property
    def real_points(self) -> int:
        return self.real[4] if self.real is not None else self.tree_points

    @classmethod
    def of(cls, boards: tuple, search: _Search) -> _Node:
        rules, column = search.rules, search.column
        node = cls.__new__(cls)
        occ = occupied(boards)
        node.occ = occ
        node.carriers = _cells_of(boards, CARRIERS)
        node.hangers = _cells_of(boards, HANGERS)
        node.flat, node.sides, _, _ = legal_classes(boards, rules)
        node.parts = _parts_of(occ | column, rules)
        node.ground, node.reach, node.vcounted = _counted_of(node.parts, rules)
        node.tree = tree = node.vcounted & occ
        node.tree_points = points(boards, tree, rules)
        toys = boards[ct.TOY] & tree
        node.tree_toys = toy_points(toys, rules) if toys else 0
        node.real = None
        if column & ~occ:
            parts = _parts_of(occ, rules)
            ground, reach, counted = _counted_of(parts, rules)
            toys = boards[ct.TOY] & counted
            node.real = (parts, ground, reach, counted, points(boards, counted, rules),
                         toy_points(toys, rules) if toys else 0)
        return node

    def child(self, after: tuple, kind: int, cell: int, search: _Search) -> _Node:
        """The node of ``after``: this grid with a ``kind`` piece at ``cell``."""
        rules, column = search.rules, search.column
        bit = 1 << cell
        node = _Node.__new__(_Node)
        occ = node.occ = self.occ | bit
        carriers, hangers = self.carriers, self.hangers
        empty = rules.full & ~occ
        if kind in CARRIERS:
            carriers |= bit
            node.flat = (rules.row0 | (carriers << rules.width)) & empty
        else:
            node.flat = self.flat & ~bit
        if kind in HANGERS:
            hangers |= bit
            node.sides = (((hangers << 1) & rules.not_col0) & ((hangers >> 1) & rules.not_last)
                          & empty)
        else:
            node.sides = self.sides & ~bit
        node.carriers, node.hangers = carriers, hangers
        holders = occ if rules.pipe_any else hangers
        if bit & column:  # a column cell: the virtual grid does not change
            node.parts, node.ground, node.reach = self.parts, self.ground, self.reach
            vcounted = self.vcounted
        else:
            node.parts, node.ground, node.reach, vcounted = _grown(
                self.parts, self.ground, self.reach, self.vcounted, bit, cell, search)
        node.vcounted = vcounted
        tree = node.tree = vcounted & occ
        node.tree_points, node.tree_toys = _points_after(
            after, kind, bit, tree, self.tree, self.tree_points, self.tree_toys, holders, rules)
        node.real = None
        if column & ~occ:
            real = self.real
            parts, ground, reach, counted = _grown(real[0], real[1], real[2], real[3], bit,
                                                   cell, search)
            node.real = (parts, ground, reach, counted) + _points_after(
                after, kind, bit, counted, real[3], real[4], real[5], holders, rules)
        return node


def _cells_of(boards, kinds) -> int:
    """The cells holding a piece of one of ``kinds``."""
    cells = 0
    for kind in kinds:
        cells |= boards[kind]
    return cells


def _grown(parts, ground, reach, counted, bit: int, cell: int, search: _Search):
    """(parts, ground, reach, counted) after adding the piece at ``cell`` (``bit``)."""
    rules = search.rules
    near = search.near[cell]
    joined, rest = bit, []
    for part in parts:
        if part & near:
            joined |= part
        else:
            rest.append(part)
    rest.append(joined)
    if joined & rules.row0:  # it joins the ground-connected structure
        lifted = joined & ~ground
        ground |= joined
        reach |= search.reach_of[cell] if lifted == bit else rules.ball(lifted,
                                                                        rules.detach_steps)
        counted = ground
        for part in rest:
            if part & reach:
                counted |= part
    elif joined & reach:
        counted |= joined
    return rest, ground, reach, counted


def _points_after(after, kind, bit, counted, before, points_before, toys_before, holders,
                  rules):
    """(points, counted toys' points) of ``after`` over ``counted``, from the parent's
    (over ``before``): unchanged, one piece more (``gain``), or scored afresh."""
    if counted == before:
        return points_before, toys_before
    if counted == before | bit:
        added, toys = gain(after, kind, bit, counted, holders, toys_before, rules)
        return points_before + added, toys
    toys = after[ct.TOY] & counted
    return points(after, counted, rules), toy_points(toys, rules) if toys else 0


def _grid_of(deck, plan) -> tuple:
    """The grid after the turns of ``plan``."""
    boards = [0] * 8
    for turn, (i0, i1, first, c1, c2) in enumerate(plan):
        kept = (deal_of(deck, turn, 0)[i0], deal_of(deck, turn, 1)[i1])
        for who, cell in ((first, c1), (1 - first, c2)):
            if cell != DISMISS:
                boards[kept[who]] |= 1 << cell
    return tuple(boards)


def plan_actions(plan, options: CatTreeOptions) -> list[int]:
    """The env's action sequence (both partners) of a plan of per-turn decisions."""
    dismiss = PLACE_BASE + options.width * options.height
    actions = []
    for turn, (i0, i1, first, c1, c2) in enumerate(plan):
        actions += [KEEP_BASE + i0, KEEP_BASE + i1]
        if options.placing_order == "choose":
            actions.append(ME_FIRST if first == turn % 2 else PARTNER_FIRST)
        for cell in (c1, c2):
            actions.append(dismiss if cell == DISMISS else PLACE_BASE + cell)
    return actions


def replay_plan(deck, actions, options: CatTreeOptions) -> CatTreeState:
    """The game of ``actions`` (both partners') on ``deck``; an illegal action raises
    ``IllegalActionError``."""
    state = CatTreeState.new(options, chance=[tuple(deck)])
    for action in actions:
        state.apply(action)
    return state


def play_policies(deck, policies, options: CatTreeOptions) -> CatTreeState:
    """Play a deal with one policy per seat (observation dict in, action out; search
    bots also get the state, which they see only through ``resample``)."""
    state = CatTreeState.new(options, chance=[tuple(deck)])
    for policy in policies:
        policy.reset()
    return play_on(state, policies)


def play_on(state: CatTreeState, policies) -> CatTreeState:
    """Play ``state`` (changed in place) to the game's end, ``policies[p]`` at seat p."""
    while not state.is_terminal():
        p = state.current_player
        obs = {"observation": state.observation(p), "action_mask": state.legal_mask()}
        state.apply(policies[p].act(obs, state=state, player=p))
    return state


def solve(deck, options: CatTreeOptions | None = None, beam: int = 4, width: int = 2,
          bound: bool = True, settings=SETTINGS, refine=REFINE,
          program_seconds: float = 0.0) -> OracleResult:
    """The oracle's best plan and upper bound for ``deck`` (a tuple of 32 card types):
    a beam search per setting of ``settings`` ((column, weights) pairs), then the best
    plan searched again from turn ``refine[0]`` with a wider beam (``refine=None``:
    not); with ``program_seconds``, CP-SAT then looks for a better plan from it for that
    long (``program.improve``, the ``oracle`` extra), and its proven bound may lower the
    upper bound."""
    o = options or CatTreeOptions()
    deck = tuple(deck)
    bot = CatTreeHeuristic(options=o)
    greedy = play_policies(deck, [bot, bot], o)
    best_score, best_actions = greedy.total, tuple(greedy.history)
    found, plan = -1, ()
    shared: dict = {}
    best_setting = None
    for column, weights in settings:
        column = min(column, o.width - 1)
        got, got_plan = _Search(deck, o, beam, width, column, weights, shared).run()
        if got > found:
            found, plan, best_setting = got, got_plan, (column, weights)
    turn, wide_beam, wide_width = refine or (o.turns, beam, width)
    if best_setting is not None and turn < o.turns:
        search = _Search(deck, o, wide_beam, wide_width, *best_setting, shared)
        start = {_grid_of(deck, plan[:turn]): (0.0, plan[:turn])}
        got, got_plan = search.run(turn, start)
        if got > found:
            found, plan = got, got_plan
    if found > best_score:
        actions = plan_actions(plan, o)
        check = replay_plan(deck, actions, o)  # raises if the search planned an illegal move
        if check.total != found:
            raise AssertionError(f"oracle plan replays to {check.total}, not {found}")
        best_score, best_actions = found, tuple(actions)
    ub = max(upper_bound(deck, o), best_score) if bound else best_score
    if program_seconds <= 0:
        return OracleResult(best_score, ub, best_actions, greedy.total)
    from catzoo.analysis.cat_tree.program import improve

    searched = best_score
    better = improve(deck, best_actions, o, seconds=program_seconds)
    if better.score > best_score:
        best_score, best_actions = better.score, better.actions
    ub = max(min(ub, better.bound) if bound else best_score, best_score)
    return OracleResult(best_score, ub, best_actions, greedy.total, searched)


def solve_all(decks, options: CatTreeOptions | None = None, workers: int = 1, **search):
    """``solve`` each deck (keyword arguments as ``solve``'s), in ``workers`` processes:
    the results, in the decks' order, as they come (a generator)."""
    if workers <= 1:
        for deck in decks:
            yield solve(deck, options, **search)
        return
    decks = [tuple(d) for d in decks]
    pool = ProcessPoolExecutor(workers)  # any start method: workers only import the oracle
    try:
        chunk = max(1, min(16, len(decks) // (4 * workers)))
        yield from pool.map(partial(solve, options=options, **search), decks, chunksize=chunk)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def percents_of_oracle(policy_scores, oracle_scores) -> list[float]:
    """Per deal, 100 * policy score / oracle score (a deal where the oracle scores 0
    counts as 100%)."""
    return [100.0 * p / o if o else 100.0 for p, o in zip(policy_scores, oracle_scores)]


def percent_of_oracle(policy_scores, oracle_scores) -> float:
    """Mean over deals of ``percents_of_oracle``."""
    ratios = percents_of_oracle(policy_scores, oracle_scores)
    return sum(ratios) / len(ratios) if ratios else 0.0


def deals(count: int, seed: int = 0, options: CatTreeOptions | None = None) -> list[tuple]:
    """``count`` reproducible deals: the decks of games seeded ``seed, seed + 1, ...``."""
    o = options or CatTreeOptions()
    return [CatTreeState.new(o, seed=seed + i).deck for i in range(count)]
