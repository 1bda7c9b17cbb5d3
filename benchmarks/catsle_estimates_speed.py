"""The CATsle Builders heuristic's estimates in C against the numpy formulas they replaced,
in the same run: rows per CPU-second of the estimates alone, and what that buys ``best``'s
search at 3 players (``pimc:playouts=4`` over the network best.json names, whose input
features are these estimates): re-deals a move within ``--seconds`` of CPU.

    python benchmarks/catsle_estimates_speed.py [--seconds 0.25] [--positions 40]

"before" swaps the numpy formulas (tests/catsle_estimates_reference.py) in for the C
kernel; both give the same estimates (tests/test_catsle_estimates.py). One thread for the
numeric libraries, as the arena and the tables use; the search counts CPU time, as in the
arena. Positions are the decisions with a choice in seeded random games, the same ones for
both. Nothing here asserts the figures.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/ (the reference)

from catzoo.games.catsle_builders import CatsleBuildersState
from catzoo.policies import best
from catzoo.policies.heuristics import catsle_builders
from catzoo.policies.heuristics.catsle_builders import CatsleBuildersHeuristic
from catzoo.policies.registry import make_policy
from catzoo.policies.search import budget
from tests import catsle_estimates_reference as reference


@contextmanager
def numpy_estimates():
    compiled = catsle_builders.estimates
    catsle_builders.estimates = reference.estimates
    try:
        yield
    finally:
        catsle_builders.estimates = compiled


def positions(num_players: int, count: int, seed: int) -> list[tuple[CatsleBuildersState, int]]:
    rng, out, game = random.Random(seed), [], 0
    while len(out) < count:
        state = CatsleBuildersState.new(num_players=num_players, seed=seed + game)
        game += 1
        while not state.is_terminal() and len(out) < count:
            legal = state.legal_actions()
            if len(legal) > 1 and rng.random() < 0.1:
                out.append((state.clone(), state.current_player))
            state.apply(rng.choice(legal))
    return out


def rows_per_second(num_players: int, batch: int, repeats: int) -> tuple[float, float]:
    bot = CatsleBuildersHeuristic(num_players)
    obs = np.array([s.observation(p) for s, p in positions(num_players, batch, 1)])
    view = bot.layout.decode(obs)
    rates = []
    for fn in (reference.estimates, catsle_builders.estimates):
        start = time.process_time()
        for _ in range(repeats):
            fn(view, num_players, bot.num_suits, bot.takes)
        rates.append(batch * repeats / (time.process_time() - start))
    return rates[0], rates[1]


def redeals_per_move(seconds: float, count: int) -> list[float]:
    """Mean re-deals a move of best's 3-player search, with each kernel."""
    record = best.read("catsle_builders", 3)
    spec = best.resolved_spec(record, seconds, best.network_dir(record))
    found = positions(3, count, 1000)
    out = []
    for numpy in (True, False):
        bot = make_policy(spec, "catsle_builders", 3, seed=0)
        done = []
        with budget.use_clock("cpu"), (numpy_estimates() if numpy else nullcontext()):
            for state, p in found:
                bot.act({"observation": state.observation(p), "action_mask": state.legal_mask()},
                        state=state, player=p)
                done.append(bot.last_determinizations)
        out.append(float(np.mean(done)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=0.25)
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    with threadpool_limits(1):
        print("estimates, rows per CPU-second (batches of 64 observations)")
        print(f"{'players':>7} {'numpy':>10} {'C':>10} {'ratio':>6}")
        for n in (3, 4, 5):
            before, after = rows_per_second(n, 64, 200)
            print(f"{n:>7} {before:>10,.0f} {after:>10,.0f} {after / before:>5.1f}x")
        before, after = redeals_per_move(args.seconds, args.positions)
        print(f"\nbest's search, CATsle Builders 3 players, {args.seconds} CPU-s a move, "
              f"{args.positions} positions: re-deals a move")
        print(f"{'numpy':>10} {'C':>10} {'ratio':>6}")
        print(f"{before:>10.1f} {after:>10.1f} {after / before:>5.2f}x")


if __name__ == "__main__":
    main()
