"""Measure ``best`` again: every table of issue 41's bars, one at a time, and (with
``--write``) the figures into each ``checkpoints/GAME/<N>p/best.json``.

    python benchmarks/best_tables.py --list                 # the commands, nothing played
    python benchmarks/best_tables.py                        # every table (many CPU-hours)
    python benchmarks/best_tables.py --only lunar:4 --write
    python benchmarks/best_tables.py --trial --only lunar:4 --policy pimc:seconds=0.25,playouts=4

The tables (balanced: alternate seats, duplicate deals, 95% intervals over deals):

* ``best:seconds=0.25`` against ``ismcts:iterations=1000`` (bar: ahead in 60% of meetings)
  at Cat in the Box 4, Lunar 4 and CATsle Builders 3 and 5 players;
* against the shipped network alone (bar 55%) at every card-game count;
* ``catzoo oracle --policy best:cat_tree`` (bar: 97% of the best known score), at best's
  own budget (1 s a move).

Each table is ``catzoo arena`` (``--workers``, default 1, ``nice``; 100 games on seed
30000000, or with ``--trial`` 60 games on seed 41000000) run as a subprocess, its JSON
read back for the share ahead and best's CPU-s a move (mean and largest): the arena counts
budgets on the thread's CPU time, so the tables mean the same on a loaded machine.
``--policy SPEC`` measures a candidate in best's place (trials of settings; never written).
``--from DIR`` reads tables already played into DIR instead of playing them. With
``--write`` a best.json keeps its choice and gains the figures, with the commands and the
network's sha256 they were measured on; after new networks ship, run this again.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ISMCTS = "ismcts:iterations=1000"
NETWORK = "shipped"
SECONDS = 0.25  # best's budget in the tables (1 s at the playing tables)
SEED, GAMES = 30_000_000, 100
TRIAL_SEED, TRIAL_GAMES = 41_000_000, 60
CARD_COUNTS = [("cat_in_the_box", n) for n in (2, 3, 4, 5)] + [("lunar", 2), ("lunar", 4)] + [
    ("catsle_builders", n) for n in (3, 4, 5)]
AGAINST_ISMCTS = [("cat_in_the_box", 4), ("lunar", 4), ("catsle_builders", 3),
                  ("catsle_builders", 5)]
ORACLE_BAR = 0.97


@dataclass(frozen=True)
class Table:
    game: str
    players: int
    opponent: str  # a spec, or "oracle"
    bar: float

    @property
    def key(self) -> str:
        return f"{self.game}:{self.players}"

    def stem(self, trial: bool) -> str:
        against = {ISMCTS: "ismcts1000", NETWORK: "network", "oracle": "oracle"}[self.opponent]
        return f"{self.game}_{self.players}p_{against}{'_trial' if trial else ''}"


def tables() -> list[Table]:
    out = [Table(g, n, ISMCTS, 0.60) for g, n in AGAINST_ISMCTS]
    out += [Table(g, n, NETWORK, 0.55) for g, n in CARD_COUNTS]
    return out + [Table("cat_tree", 2, "oracle", ORACLE_BAR)]


def command(t: Table, policy: str, games: int, seed: int, workers: int) -> list[str]:
    """The table's command as a reader reproduces it (best.json's ``command``); where this
    benchmark writes its output, and its quiet flags, are added only to the run."""
    if t.opponent == "oracle":
        return ["catzoo", "oracle", "--policy", policy]
    return ["catzoo", "arena", t.game, "--players", str(t.players), "--policy", policy,
            "--policy", t.opponent, "--games", str(games), "--workers", str(workers),
            "--seed", str(seed)]


def best_policy(t: Table, candidate: str | None) -> str:
    if candidate:
        return candidate
    if t.opponent == "oracle":
        return f"best:{t.game}"  # at its own budget, as the bar asks
    return f"best:seconds={SECONDS:g}"


def figures_of(path: Path, t: Table) -> dict:
    """The share ahead and best's CPU-s a move of one arena JSON (best is policy 0)."""
    data = json.loads(path.read_text())
    pair = data["pair"]
    cpu = moves = 0.0
    longest = 0.0
    for rec in data["games"]:
        for seat, p in enumerate(rec["seats"]):
            if p == 0:
                cpu += rec["think_cpu"][seat]
                moves += rec["moves"][seat]
                longest = max(longest, rec["longest_cpu"][seat])
    return {"against": t.opponent, "games": data["games_played"], "seed": data["seed"],
            "ahead": pair["value"], "low": pair["low"], "high": pair["high"],
            "cpu_s_per_move": cpu / moves if moves else None, "max_cpu_s_per_move": longest,
            "bar": t.bar, "met": pair["value"] >= t.bar}


def oracle_figures(policy: str) -> dict:
    from catzoo.arena.oracle import oracle_report

    report = oracle_report([policy])
    mean, half = report.percent(policy)
    cpu, longest = report.cpu[policy]
    print(report.table())
    return {"against": "oracle", "deals": len(report.reference), "percent_of_best": mean / 100,
            "half_interval": half / 100, "cpu_s_per_move": cpu, "max_cpu_s_per_move": longest,
            "bar": ORACLE_BAR, "met": mean / 100 >= ORACLE_BAR}


def write(t: Table, figure: dict) -> None:
    from catzoo.policies.best import network_sha256, path_of
    from catzoo.training.checkpoint import atomic_write_text

    path = path_of(t.game, t.players)
    record = json.loads(path.read_text())
    kept = [f for f in record.get("figures", []) if f.get("against") != t.opponent]
    if record["network"]:
        # Each figure names the network it was measured on: a network shipped since leaves
        # the older figures standing, marked as another network's.
        figure = {**figure, "network_sha256": network_sha256(record)}
    record["figures"] = [*kept, figure]
    atomic_write_text(path, json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")


def row(t: Table, policy: str, f: dict) -> str:
    if t.opponent == "oracle":
        result = f"{f['percent_of_best']:.1%} +- {f['half_interval']:.1%} of best, {f['deals']} deals"
    else:
        result = f"{f['ahead']:.1%} [{f['low']:.1%}, {f['high']:.1%}] over {f['games']} games"
    return (f"| {t.game} | {t.players} | `{policy}` | {t.opponent} | {result} | "
            f"{'yes' if f['met'] else '**no**'} (bar {t.bar:.0%}) | "
            f"{f['cpu_s_per_move']:.3f} | {f['max_cpu_s_per_move']:.3f} |")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="GAME:N",
                        help="only these tables (repeatable), e.g. lunar:4")
    parser.add_argument("--against", choices=["ismcts", "network", "oracle"], action="append")
    parser.add_argument("--trial", action="store_true",
                        help=f"{TRIAL_GAMES} games on seed {TRIAL_SEED} instead")
    parser.add_argument("--policy", help="a candidate in best's place (not written)")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", default="/tmp/best_tables")
    parser.add_argument("--from", dest="source", metavar="DIR",
                        help="read the tables' JSON from DIR (played before) instead of playing")
    parser.add_argument("--list", action="store_true", help="print the commands only")
    parser.add_argument("--write", action="store_true", help="record the figures in best.json")
    args = parser.parse_args(argv)
    games, seed = (TRIAL_GAMES, TRIAL_SEED) if args.trial else (GAMES, SEED)
    kinds = {"ismcts": ISMCTS, "network": NETWORK, "oracle": "oracle"}
    chosen = [t for t in tables()
              if (not args.only or t.key in args.only)
              and (not args.against or t.opponent in {kinds[k] for k in args.against})]
    rows = []
    for t in chosen:
        policy = best_policy(t, args.policy)
        out = os.path.join(args.source or args.out, t.stem(args.trial))
        cmd = command(t, policy, games, seed, args.workers)
        print("$ " + " ".join(cmd), flush=True)
        if args.list:
            continue
        if t.opponent == "oracle":
            figure = oracle_figures(policy)
        else:
            if not args.source:
                subprocess.run(["nice", "-n", "5", os.path.join(os.path.dirname(sys.executable),
                                                               "catzoo"), *cmd[1:],
                                "--out", out, "--no-plot", "--quiet"], check=True)
            figure = figures_of(Path(out, f"arena_{t.game}.json"), t)
        figure["command"] = " ".join(cmd)
        figure["policy"] = policy
        rows.append(row(t, policy, figure))
        print(rows[-1], flush=True)
        if args.write and not args.policy and not args.trial:
            write(t, figure)
    if rows:
        print("| game | players | policy | against | ahead (95% interval) | bar met | "
              "CPU-s/move | max CPU-s/move |\n|---|---|---|---|---|---|---|---|")
        print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
