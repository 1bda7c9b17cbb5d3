"""The ``catzoo`` command: ``catzoo list``, ``catzoo show GAME``.

Errors a user can make (unknown game, policy or option, a bad player count) end with a
one-line message on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

from catzoo.games.base import OptionsError, build_options
from catzoo.games.registry import GAMES, UnknownGameError, get_game
from catzoo.policies.registry import SPEC_HELP


class UsageError(Exception):
    pass


def parse_option(text: str) -> tuple[str, object]:
    """``key=value`` -> (key, value) with value an int, float, bool or string."""
    if "=" not in text:
        raise UsageError(f"option {text!r} must look like key=value")
    key, value = text.split("=", 1)
    for convert in (int, float):
        try:
            return key, convert(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return key, value.lower() == "true"
    return key, value


def player_counts(counts: tuple[int, ...]) -> str:
    if len(counts) > 2 and counts == tuple(range(counts[0], counts[-1] + 1)):
        return f"{counts[0]}-{counts[-1]}"
    return " or ".join(map(str, counts))


def cmd_list(args) -> int:
    rows = [("game", "players", "title", "variants and options")]
    for info in GAMES.values():
        rows.append((info.name, player_counts(info.players), info.title, info.variants))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        print("  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3])
    print("\nenv ids: " + ", ".join(f"catzoo/{name}-v0" for name in GAMES))
    return 0


def cmd_show(args) -> int:
    from catzoo.policies.match import play_match
    from catzoo.policies.registry import UnknownPolicyError, make_policy

    info = get_game(args.game)
    n = args.players if args.players is not None else info.default_players
    if n not in info.players:
        raise UsageError(
            f"{info.name} is played by {', '.join(map(str, info.players))} players, not {n}"
        )
    options = dict(parse_option(o) for o in args.option)
    if "num_players" in options:
        raise UsageError("give the player count with --players, not -o num_players")
    # Validate the options before printing anything.
    build_options(info.engine_class().options_cls, info.name, {"num_players": n, **options})
    names = args.policy or ["random"]
    try:
        policies = [make_policy(names[i % len(names)], info.name, n, seed=args.seed * 100 + i,
                                env_options=options)
                    for i in range(n)]
    except UnknownPolicyError as err:
        raise UsageError(str(err)) from None
    print(f"{info.title}: {n} players, seed {args.seed}; seats: "
          + ", ".join(f"P{i} {p.name}" for i, p in enumerate(policies)))
    last = [object()]

    def on_step(state, player, action):
        mark = state.milestone()
        if mark != last[0]:
            print("\n" + state.render())
            last[0] = mark
        print(f"  P{player} ({policies[player].name}): {state.action_to_string(action)}")

    final = []  # the env's engine state, the same object at every step

    def watch(state, player, action):
        final[:] = [state]
        on_step(state, player, action)

    result = play_match(info.name, policies, seed=args.seed, on_step=watch, **options)
    print("\nFinal scores: " + ", ".join(f"P{i} {s}" for i, s in enumerate(result.scores)))
    print("Winner(s): " + ", ".join(f"P{w} ({policies[w].name})" for w in result.winners))
    for line in end_lines(final[0] if final else None):
        print(line)
    return 0


def end_lines(state) -> list[str]:
    """Why the game ended, and the tie-break that decided it (from the game's view
    module, which needs the play extra; without it, nothing is said)."""
    if state is None or not state.is_terminal():
        return []
    try:
        from catzoo.play.views import for_game
    except ImportError:
        return []
    ending = getattr(for_game(state.game_name), "ending", None)
    if ending is None:
        return []
    done = ending(state)
    lines = [f"The game ended: {done['reason']}."]
    if done.get("tie_break"):
        lines.append(f"Tie-break: {done['tie_break']}")
    return lines


class Parser(argparse.ArgumentParser):
    """argparse, whose "invalid choice" (a mistyped sub-command) suggests the nearest."""

    def _check_value(self, action, value):
        if action.choices is not None and value not in action.choices:
            from catzoo.games.suggest import did_you_mean

            choices = ", ".join(map(repr, action.choices))
            raise argparse.ArgumentError(
                action, f"invalid choice: {value!r}{did_you_mean(value, action.choices)} "
                        f"(choose from {choices})")
        super()._check_value(action, value)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="catzoo", description="CatZoo: cat-themed tabletop "
                    "games as PettingZoo environments")
    sub = parser.add_subparsers(dest="command", required=True)
    p_list = sub.add_parser("list", help="games, variants and player counts")
    p_list.set_defaults(func=cmd_list)
    p_show = sub.add_parser("show", help="one game between bots, printed turn by turn")
    p_show.add_argument("game", help="a game name from `catzoo list`")
    p_show.add_argument("--players", type=int, help="number of players")
    p_show.add_argument("--seed", type=int, default=0, help="seed of the deal (default 0)")
    p_show.add_argument("--policy", action="append", default=[],
                        help=f"policy per seat, repeated and cycled over seats: {SPEC_HELP} "
                             "(default: random)")
    p_show.add_argument("-o", "--option", action="append", default=[],
                        help="game option key=value, e.g. -o rounds=single")
    p_show.set_defaults(func=cmd_show)
    for name in EXTRA_COMMANDS:
        module = _optional_module(f"catzoo.cli.{name}")
        if module is not None:
            module.register(sub)
    return parser


# Sub-commands living in their own modules (catzoo/cli/<name>.py), each with
# ``register(subparsers)`` adding a parser whose ``func(args) -> int`` runs it.
EXTRA_COMMANDS = ("train", "arena", "exploit", "oracle", "play", "replay", "serve")


def _optional_module(name: str):
    import importlib
    import importlib.util

    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, UnknownGameError, OptionsError) as err:
        print(f"catzoo: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    # Run the package's copy of this module, not __main__'s: the sub-command modules
    # raise catzoo.cli.main.UsageError, which __main__.main would not catch.
    from catzoo.cli.main import main as package_main

    sys.exit(package_main())
