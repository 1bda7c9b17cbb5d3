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
one-ply clairvoyant search (the ``sparta`` bot itself; ``Deeper``), every other decision
is the blueprint's:

    python benchmarks/sparta_clairvoyant.py                       # all 60 reference deals
    python benchmarks/sparta_clairvoyant.py --seconds 0 --blueprint shipped --blueprint runs/ct_x1/policy --depth 2 3

``--told partner discards`` plays ``best:cat_tree`` (at ``--seconds``) told part of the hidden
cards, to say which part its shortfall comes from: ``partner``, every card of the partner's
(its hands and discards; the deck still to come re-dealt), ``discards``, the same but for
the partner's hand of this turn before the reveal (re-dealt, its unrevealed pick made as
``best:cat_tree``'s own re-deals make it, by the blueprint):

    python benchmarks/sparta_clairvoyant.py --told partner discards

The clairvoyance is a patch of this process only: the re-deal function the searches call
(``catzoo.policies.search.rollouts.determinizations``) is replaced, for the clairvoyant
rows, by one that returns clones of the true state; no bot has an option to cheat.
"""

from __future__ import annotations

import argparse
import contextlib

import numpy as np

from catzoo.arena.oracle import OracleReport, oracle_report
from catzoo.policies.search import rollouts
from catzoo.policies.search.determinize import has_unseen_pick, partner_picks


@contextlib.contextmanager
def clairvoyant():
    """Every re-deal a search makes is the true state (its deck, hence its future, too)."""
    real = rollouts.determinizations

    def true_state(state, player, rng, count, redeal=None, picks=None):
        return [state.clone() for _ in range(count)]

    rollouts.determinizations = true_state
    try:
        yield
    finally:
        rollouts.determinizations = real


@contextlib.contextmanager
def told(what: str):
    """Every re-deal a search makes keeps the partner's true cards (``what`` ``partner``),
    or all of them but its hand of this turn before the reveal (``discards``); the cards
    still to come are re-dealt (``partly_true``)."""
    real = rollouts.determinizations

    def partly(state, player, rng, count, redeal=None, picks=None):
        dets = [partly_true(state, player, rng, what) for _ in range(count)]
        # the partner's re-dealt hand keeps what the bot's re-deals keep from it (its pick
        # the blueprint's); told its true hand, the true pick stays
        if picks is None or what != "discards" or not has_unseen_pick(state, player):
            return dets
        return partner_picks([det.before_unseen_pick(player) for det in dets], picks)

    rollouts.determinizations = partly
    try:
        yield
    finally:
        rollouts.determinizations = real


def partly_true(state, player: int, rng, what: str):
    """A Cat Tree re-deal from ``player``'s view that keeps every card dealt so far (the
    partner's hand of this turn too, unless ``what`` is ``discards`` and it is unrevealed:
    then it is re-dealt with the rest and its pick, if made, drawn anew)."""
    from catzoo.games.cat_tree.options import CARDS_PER_TURN, DECK_SIZE
    from catzoo.games.cat_tree.state import KEEP, KEEP_BASE, deal_anew

    if state.is_terminal():
        return state.clone()
    deck, history = list(state.deck), list(state.history)
    hidden = list(range((state.turn + 1) * CARDS_PER_TURN, DECK_SIZE))
    if what == "discards" and state.phase == KEEP:
        slot = state.turn * CARDS_PER_TURN + 2 * (1 - player)
        hidden += [slot, slot + 1]
        at = state.unseen_pick(player)
        if at is not None:
            history[at] = KEEP_BASE + rng.randrange(2)
    deal_anew(deck, hidden, rng)
    det = type(state)._rebuilt(state.options, state.seed, [tuple(deck)], history)
    det.reseed(rng.getrandbits(64))
    return det


ONE_PLY = "sparta:determinizations=1,threshold=0"  # one re-deal is exact; no deviation is noise


class Deeper:
    """The clairvoyant search ``depth`` own decisions deep over the shipped blueprint, a
    policy for ``play_policies`` (call it inside ``clairvoyant()``): a move's value is its
    game played to the end on the true state with the player's next ``depth - 1``
    decisions that have a choice made by the one-ply clairvoyant search (the ``sparta``
    bot itself, ``ONE_PLY``), everything else the blueprint's. Ties keep the blueprint's
    move, as SPARTA does at threshold 0."""

    def __init__(self, depth: int):
        from catzoo.policies.registry import make_policy

        self.depth = depth
        self.net = make_policy("shipped", "cat_tree", 2)
        self.one_ply = make_policy(ONE_PLY, "cat_tree", 2)

    def reset(self, seed=None) -> None:
        self.one_ply.reset(seed)

    def act(self, observation, *, state, player) -> int:
        from catzoo.analysis.cat_tree.oracle import play_on

        legal = np.flatnonzero(observation["action_mask"])
        own = self.net.act(observation)
        if legal.size == 1:
            return own
        values = {}
        for a in legal.tolist():
            sim = state.clone()
            sim.apply(a)
            seat = _Searched(self.one_ply, self.net, self.depth - 1)
            seats = [seat if p == player else self.net for p in range(2)]
            values[a] = float(play_on(sim, seats).returns()[player])
        return own if values[own] >= max(values.values()) else max(values, key=values.get)


class _Searched:
    """The player's seat in a ``Deeper`` rollout: its next ``left`` decisions that have a
    choice by the one-ply search, the rest by the blueprint."""

    def __init__(self, one_ply, net, left: int):
        self.one_ply, self.net, self.left = one_ply, net, left

    def act(self, observation, *, state, player) -> int:
        if self.left and observation["action_mask"].sum() > 1:
            self.left -= 1
            return self.one_ply.act(observation, state=state, player=player)
        return self.net.act(observation)


def deeper_row(depth: int, deals: int | None) -> OracleReport:
    """``Deeper(depth)`` at both seats on the reference deals (clairvoyant), as a report of
    ``catzoo oracle``'s kind."""
    from catzoo.analysis.cat_tree.oracle import play_policies
    from catzoo.analysis.cat_tree.reference import load
    from catzoo.games.cat_tree import CatTreeOptions
    from catzoo.policies.search import threads

    shipped = load()[:deals]
    name = f"clairvoyant, {depth} own decision{'s' * (depth > 1)} deep"
    seats = [Deeper(depth), Deeper(depth)]
    with threads.limited(1), clairvoyant():
        scores = [play_policies(d.deck, seats, CatTreeOptions()).total for d in shipped]
    return OracleReport("reference deals against their best-known plans",
                        [d.score for d in shipped], [d.bound for d in shipped], {name: scores})


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=None, help="reference deals (default all)")
    parser.add_argument("--blueprint", action="append", default=None,
                        help="repeated: the rollout policy (default shipped)")
    parser.add_argument("--depth", type=int, nargs="*", default=[],
                        help="deeper clairvoyant searches over the shipped blueprint (2, 3, ...)")
    parser.add_argument("--told", nargs="*", default=[], choices=("partner", "discards"),
                        help="best:cat_tree told the partner's cards (or all but its unrevealed hand)")
    parser.add_argument("--seconds", type=float, default=0.25,
                        help="best:cat_tree's budget beside it (0: not played)")
    args = parser.parse_args(argv)
    if args.told and not args.seconds > 0:
        parser.error("--told plays best:cat_tree: give it --seconds above 0")
    if args.told:
        for what in args.told:
            with told(what):
                report = oracle_report([f"best:cat_tree:seconds={args.seconds:g}"], deals=args.deals)
            print(f"told the partner's cards{' but its unrevealed hand' * (what == 'discards')}:")
            print(report.table())
    else:
        specs = [f"{ONE_PLY},policy={b}" for b in (args.blueprint or ["shipped"])]
        with clairvoyant():
            report = oracle_report(specs, deals=args.deals)
        print("one-ply search told every hidden card (its re-deal the true game):")
        print(report.table())
    for depth in args.depth * (not args.told):
        print(f"\n{depth} own decision{'s' * (depth > 1)} searched, told every hidden card (shipped blueprint):")
        print(deeper_row(depth, args.deals).table())
    if args.seconds:
        honest = oracle_report([f"best:cat_tree:seconds={args.seconds:g}"], deals=args.deals)
        print("\nthe same deals, under the rules:")
        print(honest.table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
