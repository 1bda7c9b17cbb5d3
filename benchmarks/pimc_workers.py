"""A pimc table with ``--workers 1`` and ``--workers 2`` in one run: games per second, and
pimc's CPU-s per move in each against the lone process's (issue 41's bars: 2 workers at
least 1.7x the games per second of one, CPU-s per move within 20% of one's).

    python benchmarks/pimc_workers.py [--games 12] [--unsized]

The table is issue 41's example: ``pimc:determinizations=16,playouts=4`` against
``ismcts:iterations=200`` at CATsle Builders, 3 players (fixed work a move, so the games
are the same at any worker count). Every arena process holds its thread pools at one thread
(catzoo.policies.search.threads); ``--unsized`` adds 2 workers with the pools as the
libraries start them (``CATZOO_THREADS`` = the machine's cores), the oversubscription the
sizing avoids. The games per second depend on what else the machine runs (a second core
busy elsewhere caps the speed-up below 2x); the CPU-s per move do much less. Nothing here
asserts the figures.
"""

from __future__ import annotations

import argparse
import os

from catzoo.arena import run_arena
from catzoo.policies.search import threads

PIMC = "pimc:determinizations=16,playouts=4"
OPPONENT = "ismcts:iterations=200"


def cpu_per_move(result, policy: int = 0) -> float:
    cpu = moves = 0.0
    for rec in result.records:
        for seat, p in enumerate(rec["seats"]):
            if p == policy:
                cpu += rec["think_cpu"][seat]
                moves += rec["moves"][seat]
    return cpu / moves


def table(args, workers: int) -> tuple[float, float]:
    result = run_arena(args.game, [args.policy, args.opponent], games=args.games,
                       num_players=args.players, workers=workers, seed=args.seed,
                       progress=False)
    return result.games_per_second, cpu_per_move(result)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="catsle_builders")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--policy", default=PIMC)
    parser.add_argument("--opponent", default=OPPONENT)
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seed", type=int, default=41000000)
    parser.add_argument("--unsized", action="store_true",
                        help="also 2 workers with thread pools of the machine's cores")
    args = parser.parse_args(argv)
    print(f"{args.policy} vs {args.opponent}, {args.game} {args.players} players, "
          f"{args.games} games (rounded to whole rotations), seed {args.seed}; "
          f"load average {os.getloadavg()[0]:.1f}")
    rows = {1: table(args, 1), 2: table(args, 2)}
    if args.unsized:
        os.environ[threads.ENV] = str(os.cpu_count() or 2)
        try:
            rows["2, unsized pools"] = table(args, 2)
        finally:
            del os.environ[threads.ENV]
    lone_rate, lone_cpu = rows[1]
    for workers, (rate, cpu) in rows.items():
        print(f"workers {workers}: {rate:.3f} games/s ({rate / lone_rate:.2f}x one), pimc "
              f"{cpu:.4f} CPU-s a move ({cpu / lone_cpu:.2f}x one's)")
    rate, cpu = rows[2]
    print(f"2 workers: {rate / lone_rate:.2f}x the games/s (bar >= 1.7x: "
          f"{'met' if rate >= 1.7 * lone_rate else 'missed'}); CPU-s a move "
          f"{cpu / lone_cpu - 1:+.0%} (bar within 20%: "
          f"{'met' if abs(cpu / lone_cpu - 1) <= 0.2 else 'missed'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
