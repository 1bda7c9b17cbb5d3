"""One benchmark in two checkouts, alternately, its figures printed side by side: what a change
did to speed, measured in the same run (a shared machine's drift falls on both trees alike).

Run: ``python benchmarks/two_trees.py --base ../base [--rounds 2] -- benchmarks/vector_speed.py
--games lunar``. ``--base`` is another checkout with its own installed ``.venv`` (make one
with ``git worktree add ../base <commit> && make -C ../base .venv/.installed-dev``); this
checkout's ``.venv`` runs the other side. Each round runs the benchmark in the base tree,
then in this one; then every line that holds numbers is printed with the base's figures
and this tree's (the mean over rounds), and their ratio where a line has one figure.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"-?\d[\d,]*\.?\d*")


def run(tree: Path, command: list[str]) -> list[str]:
    done = subprocess.run([str(tree / ".venv" / "bin" / "python"), *command], cwd=tree,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return done.stdout.splitlines()


def figures(line: str) -> list[float]:
    return [float(x.replace(",", "")) for x in NUMBER.findall(line)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, type=Path, help="the other checkout")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("command", nargs=argparse.REMAINDER,
                        help="-- the benchmark script and its arguments")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the benchmark after --")
    outputs: dict[str, list[list[str]]] = {"base": [], "this": []}
    for _ in range(args.rounds):
        outputs["base"].append(run(args.base.resolve(), command))
        outputs["this"].append(run(HERE, command))
    base, this = outputs["base"][0], outputs["this"][0]
    if [NUMBER.sub("#", s) for s in base] != [NUMBER.sub("#", s) for s in this]:
        print("the two trees print different lines; each as printed:", file=sys.stderr)
        print("\n".join(["--- base", *base, "--- this", *this]))
        return 1
    print(f"{' '.join(command)}: base {args.base} against {HERE}, mean of {args.rounds} "
          "rounds each")
    for k, line in enumerate(base):
        nums = [[figures(o[k]) for o in outputs[side]] for side in ("base", "this")]
        if not nums[0][0]:
            print(line)
            continue
        means = [[statistics.fmean(v) for v in zip(*runs)] for runs in nums]
        text = NUMBER.sub("#", line)
        pairs = "  ".join(f"{b:,.4g} -> {t:,.4g}" for b, t in zip(*means))
        ratio = f"  ({means[1][0] / means[0][0]:.2f}x)" if len(means[0]) == 1 and means[0][0] else ""
        print(f"{text}\n    {pairs}{ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
