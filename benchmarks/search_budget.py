"""Does the time budget hold? Whole games of each card game with ``best`` (1 s a move, as at
the tables) and ``ismcts:seconds=0.2`` seated, every move timed: the mean and the largest
move of each, against the budget plus 20% (issue 41's bar).

    python benchmarks/search_budget.py [--games 1] [--best-seconds 1] [--clock wall|cpu]

The bots count their budgets on ``--clock`` (wall, as at the tables, by default; cpu, as in
the arena); every move's wall and CPU time is printed either way. The other seats play the
heuristic. On a loaded machine wall time stretches the one step a bot may start before its
deadline; CPU time does not. One thread for the numeric libraries, as the tables use.
Nothing here asserts the figures.
"""

from __future__ import annotations

import argparse
import time

from catzoo.arena.runner import TimedPolicy
from catzoo.games.registry import GAMES
from catzoo.policies.match import play_match
from catzoo.policies.registry import make_policy
from catzoo.policies.search import budget, threads

CARD_GAMES = ["cat_in_the_box", "lunar", "catsle_builders", "cat_tree"]
SLACK = 1.2  # the bar: no move over the budget plus 20%


def timed_games(game: str, specs: list[str], games: int, seed: int) -> list[TimedPolicy]:
    n = GAMES[game].default_players
    seated = [TimedPolicy(make_policy(specs[i] if i < len(specs) else "heuristic", game, n,
                                      seed=seed + i), specs[i] if i < len(specs) else "heuristic", i)
              for i in range(n)]
    longest = dict.fromkeys(range(n), (0.0, 0.0))
    for g in range(games):
        for s in seated:
            s.longest = s.longest_cpu = 0.0
        play_match(game, seated, seed=seed + 1000 * g)
        for i, s in enumerate(seated):
            longest[i] = (max(longest[i][0], s.longest), max(longest[i][1], s.longest_cpu))
    for i, s in enumerate(seated):
        s.longest, s.longest_cpu = longest[i]
    return seated


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="whole games per game (default 1)")
    parser.add_argument("--best-seconds", type=float, default=1.0)
    parser.add_argument("--ismcts-seconds", type=float, default=0.2)
    parser.add_argument("--clock", choices=sorted(budget.CLOCKS), default="wall")
    parser.add_argument("--game", action="append", choices=CARD_GAMES,
                        help="only these games (repeatable; default every card game)")
    parser.add_argument("--seed", type=int, default=41000000)
    args = parser.parse_args(argv)
    bots = {f"best:seconds={args.best_seconds:g}": args.best_seconds,
            f"ismcts:seconds={args.ismcts_seconds:g}": args.ismcts_seconds}
    print(f"budgets on the {args.clock} clock; {args.games} whole game(s) each; one thread")
    print(f"{'game':<16} {'bot':<22} {'moves':>5} {'mean s':>7} {'max s':>7} "
          f"{'mean CPU-s':>10} {'max CPU-s':>9}  max/budget")
    held = True
    with threads.limited(1), budget.use_clock(args.clock):
        for game in args.game or CARD_GAMES:
            start = time.perf_counter()
            seated = timed_games(game, list(bots), args.games, args.seed)
            for s in seated[:len(bots)]:
                limit = bots[s.name]
                worst = s.longest if args.clock == "wall" else s.longest_cpu
                ok = worst <= SLACK * limit
                held &= ok
                print(f"{game:<16} {s.name:<22} {s.moves:>5} {s.seconds / s.moves:>7.3f} "
                      f"{s.longest:>7.3f} {s.cpu_seconds / s.moves:>10.3f} "
                      f"{s.longest_cpu:>9.3f}  {worst / limit:.2f} "
                      f"({'held' if ok else 'OVER'} the +20% bar)")
            print(f"  ({game}: {time.perf_counter() - start:.0f} s)")
    print("every move within the budget plus 20%" if held else "some move went over the bar")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
