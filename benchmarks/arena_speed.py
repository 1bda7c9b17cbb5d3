"""Arena speed: games/s with 1 and 2 workers (target: 2 workers >= 1.8x one), and the
ISMCTS bot's time per move at its default setting, in every installed card game.

    python benchmarks/arena_speed.py [--game cat_in_the_box] [--games 400] [--moves 20]
    python benchmarks/arena_speed.py --ray [--tournament-games 16]

``--ray`` adds the Ray rows: games/s on a local Ray instance of 2 CPUs next to
``--workers 2`` (target: at least 90% of it), the first arena on a fresh instance (its
workers import CatZoo) and a second one, with the instance's start-up time apart, then
both measured in turns ``--repeat`` times (medians: on a shared machine the load changes
between two runs more than the backends differ); and the
README's ISMCTS tournament (random, heuristic, ismcts:iterations=200, the shipped
checkpoint; 4 players) timed both ways on ``--tournament-games`` games (0: skip), with the
README's 2,000 games extrapolated from it.

Figures depend on the machine and on what else runs on it; nothing here asserts them.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from catzoo.arena import run_arena
from catzoo.games.registry import GAMES
from catzoo.policies.search import ISMCTSPolicy


def arena_speed(game: str, games: int) -> dict:
    rates = {}
    for workers in (1, 2):
        result = run_arena(game, ["random", "heuristic"], games=games, workers=workers, seed=0)
        rates[workers] = result.games_per_second
        print(f"arena {game}: {len(result.records)} games, {workers} worker(s): "
              f"{rates[workers]:.1f} games/s")
    print(f"speed-up with 2 workers: {rates[2] / rates[1]:.2f}x (target >= 1.8x)")
    return rates


README_TOURNAMENT = ["random", "heuristic", "ismcts:iterations=200", "shipped"]


def ray_speed(game: str, games: int, rates: dict, tournament_games: int, repeat: int) -> None:
    import ray

    from catzoo.arena.ray_backend import init_local

    start = time.perf_counter()
    init_local(ray, num_cpus=2)
    print(f"local Ray instance of 2 CPUs started in {time.perf_counter() - start:.1f} s")
    try:
        for label in ("first arena, fresh workers", "second arena"):
            result = run_arena(game, ["random", "heuristic"], games=games, seed=0, backend="ray")
            rate = result.games_per_second
            print(f"arena {game}: {len(result.records)} games, Ray 2 CPUs ({label}): "
                  f"{rate:.1f} games/s = {rate / rates[2]:.0%} of 2 workers (target >= 90%)")
        if repeat:
            # Taken in turns, so that a change in the machine's load hits both alike.
            got: dict[str, list[float]] = {"2 workers": [], "Ray 2 CPUs": []}
            for _ in range(repeat):
                for label, kwargs in (("2 workers", {"workers": 2}), ("Ray 2 CPUs",
                                                                       {"backend": "ray"})):
                    got[label].append(run_arena(game, ["random", "heuristic"], games=games,
                                                seed=0, **kwargs).games_per_second)
            med = {k: statistics.median(v) for k, v in got.items()}
            print(f"in turns, {repeat} each: median games/s 2 workers {med['2 workers']:.1f}, "
                  f"Ray 2 CPUs {med['Ray 2 CPUs']:.1f} = "
                  f"{med['Ray 2 CPUs'] / med['2 workers']:.0%} (target >= 90%); all: "
                  + "; ".join(f"{k} " + ", ".join(f"{x:.0f}" for x in v) for k, v in got.items()))
        if tournament_games:
            tournament(tournament_games)
    finally:
        ray.shutdown()


def tournament(games: int) -> None:
    for label, kwargs in (("2 workers", {"workers": 2}), ("Ray 2 CPUs", {"backend": "ray"})):
        result = run_arena("cat_in_the_box", README_TOURNAMENT, games=games, num_players=4,
                           seed=0, **kwargs)
        n = len(result.records)
        hours = 2000 / result.games_per_second / 3600
        print(f"README's ISMCTS tournament, {label}: {n} games in {result.seconds:.0f} s "
              f"({result.games_per_second:.3f} games/s); 2000 games would take ~{hours:.1f} h")


def ismcts_time(game: str, moves: int) -> None:
    info = GAMES[game]
    cls = info.engine_class()
    rng = random.Random(0)
    bot = ISMCTSPolicy(seed=0)
    times = []
    k = 0
    while len(times) < moves:
        state = cls.new(seed=k, num_players=info.default_players)
        k += 1
        while not state.is_terminal() and len(times) < moves:
            p = state.current_player
            if len(state.legal_actions()) > 1 and rng.random() < 0.3:
                obs = {"observation": state.observation(p), "action_mask": state.legal_mask()}
                start = time.perf_counter()
                bot.act(obs, state=state, player=p)
                times.append(time.perf_counter() - start)
            state.apply(rng.choice(state.legal_actions()))
    print(f"ismcts (default {bot.iterations} iterations) in {game}, {info.default_players} "
          f"players: {statistics.mean(times) * 1000:.0f} ms/move mean, "
          f"{statistics.median(times) * 1000:.0f} median, {max(times) * 1000:.0f} max "
          f"over {len(times)} decisions")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="cat_in_the_box")
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--moves", type=int, default=20, help="ISMCTS decisions timed per game")
    parser.add_argument("--ray", action="store_true", help="add the Ray rows (needs Ray)")
    parser.add_argument("--repeat", type=int, default=5,
                        help="with --ray: 2 workers and Ray measured in turns this many times")
    parser.add_argument("--tournament-games", type=int, default=16,
                        help="games of the README's ISMCTS tournament timed with --ray (0: skip)")
    args = parser.parse_args()
    rates = arena_speed(args.game, args.games)
    if args.ray:
        ray_speed(args.game, args.games, rates, args.tournament_games, args.repeat)
    for game in GAMES:
        if game != "ledges":
            ismcts_time(game, args.moves)


if __name__ == "__main__":
    main()
