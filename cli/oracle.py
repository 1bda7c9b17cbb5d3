"""``catzoo oracle``: Cat Tree policies as a percentage of the best score each deal allows.

    catzoo oracle                                  # random, heuristic, shipped checkpoints
    catzoo oracle --policy heuristic --policy checkpoints/cat_tree/2p
    catzoo oracle --fresh --deals 200 --workers 2  # new deals, against the oracle's search
"""

from __future__ import annotations

import sys

from catzoo.cli.main import UsageError
from catzoo.policies.registry import SPEC_HELP


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "oracle", help="Cat Tree: policies as a %% of the best-known score of each deal")
    p.add_argument("--policy", action="append", default=[],
                   help=f"repeated; each plays both seats: {SPEC_HELP} (default: random, "
                        "heuristic and the shipped policy, shipped:cat_tree)")
    p.add_argument("--deals", type=int, default=None,
                   help="how many deals (default: every reference deal)")
    p.add_argument("--fresh", action="store_true",
                   help="new deals solved by the oracle's search instead of the reference "
                        "deals' best-known plans (needs --deals)")
    p.add_argument("--seed", type=int, default=0, help="first seed of fresh deals (default 0)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes solving fresh deals (default 1)")
    p.set_defaults(func=cmd_oracle)


def cmd_oracle(args) -> int:
    from catzoo.analysis.cat_tree.reference import ReferenceError
    from catzoo.arena.leaderboard import shipped_checkpoints
    from catzoo.arena.oracle import OracleSetupError, oracle_report
    from catzoo.policies.registry import UnknownPolicyError

    if args.fresh and args.deals is None:
        raise UsageError("--fresh needs --deals N")
    if not args.fresh and (args.seed or args.workers != 1):
        raise UsageError("--seed and --workers apply to --fresh deals only")
    if not args.policy:
        found, skipped = shipped_checkpoints("cat_tree")
        for note in skipped:
            print(f"catzoo: skipped {note}", file=sys.stderr)
    policies = args.policy or ["random", "heuristic", *found]
    try:
        report = oracle_report(policies, deals=args.deals, fresh=args.fresh, seed=args.seed,
                               workers=args.workers)
    except (OracleSetupError, UnknownPolicyError, ReferenceError) as err:
        raise UsageError(str(err)) from None
    print(report.table())
    return 0
