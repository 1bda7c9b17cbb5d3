"""Start the CatZoo web app (FastAPI on uvicorn), to play against bots in a browser. It
listens on 127.0.0.1 only unless --host says otherwise.

    catzoo serve                       # http://127.0.0.1:8000/
    catzoo serve --port 9000 --checkpoints runs/
"""

from __future__ import annotations

from argparse import RawDescriptionHelpFormatter

from catzoo.cli.main import UsageError


def register(subparsers) -> None:
    # the module's docstring is the command's help page, examples and all
    p = subparsers.add_parser("serve", help="serve the web app: play against bots in a browser",
                              description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--bot-delay", type=float, default=0.6,
                   help="seconds a bot waits before each move, so you can follow (default 0.6)")
    p.add_argument("--bot-seconds", type=float, default=None, metavar="S",
                   help="the most best and a search bot (ismcts) think per move, in seconds "
                        "of wall time (default 1)")
    p.add_argument("--max-games", type=int, default=200,
                   help="games held at once (default 200); finished ones make way first")
    p.add_argument("--max-games-per-client", type=int, default=None, metavar="N",
                   help="unfinished games one client address may hold (default 10); its "
                        "game idle longest makes way after a minute without a move")
    p.add_argument("--checkpoints", action="append", default=[], metavar="DIR",
                   help="offer the checkpoints found under DIR as opponents (repeatable)")
    p.set_defaults(func=cmd_serve)


def cmd_serve(args) -> int:
    try:
        from catzoo.web.server import is_loopback, run
    except ImportError as err:
        raise UsageError(f"the web app needs the 'play' extra (pip install 'catzoo[play]'): {err}") from None
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port} is not a port number (0-65535)")
    extra = {key: value for key, value in (("max_games_per_client", args.max_games_per_client),
                                           ("bot_seconds", args.bot_seconds))
             if value is not None}
    if args.bot_delay < 0 or args.max_games < 1 or extra.get("max_games_per_client", 1) < 1:
        raise UsageError("--bot-delay must be 0 or more, --max-games and "
                         "--max-games-per-client at least 1")
    if not 0 < extra.get("bot_seconds", 1) <= 3600:
        raise UsageError("--bot-seconds must be more than 0 and at most 3600")
    from catzoo.policies.search.threads import limit_process

    limit_process()  # one thread for the bots' numeric libraries (CATZOO_THREADS overrides)
    if not is_loopback(args.host):
        print(f"catzoo: warning: listening on {args.host}: other machines can reach this server")
    try:
        run(args.host, args.port, bot_delay=args.bot_delay, max_games=args.max_games,
            checkpoint_dirs=args.checkpoints, **extra)
    except OSError as err:
        raise UsageError(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}") from None
    except KeyboardInterrupt:
        pass
    return 0
