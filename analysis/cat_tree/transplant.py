"""Building a known final grid on another deal: the reference deals' transplants.

The best trees of different deals look alike: a support column, shelves and hangers at
altitude with pipes and hammocks between them. A tree found on one deal can often be
built on another, if that deal's cards can be kept and placed in an order the rules
allow. ``build`` searches for such a plan, depth first over the keeps, the placing order
and the target cells; ``transplant`` tries every grid given (mirrored and shifted along
the rows too, or less one cell with a spare card placed off it) and keeps the best plan.
The engine replays every plan, so a score found this way is achieved.
``python -m catzoo.analysis.cat_tree.build --transplant`` runs it over the reference deals,
with every deal's best-known tree as a target.

A box and a nest, and a hammock and a catwalk, have the same points and the same
placement rules, so either may stand for the other in a target.
"""

from __future__ import annotations

from catzoo.analysis.cat_tree.oracle import replay_plan
from catzoo.games.cat_tree.options import BOX, CATWALK, HAMMOCK, NEST, CatTreeOptions
from catzoo.games.cat_tree.state import KEEP, KEEP_BASE, ORDER, PLACE_BASE, CatTreeState

SAME = {NEST: BOX, CATWALK: HAMMOCK}  # same points, same placement rules
LIMIT = 20_000  # states a search may visit: a buildable tree is found in a few hundred
SPARE_LIMIT = 5_000  # the same with a spare card, which widens every search


def _alike(kind: int) -> int:
    return SAME.get(kind, kind)


def final_grid(deck, actions, options: CatTreeOptions | None = None) -> dict[int, int]:
    """The pieces (cell: type) of the grid a plan ends on."""
    state = replay_plan(deck, actions, options or CatTreeOptions())
    return {cell: kind for cell, kind in enumerate(state.grid) if kind >= 0}


def variants(grid: dict[int, int], options: CatTreeOptions | None = None) -> list[dict]:
    """``grid`` and its mirror image, each shifted to every column where it fits."""
    w = (options or CatTreeOptions()).width
    out = []
    for mirror in (False, True):
        cells = {(cell // w, w - 1 - cell % w if mirror else cell % w): kind
                 for cell, kind in grid.items()}
        left = min(c for _, c in cells)
        right = max(c for _, c in cells)
        for shift in range(-left, w - right):
            moved = {r * w + c + shift: kind for (r, c), kind in cells.items()}
            if moved not in out:
                out.append(moved)
    return out


def build(deck, grid: dict[int, int], options: CatTreeOptions | None = None,
          limit: int = LIMIT, spare: int = 0) -> tuple[int, ...] | None:
    """A plan whose final grid holds ``grid`` (up to ``SAME``) on ``deck``, or None if
    none is found within ``limit`` states. Every kept card goes to a cell of the grid but
    ``spare`` of them, which go where they score most off it."""
    o = options or CatTreeOptions()
    need: dict[int, set[int]] = {}
    for cell, kind in grid.items():
        need.setdefault(_alike(kind), set()).add(cell)
    visited = 0
    failed = set()  # turn starts (turn, grid) from which no plan was found

    def search(state: CatTreeState, need, spare: int) -> list[int] | None:
        nonlocal visited
        visited += 1
        if visited > limit:
            return None
        if state.is_terminal():
            return [] if not any(need.values()) else None
        p = state.current_player
        start = state.phase == KEEP and p == 0
        if start:
            key = (state.turn, tuple(state.grid), spare)
            if key in failed:
                return None
        cells = set()  # the grid's cells the card in hand may take
        if state.phase == KEEP:
            moves = [KEEP_BASE + k for k in (0, 1)
                     if spare or need.get(_alike(state.hands[p][k]))]
        elif state.phase == ORDER:
            moves = state.legal_actions()
        else:
            cells = need.get(_alike(state.kept[p]), set())
            moves = [a for a in state.legal_actions() if a - PLACE_BASE in cells]
            if not cells and spare:
                off = _off_grid(state, need)
                moves = [off] if off >= 0 else []
        for action in moves:
            after = state.clone()
            after.apply(action)
            left, spared = need, spare
            if action - PLACE_BASE in cells:
                kind = _alike(state.kept[p])
                left = {**need, kind: need[kind] - {action - PLACE_BASE}}
            elif action >= PLACE_BASE:  # off the grid
                spared -= 1
            rest = search(after, left, spared)
            if rest is not None:
                return [action, *rest]
        if start and visited <= limit:  # a search cut short proves nothing
            failed.add(key)
        return None

    plan = search(CatTreeState.new(o, chance=[deck]), need, spare)
    return None if plan is None else tuple(plan)


def _off_grid(state: CatTreeState, need) -> int:
    """The action placing the card in hand where it scores most, off the cells the grid
    still needs (or dismissing it, when that is the only legal action)."""
    taken = set().union(*need.values())
    best = None
    for action in state.legal_actions():
        if action - PLACE_BASE in taken:
            continue
        after = state.clone()
        after.apply(action)
        if best is None or after.total > best[0]:
            best = (after.total, action)
    return best[1] if best is not None else -1


def transplant(deck, grids, options: CatTreeOptions | None = None, above: int = -1,
               limit: int = LIMIT, spare: int = 0
               ) -> tuple[int, tuple[int, ...] | None, int | None]:
    """(score, plan, index of the grid) of the best plan built from ``grids`` (score,
    grid) on ``deck``, trying only grids whose own score beats ``above``; (``above``,
    None, None) if none builds. With ``spare`` 1, each grid less one of its cells is
    tried instead, one kept card going off it (where it scores most)."""
    o = options or CatTreeOptions()
    best = (above, None, None)
    for index, (score, grid) in enumerate(grids):
        if score <= best[0]:
            continue
        targets = [grid] if not spare else [{c: k for c, k in grid.items() if c != cell}
                                            for cell in grid]
        for target in targets:
            for variant in variants(target, o):
                plan = build(deck, variant, o, limit, spare)
                if plan is not None:
                    built = replay_plan(deck, plan, o).total
                    if built > best[0]:
                        best = (built, plan, index)
                    break
    return best
