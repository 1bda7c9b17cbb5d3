"""An upper bound on the score of a Cat Tree deal, every card known (the oracle's bound).

A dynamic programme over the turns relaxes the grid away and keeps only counting
facts that every real game obeys, so no game on the deal can score more:

* every placed card scores at most its points, doubled if at altitude; a pipe gets at
  most one +3 (doubled at altitude) per side, and all pipes together no more sides than
  the box, shelf and nest cards at that level have free sides (each hammock or catwalk
  uses two of them);
* nothing reaches altitude before a shelf is kept (a shelf goes anywhere) or before
  ``altitude_row`` cards are placed (a column from the floor);
* a hammock or catwalk needs the two hangers beside it in its row: at one level (altitude
  or not) a run of hanging pieces needs one hanger more than it has, so ``hangings <=
  hangers - 1``, counting the partner's card of the same turn if it is placed first; one
  that fits nowhere is dismissed (0 points);
* if anything scores at altitude, at least ``altitude_row - detach_distance + 2`` cards
  (and at least the one on the floor) do not: the ground-connected structure must come
  within reach of it; each of them loses at least 5 points against the count above.

Toy and scratcher groups, what a piece stands on, the grid's size and the distance rule
beyond that are ignored, which only loosens the bound.
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
    SHELF,
    CatTreeOptions,
)
from catzoo.games.cat_tree.state import deal_of

# State: (enabled, placed, d_alt, d_low, p_alt, p_low, alt_any, low)
# placed: cards placed while altitude is not yet reachable (capped at the altitude row);
# d: hangers (box, shelf, nest) minus hanging pieces (hammock, catwalk) at a level: a new
# hanging piece needs d >= 2 (hangings <= hangers - 1) and free hanger sides are 2 d;
# p: pipes; low: cards below altitude (capped at the support needed); alt_any: a card is
# at altitude.


def support_needed(options: CatTreeOptions) -> int:
    a, d = options.altitude_row, options.detach_distance
    if a >= options.height or a == 0:
        return 0
    # at least the floor piece the tree stands on is below altitude
    return a if d <= 1 else max(1, a - d + 2)


def _card_moves(state, kind: int, a_row: int, has_alt: bool, need: int, cap: int):
    """The (points, next state) of each way a ``kind`` card can be placed (or dismissed).

    A pipe, toy or scratcher goes to altitude whenever altitude is reachable: below it
    would score half, at most 5 less, which is all that counting it as support can save.
    Hangers and hanging pieces try both levels (which level helps depends on the cards
    to come)."""
    enabled, placed, d_alt, d_low, p_alt, p_low, alt_any, low = state
    if kind == SHELF and has_alt:
        enabled = True  # a shelf goes anywhere, altitude included
    placed2 = a_row if enabled else min(placed + 1, a_row)
    low2 = min(low + 1, need)
    base = BASE_POINTS[kind]
    if kind in (BOX, NEST, SHELF):
        out = [(base, (enabled, placed2, d_alt, min(d_low + 1, cap), p_alt, p_low, alt_any,
                       low2))]
        if enabled:
            out.append((2 * base, (enabled, placed2, min(d_alt + 1, cap), d_low, p_alt, p_low,
                                   True, low)))
        return out
    if kind in (HAMMOCK, CATWALK):
        out = [(0, state)]  # dismissed
        if enabled and d_alt >= 2:
            out.append((2 * base, (enabled, placed2, d_alt - 1, d_low, p_alt, p_low, True,
                                   low)))
        if d_low >= 2:
            out.append((base, (enabled, placed2, d_alt, d_low - 1, p_alt, p_low, alt_any,
                               low2)))
        return out
    pipe = kind == PIPE
    if enabled:
        return [(2 * base, (enabled, placed2, d_alt, d_low, p_alt + pipe, p_low, True, low))]
    return [(base, (enabled, placed2, d_alt, d_low, p_alt, p_low + pipe, alt_any, low2))]


def _enable(state, a_row: int):
    if not state[0] and state[1] >= a_row:
        return (True,) + state[1:]
    return state


def upper_bound(deck, options: CatTreeOptions | None = None) -> int:
    """An upper bound on the final score of any game played on ``deck``."""
    o = options or CatTreeOptions()
    a_row = o.altitude_row
    has_alt = a_row < o.height
    need = support_needed(o)
    hands = [[deal_of(deck, t, p) for p in range(2)] for t in range(o.turns)]
    # Hanger surplus beyond what later hangings and the 4 pipes can use changes nothing.
    later = [0] * (o.turns + 1)
    for t in range(o.turns - 1, -1, -1):
        later[t] = later[t + 1] + sum(
            any(k in (HAMMOCK, CATWALK) for k in hand) for hand in hands[t])
    layer = {(has_alt and a_row == 0, 0, 0, 0, 0, 0, False, 0): 0}
    for turn in range(o.turns):
        cap = later[turn + 1] + 4 + 1
        pairs = {(x, y) for x in set(hands[turn][0]) for y in set(hands[turn][1])}
        nxt: dict = {}
        for state, value in layer.items():
            for x, y in pairs:
                for first, second in ((x, y), (y, x)) if x != y else ((x, y),):
                    for gain1, s1 in _card_moves(state, first, a_row, has_alt, need, cap):
                        if has_alt:
                            s1 = _enable(s1, a_row)
                        for gain2, s2 in _card_moves(s1, second, a_row, has_alt, need, cap):
                            if has_alt:
                                s2 = _enable(s2, a_row)
                            v = value + gain1 + gain2
                            if nxt.get(s2, -1) < v:
                                nxt[s2] = v
        layer = nxt
    best = 0
    for state, value in layer.items():
        _, _, d_alt, d_low, p_alt, p_low, alt_any, low = state
        if o.pipe_sides == "any":
            sides_alt, sides_low = 2 * p_alt, 2 * p_low
        else:
            sides_alt = min(2 * p_alt, 2 * d_alt)
            sides_low = min(2 * p_low, 2 * d_low)
        value += PIPE_SIDE_POINTS * (2 * sides_alt + sides_low)
        if alt_any and low < need:
            value -= BASE_POINTS[BOX] * (need - low)
        best = max(best, value)
    return best
