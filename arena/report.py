"""The arena's outputs: a printed table, JSON, CSV and a PNG plot."""

from __future__ import annotations

import csv
import json
import math
import os

import numpy as np

COLUMNS = ("policy", "games", "rating", "rating_low", "rating_high", "win_rate", "win_rate_low",
           "win_rate_high", "mean_score", "mean_score_low", "mean_score_high", "mean_rank",
           "mean_rank_low", "mean_rank_high", "seconds_per_move")


def _num(x, fmt: str) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


def _ci(row: dict, key: str, fmt: str) -> str:
    return (f"{_num(row[key], fmt)} [{_num(row[key + '_low'], fmt)}, "
            f"{_num(row[key + '_high'], fmt)}]")


def table(result) -> str:
    rows = result.summary()
    rt = result.ratings()
    head = ("policy", "games", "rating [95% CI]", "win rate [95% CI]", "mean score [95% CI]",
            "mean rank [95% CI]", "s/move")
    body = [(r["policy"], str(r["games"]), _ci(r, "rating", ".1f"), _ci(r, "win_rate", ".3f"),
             _ci(r, "mean_score", ".2f"), _ci(r, "mean_rank", ".2f"),
             _num(r["seconds_per_move"], ".4f")) for r in rows]
    widths = [max(len(x[i]) for x in (head, *body)) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in (head, *body)]
    lines.insert(1, "  ".join("-" * w for w in widths))
    kind = ("cooperative: lineups compared on the same deal" if result.structure.cooperative
            else f"sides: {len(result.structure.teams)}")
    title = (f"{result.game}, {result.num_players} players ({kind}); {len(result.records)} "
             f"games, seed {result.seed}; ratings: {rt['method']}")
    out = [title, *lines]
    share, met = result.head_to_head()
    if len(result.names) > 1:
        out += ["", "head-to-head (row finished ahead of column, ties half):"]
        w = max(len(n) for n in result.names)
        out.append(" " * (w + 2) + "  ".join(f"{i:>6}" for i in range(len(result.names))))
        for i, name in enumerate(result.names):
            cells = ["     -" if met[i, j] == 0 else f"{share[i, j]:6.3f}"
                     for j in range(len(result.names))]
            out.append(f"{name.ljust(w)} {i:>1} " + "  ".join(cells))
    pair = result.pair()
    if pair is not None:
        a, b = result.names
        if pair["metric"] == "share ahead":
            text = (f"{a} finished ahead of {b} in {pair['value']:.1%} "
                    f"[{pair['low']:.1%}, {pair['high']:.1%}] of their meetings")
        else:
            text = (f"{a}'s team scored {pair['value']:+.2f} [{pair['low']:+.2f}, "
                    f"{pair['high']:+.2f}] more than {b}'s on the same deals")
        out += ["", (f"{text} (95% interval over {pair['rounds']} deals, each played in "
                     "every seating)")]
    if result.failure is not None:
        out += ["", (f"STOPPED by a failure of policy {result.failure['policy']!r}: "
                     f"{result.failure['problem'].splitlines()[0]}")]
    return "\n".join(out)


def to_dict(result) -> dict:
    share, met = result.head_to_head()
    return {
        "game": result.game, "num_players": result.num_players, "seed": result.seed,
        "options": result.options, "mixed_teams": result.mixed_teams,
        "teams": [list(t) for t in result.structure.teams],
        "cooperative": result.structure.cooperative,
        "policies": result.names, "games_played": len(result.records),
        "games_scheduled": result.scheduled, "workers": result.workers,
        "seconds": result.seconds, "rating_method": result.ratings()["method"],
        "summary": [_clean(r) for r in result.summary()],
        "head_to_head": {"share": _clean(share.tolist()), "met": met.tolist()},
        "pair": _clean(result.pair()),
        "failure": result.failure, "games": result.records,
    }


def _clean(value):
    """JSON has no NaN: undefined values become null."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def save(result, folder, stem: str | None = None, plot: bool = True) -> dict:
    os.makedirs(folder, exist_ok=True)
    stem = stem or f"arena_{result.game}"
    paths = {"json": os.path.join(folder, stem + ".json"),
             "csv": os.path.join(folder, stem + ".csv")}
    with open(paths["json"], "w") as f:
        json.dump(to_dict(result), f, indent=1)
    with open(paths["csv"], "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        for row in result.summary():
            writer.writerow({k: row[k] for k in COLUMNS})
    if plot and result.records:
        paths["png"] = os.path.join(folder, stem + ".png")
        draw(result, paths["png"])
    return paths


def plot_layout(result) -> tuple[list[int], list[str], list[str]]:
    """The plot's policies in rating order (best first, as the table), a short label for
    each (the spec without options or path, see ``short_name``; numbered when two would
    read alike) and the legend lines giving each label's full spec."""
    from catzoo.policies.registry import short_name

    index = {name: i for i, name in enumerate(result.names)}
    order = [index[r["policy"]] for r in result.summary()]
    short = [short_name(result.names[i].split("#")[0]) for i in order]
    labels = [s if short.count(s) == 1 else f"{s} {short[:k].count(s) + 1}"
              for k, s in enumerate(short)]
    legend = [f"{label}: {result.names[i]}" for label, i in zip(labels, order)
              if label != result.names[i]]
    return order, labels, legend


def draw(result, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = result.summary()
    share, met = result.head_to_head()
    order, labels, legend = plot_layout(result)
    k = len(result.names)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * k + 3 + 0.22 * len(legend)),
                                      gridspec_kw={"width_ratios": [1.2, 1]})
    y = np.arange(len(rows))[::-1]
    rating = np.array([r["rating"] for r in rows])
    low = np.array([r["rating_low"] for r in rows])
    high = np.array([r["rating_high"] for r in rows])
    left.errorbar(rating, y, xerr=[rating - low, high - rating], fmt="o", capsize=4)
    left.set_yticks(y, labels)
    left.set_xlabel(f"rating, 95% interval ({result.ratings()['method']})")
    left.set_title(f"{result.game}, {result.num_players} players, {len(result.records)} games")
    left.grid(axis="x", alpha=0.3)
    # rows and columns in rating order, best first, as on the left
    met, share = met[np.ix_(order, order)], share[np.ix_(order, order)]
    shown = np.where(met > 0, share, np.nan)
    image = right.imshow(shown, vmin=0, vmax=1, cmap="RdYlGn")
    for i in range(k):
        for j in range(k):
            if met[i, j]:
                right.text(j, i, f"{share[i, j]:.2f}", ha="center", va="center", fontsize=8)
    right.set_xticks(range(k), labels, rotation=30, ha="right")
    right.set_yticks(range(k), labels)
    right.set_title("head-to-head: row ahead of column")
    fig.colorbar(image, ax=right, fraction=0.046)
    bottom = 0.0
    if legend:
        bottom = min(0.45, (0.15 * len(legend) + 0.35) / fig.get_figheight())
        fig.text(0.01, 0.01, "\n".join(["labels:", *legend]), fontsize=8, va="bottom",
                 family="monospace")
    fig.tight_layout(rect=(0, bottom, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
