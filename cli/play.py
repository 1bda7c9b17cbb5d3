"""Play a CatZoo game in the terminal against bots or checkpoints. Type a move's number
(or words of its name); ? lists the commands. Without --opponent the other seats play
`best`, the strongest bot CatZoo has for the game and player count, thinking at most
--bot-seconds a move.

    catzoo play lunar --players 4                      # against best, 1 s a move
    catzoo play cat_in_the_box --players 4 --seat 1 --opponent heuristic --opponent random
    catzoo play lunar --players 2 --opponent ismcts:iterations=200 --save game.json
"""

from __future__ import annotations

from argparse import RawDescriptionHelpFormatter

from catzoo.cli.main import UsageError, parse_option
from catzoo.policies.registry import SPEC_HELP

BOT_SECONDS = 1.0


def register(subparsers) -> None:
    # the module's docstring is the command's help page, examples and all
    p = subparsers.add_parser("play", help="play a game against bots in the terminal",
                              description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("game", help="a game name from `catzoo list`")
    p.add_argument("--players", type=int, help="number of players (default: the game's usual)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0 to players-1 (default 0)")
    p.add_argument("--opponent", action="append", default=[], metavar="POLICY",
                   help=f"policy for the other seats, repeated and cycled over them: "
                        f"{SPEC_HELP} (default: best, when it fits these options; else "
                        "the heuristic)")
    p.add_argument("--bot-seconds", type=float, default=BOT_SECONDS, metavar="S",
                   help="the most best thinks per move, in seconds of wall time (default "
                        f"{BOT_SECONDS:g}; a search bot named with --opponent plays the "
                        "iterations or seconds= it is given)")
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
    seconds = getattr(args, "bot_seconds", BOT_SECONDS)
    if not 0 < seconds <= 3600:
        raise UsageError("--bot-seconds must be more than 0 and at most 3600")
    bots = [with_budget(b, seconds) for b in args.opponent] or [
        default_opponent(info.name, n, options, seconds)]
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


def with_budget(spec: str, seconds: float) -> str:
    """``best`` (``best:GAME:Np`` too) with a budget of ``seconds`` a move unless it names
    one; other specs as they are (a search bot plays the iterations it is given)."""
    from catzoo.policies.registry import BEST

    name, _, rest = spec.partition(":")
    if name.strip() != BEST or "seconds=" in rest:
        return spec
    return f"{spec.rstrip(':')}:seconds={seconds:g}"


def default_opponent(game: str, num_players: int, options: dict,
                     seconds: float = BOT_SECONDS) -> str:
    """``best`` when it fits the table, else the heuristic bot (saying why)."""
    from catzoo.policies.registry import UnknownPolicyError, make_policy

    spec = f"best:seconds={seconds:g}"
    try:
        make_policy(spec, game, num_players, env_options=options)
    except UnknownPolicyError as err:
        print(f"The heuristic bot plays: best cannot sit here ({err}).")
        return "heuristic"
    return spec


def cmd_play(args) -> int:
    try:
        from catzoo.play.replay import save_replay
        from catzoo.play.terminal import TerminalGame
    except ImportError as err:
        raise UsageError(f"playing needs the 'play' extra (pip install 'catzoo[play]'): {err}") from None
    from catzoo.policies.search.threads import limit_process

    if args.delay < 0:
        raise UsageError("--delay must be 0 or more seconds")
    limit_process()  # one thread for the bots' numeric libraries (CATZOO_THREADS overrides)
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
