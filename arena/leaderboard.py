"""``catzoo arena --all``: rebuild docs/leaderboard.md for every installed game from the
bots and the checkpoints shipped under checkpoints/<game>/, with the plots beside it."""

from __future__ import annotations

import json
import os

from catzoo.arena.api import ArenaPolicyError, run_arena
from catzoo.games.registry import GAMES
from catzoo.policies.registry import HEURISTICS, UnknownPolicyError, make_policy

# The search bot that suits each game; card games get information-set MCTS, at a budget
# that keeps the whole leaderboard within minutes on 2 cores.
SEARCH_BOT = {"ledges": "planner"}
LEADERBOARD_SEARCH = "ismcts:iterations=50"


def default_policies(game: str) -> list[str]:
    return ["random", *sorted(HEURISTICS.get(game, {})), SEARCH_BOT.get(game, LEADERBOARD_SEARCH)]


def table_size(game: str, root: str = "checkpoints") -> int:
    """The player count a game's table is played at: its shipped checkpoint's (a policy
    plays only the count it was trained for), else the game's default."""
    meta = os.path.join(root, game, "policy.json")
    if os.path.exists(meta):
        try:
            with open(meta) as f:
                n = json.load(f)["num_players"]
        except (OSError, ValueError, KeyError, TypeError):
            n = None  # an unreadable file: shipped_checkpoints reports why
        if isinstance(n, int) and n in GAMES[game].players:
            return n
    return GAMES[game].default_players


def shipped_checkpoints(game: str, root: str = "checkpoints",
                        num_players: int | None = None) -> tuple[list[str], list[str]]:
    """Loadable checkpoint directories under root/game, and notes on those skipped."""
    folder = os.path.join(root, game)
    if not os.path.isdir(folder):
        return [], []
    n = GAMES[game].default_players if num_players is None else num_players
    found, skipped = [], []
    # The game's folder is itself a checkpoint when it holds policy.json; any
    # sub-folders are further checkpoints.
    candidates = [folder] if os.path.exists(os.path.join(folder, "policy.json")) else []
    candidates += [os.path.join(folder, e) for e in sorted(os.listdir(folder))
                   if os.path.isdir(os.path.join(folder, e))]
    for path in candidates:
        try:
            make_policy(path, game, n)
        except UnknownPolicyError as err:
            skipped.append(f"`{path}`: {err}")
        else:
            found.append(path)
    return found, skipped


def rebuild(out: str = "docs/leaderboard.md", games: int = 48, workers: int = 2, seed: int = 0,
            checkpoints: str = "checkpoints", progress: bool = True, log=print) -> str:
    folder = os.path.dirname(out) or "."
    plots = os.path.join(folder, "leaderboard")
    lines = ["# Leaderboard", "",
             ("Rebuilt by `catzoo arena --all` from the bots and the checkpoints shipped under "
              f"`{checkpoints}/<game>/`: {games} games per game at least (rounded up to whole "
              f"seat rotations), seed {seed}, at the shipped checkpoint's player count (the "
              "game's default when none is shipped). Intervals are 95%; see "
              "[arena.md](arena.md) for how games are seated and rated."), ""]
    for game, info in GAMES.items():
        n = table_size(game, checkpoints)
        found, skipped = shipped_checkpoints(game, checkpoints, n)
        policies = default_policies(game) + found
        log(f"{game} ({n} players): {', '.join(policies)}")
        try:
            result = run_arena(game, policies, games=games, num_players=n, workers=workers,
                               seed=seed, progress=progress)
        except ArenaPolicyError as err:
            result = err.partial
            lines += [f"**Stopped early:** {str(err).splitlines()[0]}", ""]
        paths = result.save(plots, stem=game)
        lines += [f"## {info.title} (`{game}`)", "", "```", result.table(), "```", ""]
        if "png" in paths:
            lines += [f"![{game}](leaderboard/{game}.png)", ""]
        lines += [f"Data: [JSON](leaderboard/{game}.json), [CSV](leaderboard/{game}.csv).", ""]
        if not found:
            lines += [f"No checkpoint shipped under `{checkpoints}/{game}/`.", ""]
        lines += [f"Skipped {s}" for s in skipped] + ([""] if skipped else [])
    os.makedirs(folder, exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines))
    return out
