"""``catzoo arena --all``: rebuild docs/leaderboard.md for every installed game from the
bots, the policies shipped with CatZoo (``shipped:GAME``, package data: found from any
working directory) and ``best`` (the strongest bot measured for the game, at a smaller
budget than the tables give it), with the plots beside it."""

from __future__ import annotations

import json
import os

from catzoo.arena.api import ArenaPolicyError, run_arena
from catzoo.games.registry import GAMES, get_game
from catzoo.policies.registry import UnknownPolicyError, make_policy

# The search bot that suits each game (its record's search_bot), at a budget that keeps
# the whole leaderboard within minutes on 2 cores.
LEADERBOARD_SEARCH = {"ismcts": "ismcts:iterations=50"}
# best thinks 1 s a move at the tables; a tenth of that keeps the leaderboard affordable
# (its budget counts the thread's CPU time in the arena, so the row means the same on a
# loaded machine).
LEADERBOARD_BEST = "best:seconds=0.1"


def default_policies(game: str) -> list[str]:
    info = get_game(game)
    return ["random", *sorted(info.bots),
            LEADERBOARD_SEARCH.get(info.search_bot, info.search_bot)]


def best_row(game: str, num_players: int, options: dict | None = None) -> tuple[list[str], str | None]:
    """``[LEADERBOARD_BEST]`` when best sits at the table, else ``[]`` and why not."""
    try:
        make_policy(LEADERBOARD_BEST, game, num_players, env_options=options or {})
    except UnknownPolicyError as err:
        return [], f"`{LEADERBOARD_BEST}`: {err}"
    return [LEADERBOARD_BEST], None


def arena_defaults(game: str, num_players: int, options: dict) -> tuple[list[str], str | None]:
    """``catzoo arena GAME``'s policies when none is named: the bots, and the shipped
    policy when it fits the table (else a note saying why it sits out)."""
    bots = default_policies(game)
    spec = f"shipped:{game}"
    try:
        make_policy(spec, game, num_players, env_options=options)
    except UnknownPolicyError as err:
        return bots, f"{spec} sits out: {err}"
    return [*bots, spec], None


def _root(root: str | None) -> str | None:
    """A checkpoints folder to scan: ``root``, or the shipped one in the package."""
    if root is not None:
        return root
    from catzoo.training.checkpoint import shipped_root

    found = shipped_root()
    return None if found is None else str(found)


def table_size(game: str, root: str | None = None) -> int:
    """The player count a game's table is played at: the count of its shipped policy when
    none is named (the game's default count when one is shipped for it, else the lowest
    shipped: ``catzoo.training.checkpoint.default_count``), since a policy plays only the
    count it was trained for; the game's default when none is shipped. ``root``: a folder
    of ``GAME/`` checkpoints instead of the shipped ones (``GAME/<N>p/``, one per count,
    as shipped, or one checkpoint in ``GAME/`` itself)."""
    from pathlib import Path

    from catzoo.training.checkpoint import counts_in, default_count

    info = GAMES[game]
    folder = _root(root)
    if folder is None:
        return info.default_players
    counts = [n for n in counts_in(Path(folder, game)) if n in info.players]
    if counts:
        return default_count(game, counts)
    meta = os.path.join(folder, game, "policy.json")
    if os.path.exists(meta):
        try:
            with open(meta) as f:
                n = json.load(f)["num_players"]
        except (OSError, ValueError, KeyError, TypeError):
            n = None  # an unreadable file: shipped_checkpoints reports why
        if isinstance(n, int) and n in info.players:
            return n
    return info.default_players


def shipped_checkpoints(game: str, root: str | None = None,
                        num_players: int | None = None) -> tuple[list[str], list[str]]:
    """Loadable checkpoints of ``game`` at ``num_players`` (default: ``table_size``'s),
    and notes on those skipped: the shipped one as ``shipped:GAME``, or with ``root`` the
    checkpoint directories under root/game: its ``<N>p/`` folder for this count (the
    other counts' are for other tables), its other sub-folders and root/game itself."""
    if game not in GAMES:
        return [], []
    n = table_size(game, root) if num_players is None else num_players
    if root is None:
        from catzoo.training.checkpoint import shipped_games

        if game not in shipped_games():
            return [], []
        spec = f"shipped:{game}"
        try:
            make_policy(spec, game, n)
        except UnknownPolicyError as err:
            return [], [f"`{spec}`: {err}"]
        return [spec], []
    folder = os.path.join(root, game)
    if not os.path.isdir(folder):
        return [], []
    from catzoo.policies.registry import COUNT_FOLDER

    found, skipped = [], []
    # The game's folder is itself a checkpoint when it holds policy.json; any
    # sub-folders are further checkpoints, but those named for another count.
    candidates = [folder] if os.path.exists(os.path.join(folder, "policy.json")) else []
    counts = []
    for e in sorted(os.listdir(folder)):
        if not os.path.isdir(os.path.join(folder, e)):
            continue
        count = COUNT_FOLDER.match(e)
        if count:
            counts.append(e)
            if int(count.group(1)) != n:
                continue
        candidates.append(os.path.join(folder, e))
    if counts and f"{n}p" not in counts:
        skipped.append(f"`{folder}`: no checkpoint for {n} players (it holds "
                       + ", ".join(f"{c}/" for c in counts) + ")")
    for path in candidates:
        try:
            make_policy(path, game, n)
        except UnknownPolicyError as err:
            skipped.append(f"`{path}`: {err}")
        else:
            found.append(path)
    return found, skipped


def rebuild(out: str = "docs/leaderboard.md", games: int = 48, workers: int = 2, seed: int = 0,
            checkpoints: str | None = None, progress: bool = True, log=print) -> str:
    """Play every game's leaderboard and write ``out`` (a Markdown page) with the plots,
    JSON and CSV in ``leaderboard/`` beside it. ``checkpoints``: a folder of ``GAME/``
    checkpoints instead of the shipped ones. Logs what it found and where it writes."""
    folder = os.path.dirname(out) or "."
    plots = os.path.join(folder, "leaderboard")
    source = _root(checkpoints)
    where = ("`checkpoints/<game>/<N>p/`" if checkpoints is None
             else f"`{checkpoints}/<game>/`")
    log(f"checkpoints: {'none found' if source is None else os.path.abspath(source)}"
        + (" (the policies shipped with CatZoo)" if checkpoints is None else ""))
    log(f"writing {os.path.abspath(out)}, and the plots, JSON and CSV in "
        f"{os.path.abspath(plots)}{os.sep}")
    lines = ["# Leaderboard", "",
             (f"Rebuilt by `catzoo arena --all` from the bots, `{LEADERBOARD_BEST}` (the "
              "strongest bot measured for the game and count, at a tenth of the 1 s a move it "
              "thinks at the tables; its budget counts CPU time) and the checkpoints shipped under "
              f"{where}: {games} games per game at least (rounded up to whole "
              f"seat rotations), seed {seed}, at the player count `shipped:GAME` loads when "
              "none is named (the game's default count when a policy is shipped for it, else "
              "the lowest shipped; the game's default when none is). Intervals are 95%; see "
              "[arena.md](arena.md) for how games are seated and rated."), ""]
    for game, info in GAMES.items():
        n = table_size(game, checkpoints)
        found, skipped = shipped_checkpoints(game, checkpoints, n)
        best, why_not = best_row(game, n)
        skipped += [why_not] if why_not else []
        policies = default_policies(game) + found + best
        log(f"{game} ({n} players): {', '.join(policies)}")
        try:
            result = run_arena(game, policies, games=games, num_players=n, workers=workers,
                               seed=seed, progress=progress, estimate=log if progress else None)
        except ArenaPolicyError as err:
            result = err.partial
            lines += [f"**Stopped early:** {str(err).splitlines()[0]}", ""]
        paths = result.save(plots, stem=game)
        lines += [f"## {info.title} (`{game}`)", "", "```", result.table(), "```", ""]
        if "png" in paths:
            lines += [f"![{game}](leaderboard/{game}.png)", ""]
        lines += [f"Data: [JSON](leaderboard/{game}.json), [CSV](leaderboard/{game}.csv).", ""]
        if not found:
            lines += [f"No checkpoint shipped under {where.replace('<game>', game)}.", ""]
        lines += [f"Skipped {s}" for s in skipped] + ([""] if skipped else [])
    from catzoo.arena.exploit import leaderboard_section

    lines += leaderboard_section(plots)  # `catzoo exploit --all --docs` keeps its table there
    os.makedirs(folder, exist_ok=True)
    with open(out, "w") as f:
        f.write("\n".join(lines))
    return out
