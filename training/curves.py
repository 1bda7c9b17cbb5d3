"""The learning curve of a run, drawn from its ``logs/eval.csv`` and ``logs/train.csv``.

Left: each periodic evaluation's result against each opponent over learner steps, with its
95% interval (the policy's share of finishing ahead in balanced tables; in a cooperative
game, its team's mean score against the opponent team's). Right: the training return, the
learner's mean result per finished game against each kind of table.
"""

from __future__ import annotations

import csv
import os
from pathlib import Path


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def draw(run_dir: str | Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run_dir = Path(run_dir)
    evals = _rows(run_dir / "logs" / "eval.csv")
    train = _rows(run_dir / "logs" / "train.csv")
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for opponent in sorted({r["opponent"] for r in evals}):
        rows = [r for r in evals if r["opponent"] == opponent]
        x = [int(r["step"]) for r in rows]
        y = [float(r["value"]) for r in rows]
        lo = [float(r["low"]) for r in rows]
        hi = [float(r["high"]) for r in rows]
        (line,) = left.plot(x, y, marker="o", label=f"vs {opponent}")
        left.fill_between(x, lo, hi, alpha=0.2, color=line.get_color())
    metric = evals[0]["metric"] if evals else "share ahead"
    if metric == "share ahead":
        left.axhline(0.5, color="grey", lw=0.8, ls="--")
    left.set_xlabel("learner steps")
    left.set_ylabel(metric)
    left.set_title("evaluation (95% intervals)")
    if evals:
        left.legend()
    cooperative = metric != "share ahead"
    # Self-play in a zero-sum game returns 0 by symmetry: drawn only when cooperative.
    for kind in ("league", "heuristic", "random") + (("self_play",) if cooperative else ()):
        key = f"return_{kind}"
        pts = [(int(r["step"]), float(r[key])) for r in train if r.get(key) not in (None, "")]
        if pts:
            right.plot(*zip(*pts), label=kind.replace("_", " "))
    right.set_xlabel("learner steps")
    right.set_ylabel("mean learner return per game")
    right.set_title("training return")
    if right.lines:
        right.legend()
    fig.suptitle(run_dir.name)
    fig.tight_layout()
    out = run_dir / "learning_curve.png"
    tmp = out.with_name(f".{out.name}.tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, out)
    return out
