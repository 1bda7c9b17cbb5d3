"""``catzoo replay FILE``: watch a saved game again, step by step.

    catzoo replay game.json            # Enter for the next move, a number to jump, q to stop
    catzoo replay game.json --all      # print every move at once (the default without a tty)
"""

from __future__ import annotations

import sys

from catzoo.cli.main import UsageError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "replay", help="watch a saved game (JSON replay) step by step",
        description="Replay a game saved by `catzoo play --save`, the web app or the arena. "
                    "Every hand is shown: the game is over.")
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
    skip = 0  # moves still to print without waiting
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
        if interactive and not skip:
            answer = input(f"[{step}/{total}] Enter: next move, a number: that many, "
                           "q: stop > ").strip().lower()
            if answer == "q":
                return 0
            skip = int(answer) - 1 if answer.isdigit() and int(answer) > 0 else 0
        elif skip:
            skip -= 1
        player = state.current_player
        print(f"  {step + 1:>4}. P{player} ({names[player] if player < len(names) else '?'}): "
              f"{state.action_to_string(action)}")
    if state.is_terminal():
        scores = state.scores()
        print("\nFinal scores: " + ", ".join(f"P{i} {s}" for i, s in enumerate(scores)))
        print("Winner(s): " + ", ".join(f"P{w} ({names[w]})" for w in state.winners()))
    else:
        print(f"\nThe game stops here, unfinished, after {total} moves.")
    return 0
