"""``catzoo arena``: seeded, seat-rotating matches between policies, with ratings.

    catzoo arena cat_in_the_box --policy random --policy heuristic --policy ismcts \
        --games 200 --players 4 --workers 2 --seed 0
    catzoo arena --all      # rebuild docs/leaderboard.md
"""

from __future__ import annotations

import sys

from catzoo.cli.main import UsageError, parse_option
from catzoo.policies.registry import SPEC_HELP


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "arena", help="benchmark policies against each other: win rates, ratings, plots")
    p.add_argument("game", nargs="?", help="a game name from `catzoo list`")
    p.add_argument("--policy", action="append", default=[],
                   help=f"repeated: {SPEC_HELP} (default: random, the game's heuristic bots, "
                        "its search bot and its shipped policy)")
    p.add_argument("--games", type=int, default=None,
                   help="games to play, rounded up to whole seat rotations (default 200; "
                        "48 per game with --all)")
    p.add_argument("--players", type=int, help="number of players (default: the game's)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (default 0)")
    p.add_argument("--mixed-teams", action="store_true",
                   help="seat partners of a team game from different policies too")
    p.add_argument("-o", "--option", action="append", default=[],
                   help="game option key=value, e.g. -o rounds=single")
    p.add_argument("--out", default=None,
                   help="folder for the JSON, CSV and PNG (default arena_results); with --all "
                        "the Markdown page to write (default docs/leaderboard.md, plots in "
                        "leaderboard/ beside it), relative to the working directory")
    p.add_argument("--no-plot", action="store_true", help="skip the PNG")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--all", action="store_true",
                   help="rebuild docs/leaderboard.md for every game, plots beside it")
    p.set_defaults(func=cmd_arena)


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def cmd_arena(args) -> int:
    from catzoo.arena import ArenaPolicyError, ArenaSetupError, run_arena
    from catzoo.arena.leaderboard import arena_defaults, rebuild
    from catzoo.games.registry import get_game
    from catzoo.policies.registry import UnknownPolicyError

    if args.all:
        if args.game or args.policy or args.players:
            raise UsageError("--all takes no game, --policy or --players: it benchmarks every "
                             "game with its bots and shipped checkpoints")
        path = rebuild(out=args.out or "docs/leaderboard.md", games=args.games or 48,
                       workers=args.workers, seed=args.seed, progress=not args.quiet)
        print(f"wrote {path}")
        return 0
    if not args.game:
        raise UsageError("name a game (see `catzoo list`), or use --all")
    info = get_game(args.game)
    options = dict(parse_option(o) for o in args.option)
    if "num_players" in options:
        raise UsageError("give the player count with --players, not -o num_players")
    n = args.players if args.players is not None else info.default_players
    policies = args.policy
    if not policies:
        policies, note = arena_defaults(info.name, n, options)
        if note and "no shipped policy" not in note:
            print(f"catzoo: {note}", file=sys.stderr)
    try:
        result = run_arena(info.name, policies, games=args.games or 200,
                           num_players=args.players, workers=args.workers, seed=args.seed,
                           mixed_teams=args.mixed_teams, options=options,
                           progress=not args.quiet, estimate=None if args.quiet else _say)
        status = 0
    except (ArenaSetupError, UnknownPolicyError) as err:
        raise UsageError(str(err)) from None
    except ArenaPolicyError as err:
        print(f"catzoo: {err}", file=sys.stderr)
        result, status = err.partial, 1
    print(result.table())
    paths = result.save(args.out or "arena_results", plot=not args.no_plot)
    print("wrote " + ", ".join(paths.values()))
    return status
