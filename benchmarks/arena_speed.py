"""Arena speed: games/s with 1 and 2 workers (target: 2 workers >= 1.8x one), and the
ISMCTS bot's time per move at its default setting, in every installed card game.

    python benchmarks/arena_speed.py [--game cat_in_the_box] [--games 400] [--moves 20]

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


def arena_speed(game: str, games: int) -> None:
    rates = {}
    for workers in (1, 2):
        result = run_arena(game, ["random", "heuristic"], games=games, workers=workers, seed=0)
        rates[workers] = result.games_per_second
        print(f"arena {game}: {len(result.records)} games, {workers} worker(s): "
              f"{rates[workers]:.1f} games/s")
    print(f"speed-up with 2 workers: {rates[2] / rates[1]:.2f}x (target >= 1.8x)")


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
    args = parser.parse_args()
    arena_speed(args.game, args.games)
    for game in GAMES:
        if game != "ledges":
            ismcts_time(game, args.moves)


if __name__ == "__main__":
    main()
