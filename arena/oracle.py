"""Cat Tree policies as a percentage of the best score a deal allows.

Cat Tree is cooperative: there is no opponent to rate against, so a policy is measured
against the deal itself. Each policy plays every deal with itself as partner, and its
score is reported as a percentage of

* the best-known score of the shipped reference deals (``catzoo.analysis.cat_tree.reference``:
  plans found by the oracle's search and CP-SAT, each replayed when loaded), by default;
* or the oracle's score on fresh deals (``fresh``: the search of
  ``catzoo.analysis.cat_tree.oracle``, a few deals a second per process).

The deals' upper bound is reported beside it: how much better than the reference the
best possible game could at most be, and each policy's mean and largest CPU seconds a move.
As in the arena, the numeric libraries keep one thread and search budgets count the
thread's CPU time (``CATZOO_SEARCH_CLOCK=wall`` overrides), so ``best:cat_tree``'s figure
does not depend on the machine's load.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from catzoo.analysis.cat_tree.oracle import (
    percent_of_oracle,
    percents_of_oracle,
    play_policies,
)
from catzoo.games.cat_tree import CatTreeOptions

GAME = "cat_tree"


class OracleSetupError(ValueError):
    """A request the oracle report cannot serve; the message says why."""


@dataclass(frozen=True)
class OracleReport:
    deals: str  # what the deals were, in words
    reference: list[int]  # per deal: the best-known (or oracle) score
    bounds: list[int]
    scores: dict[str, list[int]]  # policy -> per-deal score
    cpu: dict[str, tuple[float, float]] = dataclasses.field(default_factory=dict)  # mean, max

    def percent(self, name: str) -> tuple[float, float]:
        """A policy's mean % of the best score over the deals, and the half-width of its
        95% interval (1.96 standard errors of the per-deal percentages)."""
        ratios = percents_of_oracle(self.scores[name], self.reference)
        half = 1.96 * np.std(ratios, ddof=1) / np.sqrt(len(ratios)) if len(ratios) > 1 else 0.0
        return float(np.mean(ratios)), float(half)

    def table(self) -> str:
        n = len(self.reference)
        reached = percent_of_oracle(self.reference, self.bounds)
        proven = sum(best >= bound for best, bound in zip(self.reference, self.bounds))
        head = (f"Cat Tree: {n} {self.deals}; best {np.mean(self.reference):.1f} points on "
                f"average, upper bound {np.mean(self.bounds):.1f} ({reached:.1f}% of it "
                f"reached; {proven} proven optimal)")
        lines = [head]
        width = max(len("policy"), *(len(name) for name in self.scores))
        lines.append(f"{'policy':<{width}}  mean score  % of best (95% interval)  % of bound"
                     "  CPU-s/move (max)")
        for name, scores in self.scores.items():
            mean, half = self.percent(name)
            best = f"{mean:.1f}% +- {half:.1f}"
            bound = f"{percent_of_oracle(scores, self.bounds):.1f}%"
            cpu = self.cpu.get(name)
            timing = f"{cpu[0]:.4f} ({cpu[1]:.3f})" if cpu else ""
            lines.append(f"{name:<{width}}  {np.mean(scores):10.1f}  {best:>24}  {bound:>10}"
                         f"  {timing:>16}")
        return "\n".join(lines)


def oracle_report(policies: list[str], deals: int | None = None, fresh: bool = False,
                  seed: int = 0, workers: int = 1) -> OracleReport:
    """Each policy spec (``catzoo.policies.registry.make_policy``) on the reference deals
    (the first ``deals`` of them, default all), or on ``deals`` fresh deals from ``seed``
    solved by the oracle's search in ``workers`` processes."""
    from catzoo.policies.registry import make_policy

    options = CatTreeOptions()
    if fresh:
        from catzoo.analysis.cat_tree.oracle import deals as fresh_deals
        from catzoo.analysis.cat_tree.oracle import solve_all

        if not deals or deals < 1:
            raise OracleSetupError("fresh deals need a count: --deals N")
        decks = fresh_deals(deals, seed=seed, options=options)
        solved = list(solve_all(decks, options, workers=workers))
        reference = [r.score for r in solved]
        bounds = [r.upper_bound for r in solved]
        what = f"fresh deals (seeds {seed}-{seed + deals - 1}) against the oracle's search"
    else:
        from catzoo.analysis.cat_tree.reference import load

        shipped = load()
        if deals is not None:
            if not 1 <= deals <= len(shipped):
                raise OracleSetupError(
                    f"--deals {deals}: the reference set has {len(shipped)} deals "
                    "(use --fresh for more)")
            shipped = shipped[:deals]
        decks = [d.deck for d in shipped]
        reference = [d.score for d in shipped]
        bounds = [d.bound for d in shipped]
        what = "reference deals against their best-known plans"
    from catzoo.arena.runner import TimedPolicy, arena_clock
    from catzoo.policies.search import budget, threads

    scores, cpu = {}, {}
    with threads.limited(), budget.use_clock(arena_clock()):
        for spec in policies:
            # a checkpoint must have been trained on the default options the deals use
            seats = [TimedPolicy(make_policy(spec, GAME, 2, env_options={}), spec, p)
                     for p in range(2)]
            scores[spec] = []
            for i, deck in enumerate(decks):
                for p, seat in enumerate(seats):
                    seat.reset(2 * i + p)  # each deal's play depends on the deal alone
                scores[spec].append(play_policies(deck, seats, options).total)
            moves = sum(s.moves for s in seats)
            cpu[spec] = (sum(s.cpu_seconds for s in seats) / max(moves, 1),
                         max(s.longest_cpu for s in seats))
    return OracleReport(what, reference, bounds, scores, cpu)
