"""Play a CatZoo game in the terminal against bots or checkpoints. Type a move's number
(or words of its name); ? lists the commands.

    catzoo play cat_in_the_box --players 4 --seat 1 --opponent heuristic --opponent random
    catzoo play lunar --players 2 --opponent ismcts:iterations=200 --save game.json
"""

from __future__ import annotations

from argparse import RawDescriptionHelpFormatter

from catzoo.cli.main import UsageError, parse_option
from catzoo.policies.registry import SPEC_HELP


def register(subparsers) -> None:
    # the module's docstring is the command's help page, examples and all
    p = subparsers.add_parser("play", help="play a game against bots in the terminal",
                              description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("game", help="a game name from `catzoo list`")
    p.add_argument("--players", type=int, help="number of players (default: the game's usual)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 to players-1 (default 0)")
    p.add_argument("--opponent", action="append", default=[], metavar="POLICY",
                   help=f"policy for the other seats, repeated and cycled over them: "
                        f"{SPEC_HELP} (default: the game's shipped policy when one is "
                        "shipped for this player count and fits these options, else "
                        "heuristic)")
    p.add_argument("--seed", type=int, help="seed of the deal (default: a random one)")
    p.add_argument("-o", "--option", action="append", default=[],
                   help="game option key=value, e.g. -o rounds=single")
    p.add_argument("--save", metavar="FILE", help="write the replay (JSON) here at the end")
    p.add_argument("--delay", type=float, default=0.4,
                   help="seconds between two bot moves (default 0.4)")
    p.set_defaults(func=cmd_play)


def build_table(args, humans: set[int]):
    """A Table from the common play options; user errors become UsageError."""
    from catzoo.games.base import OptionsError
    from catzoo.games.registry import get_game
    from catzoo.play.table import HUMAN, SeatError, Table
    from catzoo.policies.registry import short_name

    info = get_game(args.game)
    n = args.players if args.players is not None else info.default_players
    if n not in info.players:
        raise UsageError(f"{info.name} is played by {', '.join(map(str, info.players))} "
                         f"players, not {n}")
    bad = sorted(p for p in humans if not 0 <= p < n)
    if bad:
        raise UsageError(f"seat {bad[0]} does not exist: seats are 0 to {n - 1}")
    options = dict(parse_option(o) for o in args.option)
    if "num_players" in options:
        raise UsageError("give the player count with --players, not -o num_players")
    bots = args.opponent or [default_opponent(info.name, n, options)]
    seats, names, k = [], [], 0
    for i in range(n):
        if i in humans:
            seats.append(HUMAN)
            names.append("you" if len(humans) == 1 else f"human {i}")
        else:
            seats.append(bots[k % len(bots)])
            names.append(short_name(bots[k % len(bots)], info.name))
            k += 1
    try:
        return Table(info.name, seats, seed=args.seed, options=options, names=names)
    except (SeatError, OptionsError) as err:
        raise UsageError(str(err)) from None


def default_opponent(game: str, num_players: int, options: dict) -> str:
    """The shipped policy when it fits the table, else the heuristic bot (saying why)."""
    from catzoo.policies.registry import UnknownPolicyError, make_policy, shipped_spec

    spec = shipped_spec(game)
    try:
        make_policy(spec, game, num_players, env_options=options)
    except UnknownPolicyError as err:
        print(f"The heuristic bot plays: the shipped policy cannot sit here ({err}).")
        return "heuristic"
    return spec


def cmd_play(args) -> int:
    try:
        from catzoo.play.replay import save_replay
        from catzoo.play.terminal import TerminalGame
    except ImportError as err:
        raise UsageError(f"playing needs the 'play' extra (pip install 'catzoo[play]'): {err}") from None
    if args.delay < 0:
        raise UsageError("--delay must be 0 or more seconds")
    table = build_table(args, {args.seat})
    game = TerminalGame(table, args.seat, delay=args.delay)
    finished = game.run()
    if args.save:
        try:
            save_replay(args.save, table.replay())
        except OSError as err:
            raise UsageError(f"cannot write the replay to {args.save}: {err.strerror}") from None
        print(f"Replay saved to {args.save} (watch it with: catzoo replay {args.save})")
    if game.interrupted:
        return 130  # the shell's status for Ctrl-C, without the traceback
    return 0 if finished else 1
