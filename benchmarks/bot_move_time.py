"""How long each bot the web menu offers takes per move, per game, beside its budget.

Every seat of a few seeded games (each game at its default player count; Ledges limited to
a few rounds) is played by the bot as ``catzoo serve`` builds it (``Catalogue.resolve``:
``ismcts`` with its iterations, ``Catalogue.make_bot``: with the server's per-move time
budget), moves timed one by one in wall time.

Run: ``python benchmarks/bot_move_time.py [--games 2] [--seconds 40] [--bot-seconds 2]``.
The budget binds the search bots; the others do a fixed amount of work a move.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import time


def main(argv=None) -> int:
    from catzoo.games.registry import GAMES
    from catzoo.play import Table
    from catzoo.web.catalogue import MOVE_SECONDS, Catalogue

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2, help="games per game and bot")
    parser.add_argument("--seconds", type=float, default=40.0,
                        help="at most this long per game and bot")
    parser.add_argument("--bot-seconds", type=float, default=MOVE_SECONDS)
    args = parser.parse_args(argv)
    catalogue = Catalogue([], shipped=False, move_seconds=args.bot_seconds)
    print(f"search bots' budget: {args.bot_seconds:g} s a move")
    print(f"{'game':<16} {'bot':<10} {'moves':>6} {'mean s':>7} {'worst s':>8}  menu spec")
    for game, info in GAMES.items():
        for bot in catalogue.bots(game):
            spec = catalogue.resolve(game, info.default_players, bot)
            times: list[float] = []
            start = time.perf_counter()
            for seed in range(args.games):
                options = {"max_rounds": 3} if game == "ledges" else {}
                table = Table(game, [spec] * info.default_players, seed=seed, options=options,
                              bot_factory=functools.partial(catalogue.make_bot,
                                                            options=options))
                while not table.over and time.perf_counter() - start < args.seconds:
                    t = time.perf_counter()
                    action = table.bot_action()
                    times.append(time.perf_counter() - t)
                    table.apply(action)
            print(f"{game:<16} {bot:<10} {len(times):>6} {statistics.mean(times):>7.3f} "
                  f"{max(times):>8.3f}  {spec}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
