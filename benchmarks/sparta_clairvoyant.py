"""How far one-ply search over a blueprint can take Cat Tree: SPARTA told every hidden card.

``best:cat_tree`` is SPARTA (``catzoo.policies.search.sparta``): each player values each of
its legal moves by playing the blueprint (the shipped pair) to the end on re-deals of the
cards hidden from it, and keeps the best. More time buys more re-deals, so its estimates
approach the values of its moves *averaged over the hidden cards*. This benchmark removes
that average: every re-deal is the real game itself (a clone of the true state, its deck
included), so one rollout per move is exact, and the player picks the move that is best
for the cards actually coming: where more time would lead a search that samples them at
most (exactly so while later moves are the blueprint's, as its rollouts assume). A figure
under a bar says more time will not meet it; ``--depth`` asks whether searching deeper
over the same blueprint would.

It prints, on the reference deals (``catzoo oracle``'s, against their best-known plans),
the clairvoyant search over each ``--blueprint`` and, beside it in the same run, SPARTA
as ``best:cat_tree`` plays (``--seconds`` a move on the thread's CPU clock; 0 skips it).
``--depth 2 3`` adds deeper clairvoyant searches over the shipped blueprint: each of the
player's next ``depth - 1`` own decisions in a move's rollout is itself chosen by the
one-ply clairvoyant search (``Deeper``), every other decision is the blueprint's; depth 1
of it is the bot's row above, move for move:

    python benchmarks/sparta_clairvoyant.py                       # all 60 reference deals
    python benchmarks/sparta_clairvoyant.py --seconds 0 --blueprint shipped --blueprint runs/ct_x1/policy --depth 2 3

The clairvoyance is a patch of this process only: the re-deal function the searches call
(``catzoo.policies.search.rollouts.determinizations``) is replaced, for the clairvoyant
rows, by one that returns clones of the true state; no bot has an option to cheat.
"""

from __future__ import annotations

import argparse
import contextlib

import numpy as np

from catzoo.arena.oracle import oracle_report
from catzoo.policies.search import rollouts


@contextlib.contextmanager
def clairvoyant():
    """Every re-deal a search makes is the true state (its deck, hence its future, too)."""
    real = rollouts.determinizations

    def true_state(state, player, rng, count, redeal=None):
        return [state.clone() for _ in range(count)]

    rollouts.determinizations = true_state
    try:
        yield
    finally:
        rollouts.determinizations = real


class Deeper:
    """The clairvoyant search ``depth`` own decisions deep over ``blueprint`` (a network),
    on the true state: a move's value is its game played to the end with the player's next
    ``depth - 1`` decisions (that have a choice) searched one ply, everything else the
    blueprint's. Ties keep the blueprint's move, as SPARTA does at threshold 0."""

    def __init__(self, blueprint, depth: int):
        self.net, self.depth = blueprint, depth

    def _own(self, state) -> int:
        p = state.current_player
        return int(self.net.act_batch(state.observation(p)[None], state.legal_mask()[None])[0])

    def move(self, state, depth: int | None = None) -> int:
        depth = self.depth if depth is None else depth
        me, legal = state.current_player, np.flatnonzero(state.legal_mask())
        sims = []
        for a in legal:
            sim = state.clone()
            sim.apply(int(a))
            sims.append(sim)
        if depth == 1:
            self._blueprint_to_end(sims)
        else:
            for sim in sims:
                self._play_out(sim, me, depth - 1)
        values = {int(a): float(sim.returns()[me]) for a, sim in zip(legal, sims)}
        own = self._own(state)
        return own if values[own] >= max(values.values()) else max(values, key=values.get)

    def _blueprint_to_end(self, sims) -> None:
        live = [s for s in sims if not s.is_terminal()]
        while live:  # every copy's blueprint move in one forward pass
            obs = np.stack([s.observation(s.current_player) for s in live])
            acts = self.net.act_batch(obs, np.stack([s.legal_mask() for s in live]))
            for s, a in zip(live, acts.tolist()):
                s.apply(int(a))
            live = [s for s in live if not s.is_terminal()]

    def _play_out(self, sim, me: int, searched: int) -> None:
        while not sim.is_terminal():
            if sim.current_player == me and searched and sim.legal_mask().sum() > 1:
                action, searched = self.move(sim, 1), searched - 1
            else:
                action = self._own(sim)
            sim.apply(action)


def deeper_percent(depth: int, deals: int | None) -> tuple[float, float]:
    """``Deeper(shipped, depth)`` at both seats on the reference deals: mean % of the best
    known score and the half-width of its 95% interval."""
    from catzoo.analysis.cat_tree.reference import load
    from catzoo.games.cat_tree import CatTreeOptions
    from catzoo.games.cat_tree.state import CatTreeState
    from catzoo.policies.registry import make_policy
    from catzoo.policies.search import threads

    search = Deeper(make_policy("shipped", "cat_tree", 2), depth)
    ratios = []
    with threads.limited(1):
        for deal in load()[:deals]:
            state = CatTreeState.new(CatTreeOptions(), chance=[tuple(deal.deck)])
            while not state.is_terminal():
                choice = state.legal_mask().sum() > 1
                state.apply(search.move(state) if choice else search._own(state))
            ratios.append(100.0 * state.total / deal.score)
    half = 1.96 * np.std(ratios, ddof=1) / np.sqrt(len(ratios))
    return float(np.mean(ratios)), float(half)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=None, help="reference deals (default all)")
    parser.add_argument("--blueprint", action="append", default=None,
                        help="repeated: the rollout policy (default shipped)")
    parser.add_argument("--depth", type=int, nargs="*", default=[],
                        help="deeper clairvoyant searches over the shipped blueprint (2, 3, ...)")
    parser.add_argument("--seconds", type=float, default=0.25,
                        help="best:cat_tree's budget beside it (0: not played)")
    args = parser.parse_args(argv)
    # One re-deal suffices (it is exact); threshold=0: no deviation is noise.
    specs = [f"sparta:determinizations=1,threshold=0,policy={b}"
             for b in (args.blueprint or ["shipped"])]
    with clairvoyant():
        report = oracle_report(specs, deals=args.deals)
    print("one-ply search told every hidden card (its re-deal the true game):")
    print(report.table())
    for depth in args.depth:
        mean, half = deeper_percent(depth, args.deals)
        print(f"clairvoyant, {depth} own decision{'s' if depth > 1 else ''} deep (shipped blueprint): {mean:.1f}% +- "
              f"{half:.1f} of best")
    if args.seconds:
        honest = oracle_report([f"best:cat_tree:seconds={args.seconds:g}"], deals=args.deals)
        print("\nthe same deals, under the rules:")
        print(honest.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
