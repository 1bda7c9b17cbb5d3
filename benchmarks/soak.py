"""Soak: many seeded random games of every game and player count, each one saved as a
replay, loaded back (every field checked, as ``catzoo replay`` does; Ledges through the
engine's checked ``replay`` only) and replayed; a game counts as good when no exception
was raised and the replay rebuilt it exactly (the same actions, chance outcomes, scores
and full state vector, and for Ledges every pose).

Run in the background, it logs each finished chunk::

    nohup python benchmarks/soak.py --workers 2 > soak.log 2>&1 &

Defaults: 20,000 games per card game and player count, 100 per Ledges player count
(``--games``, ``--ledges-games``). The table at the end is the figure to quote; any
failure is printed with its game, player count and seed, so it can be replayed alone
(``--only GAME:N --first SEED --games 1``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
import time
import traceback

import numpy as np

CHUNK = {"ledges": 5}
DEFAULT_CHUNK = 500


def play_one(game: str, n: int, seed: int) -> str | None:
    """None if the game and its replay are good, else what went wrong."""
    from catzoo.games.registry import get_game
    from catzoo.play.replay import Replay, parse_replay

    try:
        cls = get_game(game).engine_class()
        state = cls.new(num_players=n, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
        text = Replay.from_state(state, [f"P{i}" for i in range(n)]).to_json()
        if game == "ledges":
            # The replay through the engine's checked path (every field of the log) only:
            # parse_replay would simulate the whole game once more to compare the scores.
            again = cls.replay(json.loads(text)["log"])
        else:
            loaded = parse_replay(text, f"{game}-{n}p-{seed}")
            if loaded.to_json() != text:
                return "the loaded replay does not save to the same bytes"
            again = loaded.state()
        problems = []
        if again.history != state.history:
            problems.append("actions")
        if json.dumps(again.action_log()) != json.dumps(state.action_log()):
            problems.append("log")
        if list(again.scores()) != list(state.scores()):
            problems.append("scores")
        if not np.array_equal(again.state_vector(), state.state_vector()):
            problems.append("state vector")
        if game == "ledges" and not np.array_equal(again.pose, state.pose):
            problems.append("poses")
        return f"the replay differs: {', '.join(problems)}" if problems else None
    except Exception:  # noqa: BLE001 - every failure is reported, with its seed
        return traceback.format_exc(limit=6)


def run_chunk(task: tuple[str, int, int, int]) -> tuple[str, int, int, float, list]:
    game, n, first, count = task
    t = time.process_time()
    failures = []
    for seed in range(first, first + count):
        problem = play_one(game, n, seed)
        if problem:
            failures.append((seed, problem))
    return game, n, count, time.process_time() - t, failures


def main(argv=None) -> int:
    from catzoo.games.registry import GAMES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="per card game and count")
    parser.add_argument("--ledges-games", type=int, default=100, help="per Ledges count")
    parser.add_argument("--first", type=int, default=0, help="first seed")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", action="append", default=[], metavar="GAME[:N]")
    args = parser.parse_args(argv)
    cases = [(g, n) for g, info in GAMES.items() for n in info.players]
    if args.only:
        wanted = [tuple(o.split(":")) for o in args.only]
        cases = [(g, n) for g, n in cases
                 if any(w[0] == g and (len(w) == 1 or int(w[1]) == n) for w in wanted)]
    tasks = []
    for game, n in cases:
        total = args.ledges_games if game == "ledges" else args.games
        step = CHUNK.get(game, DEFAULT_CHUNK)
        for first in range(args.first, args.first + total, step):
            tasks.append((game, n, first, min(step, args.first + total - first)))
    # The slow chunks first, so the workers finish together.
    tasks.sort(key=lambda t: t[0] != "ledges")
    done: dict = {case: [0, 0.0, []] for case in cases}
    start = time.time()
    print(f"soak: {len(cases)} cases, {sum(t[3] for t in tasks):,} games, "
          f"{args.workers} worker(s)", flush=True)
    with multiprocessing.Pool(args.workers) as pool:
        for game, n, count, cpu, failures in pool.imap_unordered(run_chunk, tasks):
            row = done[(game, n)]
            row[0] += count
            row[1] += cpu
            row[2] += failures
            print(f"[{time.time() - start:7.0f} s] {game} {n}p: {row[0]:,} games, "
                  f"{len(row[2])} failure(s)", flush=True)
            for seed, problem in failures:
                print(f"FAILURE {game} {n}p seed {seed}: {problem}", flush=True)
    print(f"\n{'game':<16} {'players':>7} {'games':>8} {'failures':>8} {'cpu ms/game':>11}")
    bad = 0
    for (game, n), (count, cpu, failures) in done.items():
        bad += len(failures)
        print(f"{game:<16} {n:>7} {count:>8,} {len(failures):>8} {1000 * cpu / max(count, 1):>11.1f}")
    print(f"\n{sum(r[0] for r in done.values()):,} games in {time.time() - start:.0f} s: "
          + ("no exception, every replay identical" if not bad else f"{bad} FAILURES"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
