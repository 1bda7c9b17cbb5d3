"""Watch a game saved by `catzoo play --save`, the web app or the arena again, step by
step, forwards and backwards, every hand shown.

    catzoo replay game.json            # Enter: next move, b: back, N / -N: that many, q: stop
    catzoo replay game.json --all      # print every move at once (the default without a tty)
"""

from __future__ import annotations

import sys
from argparse import RawDescriptionHelpFormatter

from catzoo.cli.main import UsageError


def register(subparsers) -> None:
    # the module's docstring is the command's help page, examples and all
    p = subparsers.add_parser("replay", help="watch a saved game (JSON replay) step by step",
                              description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("file", help="a replay file (JSON)")
    p.add_argument("--all", action="store_true",
                   help="print the whole game without waiting (default when not on a terminal)")
    p.add_argument("--at", type=int, metavar="N", help="show only the table after N moves")
    p.set_defaults(func=cmd_replay)


def cmd_replay(args) -> int:
    from catzoo.play.replay import ReplayError, load_replay

    try:
        replay = load_replay(args.file)
    except ReplayError as err:
        raise UsageError(str(err)) from None
    total = len(replay.log["actions"])
    if args.at is not None and not 0 <= args.at <= total:
        raise UsageError(f"--at {args.at}: this replay has moves 0 to {total}")
    names = replay.seats
    print(f"Replay of {replay.game}: {len(names)} players, seed {replay.log.get('seed')}, "
          f"{total} moves; seats: " + ", ".join(f"P{i} {s}" for i, s in enumerate(names)))
    interactive = not args.all and args.at is None and sys.stdin.isatty()
    if interactive:
        return step_through(replay, names, total)
    last = [object()]
    for step, (state, action) in enumerate(replay.states()):
        if args.at is not None:
            if step == args.at:
                print(state.render())
                return 0
            continue
        mark = state.milestone()
        if mark != last[0] or action is None:
            print("\n" + state.render())
            last[0] = mark
        if action is None:
            break
        print(_move_line(state, action, step, names))
    _end(state, names, total)
    return 0


PROMPT = "Enter: next move, b: back, N: N moves on, -N: N back, q: stop"


def step_through(replay, names: list[str], total: int) -> int:
    """Interactive: the game after each move is kept, so going back is as quick as on."""
    states = [state.clone() for state, _ in replay.states()]  # states[k]: after k moves
    actions = replay.log["actions"]
    at = 0
    print("\n" + states[0].render())
    while True:
        try:
            answer = input(f"[{at}/{total}] {PROMPT} > ").strip().lower()
        except EOFError:
            print()
            return 0
        if answer == "q":
            return 0
        if answer in ("", "n"):
            target = at + 1
        elif answer in ("b", "p"):
            target = at - 1
        else:
            try:
                target = at + int(answer)
            except ValueError:
                print(f"{answer!r}: {PROMPT}")
                continue
        target = max(0, min(total, target))
        if target == at:
            print("This is the end of the game." if at == total else "This is the start.")
            continue
        if target > at:
            for step in range(at, target):
                print(_move_line(states[step], actions[step], step, names))
            if states[target].milestone() != states[at].milestone() or target - at > 1:
                print("\n" + states[target].render())
        else:
            print(f"Back to move {target}: the table after {target} move(s).")
            print("\n" + states[target].render())
        at = target
        if at == total:
            _end(states[at], names, total)


def _move_line(state, action: int, step: int, names: list[str]) -> str:
    player = state.current_player
    return (f"  {step + 1:>4}. P{player} ({names[player] if player < len(names) else '?'}): "
            f"{state.action_to_string(action)}")


def _end(state, names: list[str], total: int) -> None:
    if state.is_terminal():
        scores = state.scores()
        print("\nFinal scores: " + ", ".join(f"P{i} {s}" for i, s in enumerate(scores)))
        print("Winner(s): " + ", ".join(f"P{w} ({names[w]})" for w in state.winners()))
        from catzoo.play.views import for_game

        ending = getattr(for_game(state.game_name), "ending", None)
        if ending is not None:
            done = ending(state)
            print(f"The game ended: {done['reason']}.")
            if done["tie_break"]:
                print(f"Tie-break: {done['tie_break']}")
    else:
        print(f"\nThe game stops here, unfinished, after {total} moves.")
