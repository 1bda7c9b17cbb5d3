"""A Cat Tree deal as a constraint programme, solved by CP-SAT (OR-Tools): better plans.

The oracle's beam search (``oracle.py``) ranks grids by a value that looks ahead, and on
full deals it misses plans a few percent better, some much better: CP-SAT started from
the search's plan finds them. The programme states the whole game on the deal at once:

* per turn and partner, which of the two cards is kept, and per turn who places first
  (a choice with ``placing_order="choose"``, the leader with ``"alternate"``);
* per kept card, the cell it is placed in, or none;
* every placement rule, against the pieces placed *before* it (earlier turns, and the
  partner's card of the same turn when it went first): a piece on a flat surface needs
  a carrier directly below (or the floor row), a hammock or catwalk a hanger on each
  side, a box or nest either, a shelf any row but the floor; one piece per cell;
* the final score exactly as ``scoring`` computes it, but for toys: the cells counted
  are the ground-connected ones (a flow from the floor row through neighbouring pieces)
  and the floating parts with a cell within ``detach_distance - 1`` of them (a flow from
  such cells); a pipe's sides, scratcher groups (a group starts where no scratcher
  stands on its left) and the altitude bonus follow; toys close to each other may not
  both start a group (a chain of toys may count more groups than it forms).

It relaxes one rule: a kept card may always go unplaced, where the game allows a
dismissal only when no cell is legal. So the programme's optimum is at least the game's,
and its proven bound is an upper bound of the deal. A solution is turned into the env's
actions and replayed through the rules engine (``CatTreeState``); where the engine
refuses a dismissal, the card goes to the legal cell that costs the rest of the plan
least. The score reported is the engine's.

Requires the ``oracle`` extra (``pip install catzoo[oracle]``: OR-Tools).
"""

from __future__ import annotations

from dataclasses import dataclass

from catzoo.analysis.cat_tree.oracle import replay_plan
from catzoo.analysis.cat_tree.pieces import CARRIERS, HANGERS, HANGING, STAND_ONLY, STAND_OR_HANG
from catzoo.games.cat_tree import options as ct
from catzoo.games.cat_tree.greedy import DISMISSED, best_cell
from catzoo.games.cat_tree.options import CatTreeOptions
from catzoo.games.cat_tree.state import (
    KEEP,
    KEEP_BASE,
    ME_FIRST,
    ORDER,
    PARTNER_FIRST,
    PLACE_BASE,
    CatTreeState,
    deal_of,
    dismiss_action,
)


def _cp_model():
    try:
        from ortools.sat.python import cp_model
    except ImportError as err:  # an optional extra: say which
        raise ImportError("the Cat Tree programme needs OR-Tools: pip install 'catzoo[oracle]'"
                          ) from err
    return cp_model


@dataclass
class ProgramResult:
    score: int  # the engine's score of ``actions``
    actions: tuple[int, ...]
    bound: int  # no game on the deal scores more (CP-SAT's proven bound)
    optimal: bool  # CP-SAT proved its plan optimal for the programme


class _Programme:
    """The model and its decision variables for one deal."""

    def __init__(self, deck, options: CatTreeOptions):
        cp_model = _cp_model()
        o = self.options = options
        self.deck = deck
        w, h = o.width, o.height
        self.cells = cells = [(r, c) for r in range(h) for c in range(w)]
        self.index = index = {rc: i for i, rc in enumerate(cells)}
        n = len(cells)
        m = self.model = cp_model.CpModel()
        events = [(t, p) for t in range(o.turns) for p in (0, 1)]
        self.hands = hands = {e: deal_of(deck, *e) for e in events}
        types = {e: sorted(set(hands[e])) for e in events}
        # first[t]: partner 0 places first in turn t
        self.first = first = {}
        for t in range(o.turns):
            if o.placing_order == "alternate":
                first[t] = 1 if t % 2 == 0 else 0  # the leader, player t % 2, places first
            else:
                first[t] = m.NewBoolVar(f"first{t}")
        self.keep, self.place = keep, place = {}, {}
        for e in events:
            keep[e] = [m.NewBoolVar("") for _ in range(2)]
            m.AddExactlyOne(keep[e])
            for y in types[e]:
                for i in range(n):
                    place[e + (i, y)] = m.NewBoolVar("")
                kept = sum(keep[e][j] for j in range(2) if hands[e][j] == y)
                m.Add(sum(place[e + (i, y)] for i in range(n)) <= kept)
        on = {}  # (cell, type): the piece there at the end (0 or 1)
        for i in range(n):
            for y in range(8):
                terms = [place[e + (i, y)] for e in events if y in types[e]]
                if terms:
                    on[i, y] = sum(terms)
            m.Add(sum(on.get((i, y), 0) for y in range(8)) <= 1)

        partner_first = {}

        def before(t: int, p: int, i: int, kinds) -> list:
            """The placements of ``kinds`` at cell i before partner p's in turn t."""
            terms = [place[e + (i, y)] for e in events if e[0] < t for y in types[e] if y in kinds]
            other = (t, 1 - p)
            mine = [place[other + (i, y)] for y in types[other] if y in kinds]
            if mine:
                key = (t, p, i, kinds)
                if key not in partner_first:
                    went_first = first[t] if p == 1 else 1 - first[t]
                    v = m.NewBoolVar("")
                    m.Add(v <= sum(mine))
                    m.Add(v <= went_first)
                    partner_first[key] = v
                terms.append(partner_first[key])
            return terms

        for t, p in events:
            for y in types[t, p]:
                for i, (r, c) in enumerate(cells):
                    v = place[(t, p, i, y)]
                    flat = None if r == 0 else sum(before(t, p, index[r - 1, c], CARRIERS))
                    edge = c == 0 or c == w - 1
                    if y in STAND_ONLY and r > 0:
                        m.Add(v <= flat)
                    elif y == ct.SHELF and r == 0:
                        m.Add(v == 0)
                    elif y in HANGING:
                        if edge:
                            m.Add(v == 0)
                        else:
                            m.Add(v <= sum(before(t, p, index[r, c - 1], HANGERS)))
                            m.Add(v <= sum(before(t, p, index[r, c + 1], HANGERS)))
                    elif y in STAND_OR_HANG and r > 0:
                        if edge:
                            m.Add(v <= flat)
                        else:
                            hung = m.NewBoolVar("")
                            m.Add(hung <= sum(before(t, p, index[r, c - 1], HANGERS)))
                            m.Add(hung <= sum(before(t, p, index[r, c + 1], HANGERS)))
                            m.Add(v <= flat + hung)

        counted = self._counted(on, n)
        m.Maximize(self._points(on, counted, n))

    def _counted(self, on, n: int) -> list:
        """Per cell, 1 when its piece scores: ground-connected (``ground``), or in a
        floating part anchored within reach of them (``floating``); both by flows."""
        m, o, cells = self.model, self.options, self.cells
        steps = o.detach_distance - 1
        occupied = [sum(on.get((i, y), 0) for y in range(8)) for i in range(n)]
        ground = [m.NewBoolVar("") for _ in range(n)]
        floating = [m.NewBoolVar("") for _ in range(n)]
        anchor = [m.NewBoolVar("") for _ in range(n)]
        for i, (r, c) in enumerate(cells):
            m.Add(ground[i] + floating[i] <= occupied[i])
            m.Add(anchor[i] <= floating[i])
            near = [j for j, (r2, c2) in enumerate(cells) if abs(r2 - r) + abs(c2 - c) <= steps]
            m.Add(anchor[i] <= sum(ground[j] for j in near))
        neighbours = [[self.index[r + dr, c + dc] for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1))
                       if (r + dr, c + dc) in self.index] for r, c in cells]
        floor = [i for i, (r, _) in enumerate(cells) if r == 0]
        for label, sources in ((ground, {i: ground[i] for i in floor}), (floating, dict(enumerate(anchor)))):
            inflow = [[] for _ in range(n)]
            outflow = [[] for _ in range(n)]
            for i, source in sources.items():
                x = m.NewIntVar(0, n, "")
                m.Add(x <= n * source)
                inflow[i].append(x)
            for i in range(n):
                for j in neighbours[i]:
                    x = m.NewIntVar(0, n, "")
                    m.Add(x <= n * label[i])
                    m.Add(x <= n * label[j])
                    outflow[i].append(x)
                    inflow[j].append(x)
            for i in range(n):  # each labelled cell takes one unit: it is reached
                m.Add(sum(inflow[i]) - sum(outflow[i]) == label[i])
        return [ground[i] + floating[i] for i in range(n)]

    def _points(self, on, counted, n: int):
        m, o, cells, index = self.model, self.options, self.cells, self.index
        double = [2 if r >= o.altitude_row else 1 for r, _ in cells]
        scores = {}  # (cell, type): a counted piece
        total = []
        for (i, y), there in on.items():
            v = m.NewBoolVar("")
            m.Add(v <= there)
            m.Add(v <= counted[i])
            scores[i, y] = v
            if y not in (ct.SCRATCHER, ct.TOY):
                total.append(ct.BASE_POINTS[y] * double[i] * v)
        holds = HANGERS if o.pipe_sides == "hangers" else range(8)
        holders = [sum(on.get((i, y), 0) for y in holds) for i in range(n)]
        toys = []
        for i, (r, c) in enumerate(cells):
            if (i, ct.PIPE) in scores:
                for side in (c - 1, c + 1):
                    if 0 <= side < o.width:
                        s = m.NewBoolVar("")
                        m.Add(s <= scores[i, ct.PIPE])
                        m.Add(s <= holders[index[r, side]])
                        total.append(ct.PIPE_SIDE_POINTS * double[i] * s)
            if (i, ct.SCRATCHER) in scores:  # a group starts here
                s = m.NewBoolVar("")
                m.Add(s <= scores[i, ct.SCRATCHER])
                if (index.get((r, c - 1)), ct.SCRATCHER) in scores:
                    m.Add(s <= 1 - scores[index[r, c - 1], ct.SCRATCHER])
                total.append(ct.BASE_POINTS[ct.SCRATCHER] * double[i] * s)
            if (i, ct.TOY) in scores:  # a group's first toy
                s = m.NewBoolVar("")
                m.Add(s <= scores[i, ct.TOY])
                toys.append((i, s))
                total.append(ct.BASE_POINTS[ct.TOY] * double[i] * s)
        reach = o.toy_distance - 1
        for k, (i, s) in enumerate(toys):
            for j, s2 in toys[k + 1:]:
                (r, c), (r2, c2) = cells[i], cells[j]
                if abs(r - r2) + abs(c - c2) <= reach:  # one group: one first toy
                    m.Add(s + s2 <= 3 - scores[i, ct.TOY] - scores[j, ct.TOY])
        return sum(total)

    def hint(self, actions) -> None:
        """Start the solver from a game's actions: every variable's value in that game,
        found by solving the programme with the game's choices fixed."""
        cp_model = _cp_model()
        fixed = _Programme(self.deck, self.options)
        for constraint in fixed._fix(actions):
            fixed.model.Add(constraint)
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.max_time_in_seconds = 30.0
        if solver.Solve(fixed.model) not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            raise AssertionError("a played game does not satisfy the programme")
        for k in range(len(self.model.Proto().variables)):
            self.model.AddHint(self.model.GetIntVarFromProtoIndex(k),
                               solver.Value(fixed.model.GetIntVarFromProtoIndex(k)))

    def _fix(self, actions):
        """Constraints pinning this programme's choices to a game's actions."""
        keeps, firsts, cells = _choices(self.deck, actions, self.options)
        for e, pair in self.keep.items():
            for j, v in enumerate(pair):
                yield v == int(keeps[e] == j)
        for t, v in self.first.items():
            if not isinstance(v, int):
                yield v == firsts[t]
        for (t, p, i, y), v in self.place.items():
            yield v == int(cells.get((t, p)) == i and self.hands[t, p][keeps[t, p]] == y)

    def actions(self, solver) -> tuple[int, ...]:
        """The env's actions of the solver's plan, replayed through the engine."""
        o = self.options
        keeps = {e: [solver.Value(v) for v in pair].index(1) for e, pair in self.keep.items()}
        firsts = {t: v if isinstance(v, int) else solver.Value(v) for t, v in self.first.items()}
        cells = {(t, p): i for (t, p, i, _), v in self.place.items() if solver.Value(v)}
        return _replay(self.deck, o, keeps, firsts, cells)


def _choices(deck, actions, options: CatTreeOptions):
    """A game's (keep index per turn and partner, partner 0 first per turn, cell per
    turn and partner of what was placed)."""
    state = CatTreeState.new(options, chance=[tuple(deck)])
    keeps, firsts, cells = {}, {}, {}
    area = options.width * options.height
    for a in actions:
        t, p, phase = state.turn, state.current_player, state.phase
        if phase == KEEP:
            keeps[t, p] = a - KEEP_BASE
        elif phase == ORDER:
            firsts[t] = int((p if a == ME_FIRST else 1 - p) == 0)
        elif a - PLACE_BASE < area:
            cells[t, p] = a - PLACE_BASE
        state.apply(a)
    for t in range(options.turns):  # no order decision: the leader placed first
        firsts.setdefault(t, int(t % 2 == 0))
    return keeps, firsts, cells


# Placements tried, over every forced card of one replay, before the rest are placed
# greedily: trying every cell at each forced card and completing the plan behind each is
# exponential in the forced cards, and a plan from a short CP-SAT run leaves many out.
REPLAY_TRIALS = 5000


def _replay(deck, options: CatTreeOptions, keeps, firsts, cells) -> tuple[int, ...]:
    """The actions of a plan, played through the engine. A card the plan leaves unplaced
    while the rules forbid a dismissal goes to the legal cell whose completed plan
    scores most (the cells of later such cards tried in turn, up to ``REPLAY_TRIALS``
    placements in all; beyond that, the cells not yet tried are skipped and each
    later such card goes to the heuristic's greedy cell)."""
    dismiss = dismiss_action(options)
    trials = [REPLAY_TRIALS]

    def play(state, start_cells):
        while not state.is_terminal():
            t, p, phase = state.turn, state.current_player, state.phase
            if phase == KEEP:
                state.apply(KEEP_BASE + keeps[t, p])
            elif phase == ORDER:
                placer = 0 if firsts[t] else 1
                state.apply(ME_FIRST if placer == p else PARTNER_FIRST)
            else:
                cell = start_cells.get((t, p))
                if cell is not None and state.is_legal(PLACE_BASE + cell):
                    state.apply(PLACE_BASE + cell)
                elif cell is None and state.is_legal(dismiss):
                    state.apply(dismiss)
                elif trials[0] <= 0:  # forced, out of trials: the heuristic's greedy cell
                    _, best = best_cell(state.boards, state.kept[p], state.rules)
                    state.apply(dismiss if best == DISMISSED else PLACE_BASE + best)
                else:  # forced to place (or the planned cell was taken): try each cell
                    best = None
                    for a in state.legal_actions():
                        if trials[0] <= 0 and best is not None:
                            break
                        trials[0] -= 1
                        trial = state.clone()
                        trial.apply(a)
                        done = play(trial, start_cells)
                        if best is None or done.total > best.total:
                            best = done
                    return best
        return state

    state = play(CatTreeState.new(options, chance=[tuple(deck)]), cells)
    return tuple(state.history)


def improve(deck, actions=None, options: CatTreeOptions | None = None, seconds: float = 10.0,
            workers: int = 2, seed: int = 0) -> ProgramResult:
    """The best plan CP-SAT finds for ``deck`` in ``seconds``, started from a game's
    ``actions`` (the oracle's plan) when given: its score is then never below theirs.

    ``workers``: CP-SAT's threads; keep two or more, as its portfolio of strategies on one
    thread (even large-neighbourhood search alone) seldom improves a full deal's plan in
    seconds.
    """
    cp_model = _cp_model()
    o = options or CatTreeOptions()
    deck = tuple(deck)
    programme = _Programme(deck, o)
    if actions is not None:
        programme.hint(actions)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = seconds
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = seed
    status = solver.Solve(programme.model)
    bound = int(solver.BestObjectiveBound() + 1e-6)
    plan, score = ((), 0)
    if actions is not None:
        plan, score = tuple(actions), replay_plan(deck, actions, o).total
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        found = programme.actions(solver)
        found_score = replay_plan(deck, found, o).total
        if found_score >= score:
            plan, score = found, found_score
    return ProgramResult(score, plan, max(bound, score), status == cp_model.OPTIMAL)

