"""The Cat Tree oracle on a fixed set of deals: its speed, and the bots as a percentage of it.

For each deal (the decks of games seeded ``--seed``, ``--seed + 1``, ...) it runs the
oracle (``catzoo.analysis.cat_tree.oracle.solve``: the best plan its search finds knowing
every card, and an upper bound), then plays the heuristic and the random bot at both
seats on the same deal, and prints:

* the oracle's deals/s, in ``--workers`` processes (default: one per core) and per
  process (the heuristic's own game is part of each solve);
* mean scores: oracle, upper bound, heuristic, random;
* the heuristic and random as "% of oracle" (mean over deals of bot / oracle score), and
  the oracle as "% of bound" (how close the search comes to what is provably possible).

With ``--program-seconds S`` each deal's plan is then improved by CP-SAT for S seconds
(``catzoo.analysis.cat_tree.program``, the ``oracle`` extra), and it also prints how much
the oracle gained over its search alone.

Run: ``python benchmarks/cat_tree_oracle.py [--deals N] [--seed S] [--workers K] [--beam B]
[--width W] [--refine TURN,BEAM,WIDTH] [--program-seconds S]`` (the effort: see ``solve``).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from catzoo.analysis.cat_tree.oracle import (
    REFINE,
    deals,
    percent_of_oracle,
    play_policies,
    solve_all,
)
from catzoo.games.cat_tree import CatTreeOptions
from catzoo.policies.random_policy import RandomPolicy


def _refine(text: str) -> tuple[int, int, int]:
    try:
        turn, beam, width = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"--refine wants TURN,BEAM,WIDTH (three integers), got {text!r}") from None
    return turn, beam, width


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes solving deals (default: one per core)")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--width", type=int, default=2)
    parser.add_argument("--refine", type=_refine, default=REFINE,
                        help="the second pass: TURN,BEAM,WIDTH (default %(default)s)")
    parser.add_argument("--program-seconds", type=float, default=0.0,
                        help="CP-SAT seconds per deal after the search (default: none)")
    args = parser.parse_args(argv)

    options = CatTreeOptions()
    decks = deals(args.deals, seed=args.seed, options=options)
    oracle, bound, heuristic, random_, searched = [], [], [], [], []
    start = time.perf_counter()
    results = solve_all(decks, options, workers=args.workers, beam=args.beam,
                        width=args.width, refine=args.refine,
                        program_seconds=args.program_seconds)
    for i, result in enumerate(results):
        oracle.append(result.score)
        bound.append(result.upper_bound)
        heuristic.append(result.heuristic_score)
        searched.append(result.search_score)
        if (i + 1) % 100 == 0:
            rate = (i + 1) / (time.perf_counter() - start)
            print(f"  {i + 1} deals, {rate:.2f} deals/s", flush=True)
    elapsed = time.perf_counter() - start
    for i, deck in enumerate(decks):
        bots = [RandomPolicy(2 * i), RandomPolicy(2 * i + 1)]
        random_.append(play_policies(deck, bots, options).total)

    exact = sum(o == b for o, b in zip(oracle, bound))
    workers = max(1, args.workers)
    print(f"deals: {len(decks)}  oracle: {len(decks) / elapsed:.2f} deals/s in {workers} "
          f"process{'es' if workers > 1 else ''}, {len(decks) / elapsed / workers:.2f} per "
          f"process ({elapsed:.0f} s; beam {args.beam}, width {args.width}, "
          f"second pass {args.refine}"
          + (f", CP-SAT {args.program_seconds:g} s a deal)" if args.program_seconds else ")"))
    print(f"mean score   oracle {np.mean(oracle):6.1f}   upper bound {np.mean(bound):6.1f}   "
          f"heuristic {np.mean(heuristic):6.1f}   random {np.mean(random_):6.1f}")
    print(f"heuristic: {percent_of_oracle(heuristic, oracle):5.1f}% of oracle   "
          f"random: {percent_of_oracle(random_, oracle):5.1f}% of oracle   "
          f"oracle: {percent_of_oracle(oracle, bound):5.1f}% of bound "
          f"(proven optimal on {exact} deals)")
    if args.program_seconds:
        gains = [o - s for o, s in zip(oracle, searched)]
        print(f"CP-SAT raised the search's plan on {sum(g > 0 for g in gains)} of {len(decks)} "
              f"deals, by {np.mean(gains):.1f} points on average (the search alone: "
              f"{percent_of_oracle(searched, oracle):.1f}% of this oracle)")


if __name__ == "__main__":
    main()
