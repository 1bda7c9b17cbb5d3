"""Records the moves every shipped policy plays in seeded games (tests/data/shipped_moves.json),
which tests/test_shipped_moves.py holds the code to: a change of the engines, the actor or
the loading path that changes a single move of a shipped network fails that test.

    python tests/data/shipped_moves.py        # after shipping new weights: records them again

Each record names the weights it was played with (their sha256), so a retrained network
is told apart from a changed code path.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
FILE = HERE / "shipped_moves.json"
SEEDS = (11, 12)
# Ledges simulates physics every move: its games are cut after this many moves.
MOVE_LIMIT = {"ledges": 12}


def shipped_games_and_counts() -> list[tuple[str, int]]:
    from catzoo.training.checkpoint import shipped_counts, shipped_games

    return [(game, n) for game in shipped_games() for n in shipped_counts(game)]


def play(game: str, num_players: int, seed: int) -> dict:
    """The shipped policy at every seat of one seeded game: its moves (up to the limit)."""
    from catzoo.games.registry import get_game
    from catzoo.policies.registry import make_policy

    info = get_game(game)
    env = info.load_env_module().env(num_players=num_players, illegal_action="raise")
    env.reset(seed=seed)
    seats = [make_policy("shipped", game, num_players, seed=seed * 10 + i)
             for i in range(num_players)]
    raw = env.unwrapped
    moves: list[int] = []
    limit = MOVE_LIMIT.get(game)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        if limit is not None and len(moves) >= limit:
            break
        player = raw.agent_name_mapping[agent]
        action = int(seats[player].act(obs, state=raw.game, player=player))
        moves.append(action)
        env.step(action)
    return {"game": game, "num_players": num_players, "seed": seed,
            "weights_sha256": seats[0].meta["weights_sha256"], "moves": moves}


def record() -> list[dict]:
    return [play(game, n, seed) for game, n in shipped_games_and_counts() for seed in SEEDS]


if __name__ == "__main__":
    records = record()
    FILE.write_text("[\n" + ",\n".join(json.dumps(r) for r in records) + "\n]\n")
    print(f"{len(records)} games recorded in {FILE}", file=sys.stderr)
