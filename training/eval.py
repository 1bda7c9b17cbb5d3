"""Strength measurement: a policy against a bot over many seeded games, seats rotated.

Competitive games: the policy (and copies of it at its partners' seats) against the bot
at every other seat; game ``i`` puts the policy at seat ``i % n``. Reported: mean final
standing (the env's zero-sum "standing" return) with a 95% normal CI, and the win rate
(sole or shared first place) with a 95% Wilson interval.

Cooperative games (one team holding every seat): the policy team's mean score against
the bot team's on the same deals, with a 95% CI of the paired difference.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from catzoo.arena.stats import Z95, wilson
from catzoo.policies.base import Policy
from catzoo.policies.match import play_match
from catzoo.policies.registry import make_policy


def mean_ci(values) -> tuple[float, float, float]:
    v = np.asarray(values, dtype=float)
    m = float(v.mean()) if v.size else 0.0
    half = Z95 * float(v.std(ddof=1)) / math.sqrt(v.size) if v.size > 1 else float("inf")
    return m, m - half, m + half


def evaluate(make_learner: Callable[[int], Policy], game: str, num_players: int,
             opponent: str, games: int, *, teams=(), env_options: dict | None = None,
             seed: int = 10_000_000) -> dict:
    """``make_learner(seat)`` builds the policy for a seat; ``opponent`` is a bot name."""
    env_options = dict(env_options or {})
    team_of = {s: set(t) for t in teams for s in t}
    cooperative = any(len(t) == num_players for t in teams)
    if games <= 0:
        return {"opponent": opponent, "games": 0}
    if cooperative:
        ours, theirs = [], []
        for i in range(games):
            mine = [make_learner(s) for s in range(num_players)]
            bots = [make_policy(opponent, game, num_players, seed=seed + i * 10 + s)
                    for s in range(num_players)]
            ours.append(np.mean(play_match(game, mine, seed + i, **env_options).scores))
            theirs.append(np.mean(play_match(game, bots, seed + i, **env_options).scores))
        diff = mean_ci(np.subtract(ours, theirs))
        return {"opponent": opponent, "games": games, "cooperative": True,
                "mean_score": mean_ci(ours)[0], "opponent_mean_score": mean_ci(theirs)[0],
                "score_diff": diff[0], "score_diff_ci95": [diff[1], diff[2]]}
    returns, wins = [], 0
    for i in range(games):
        seat = i % num_players
        team = team_of.get(seat, {seat})
        seats = [make_learner(s) if s in team else
                 make_policy(opponent, game, num_players, seed=seed + i * 10 + s)
                 for s in range(num_players)]
        result = play_match(game, seats, seed + i, **env_options)
        returns.append(result.returns[seat])
        wins += seat in result.winners
    m, lo, hi = mean_ci(returns)
    wlo, whi = wilson(wins / games, games)
    return {"opponent": opponent, "games": games, "mean_standing": m,
            "mean_standing_ci95": [lo, hi], "win_rate": wins / games,
            "win_rate_ci95": [wlo, whi]}


def summary(result: dict) -> str:
    if result.get("games", 0) == 0:
        return f"vs {result['opponent']}: not evaluated"
    if result.get("cooperative"):
        lo, hi = result["score_diff_ci95"]
        return (f"vs {result['opponent']} team: score {result['mean_score']:.2f} vs "
                f"{result['opponent_mean_score']:.2f}, diff {result['score_diff']:+.2f} "
                f"[{lo:+.2f}, {hi:+.2f}] over {result['games']} deals")
    lo, hi = result["mean_standing_ci95"]
    wlo, whi = result["win_rate_ci95"]
    return (f"vs {result['opponent']}: win rate {result['win_rate']:.1%} [{wlo:.1%}, {whi:.1%}], "
            f"mean standing {result['mean_standing']:+.3f} [{lo:+.3f}, {hi:+.3f}] over "
            f"{result['games']} games")


def main(argv=None) -> int:
    """``python -m catzoo.training.eval CHECKPOINT --games 1000 [--record]``: measure a
    checkpoint's strength; ``--record`` stores the figures in its policy.json, next to
    those of other opponents measured over as many games (so one process per opponent
    can run at once, each recording its own)."""
    import argparse
    import json
    import os
    import time

    from catzoo.training.checkpoint import WEIGHTS, load_policy, read_meta, resolve, save_policy

    p = argparse.ArgumentParser(description="strength of a policy checkpoint, seats rotated")
    p.add_argument("checkpoint", help="a checkpoint directory, or shipped:GAME[:Np]")
    p.add_argument("--games", type=int, default=1000)
    p.add_argument("--opponents", nargs="+", default=["random", "heuristic"])
    p.add_argument("--seed", type=int, default=20_000_000, help="first deal's seed")
    p.add_argument("--record", action="store_true",
                   help="write the results into policy.json (keeping other opponents' figures "
                        "over as many games)")
    args = p.parse_args(argv)
    policy = load_policy(args.checkpoint)
    path = resolve(args.checkpoint, policy.meta["num_players"])  # the folder --record writes
    meta = policy.meta
    results = {}
    for opp in args.opponents:
        t0 = time.process_time()
        r = evaluate(lambda seat: policy, meta["game"], meta["num_players"], opp, args.games,
                     teams=meta.get("teams", ()), env_options=meta["env_options"], seed=args.seed)
        r["seed"] = args.seed
        results[opp] = r
        print(f"{summary(r)}  ({time.process_time() - t0:.0f} CPU-s)", flush=True)
    if args.record:
        from safetensors.numpy import load

        weights = load((path / WEIGHTS).read_bytes())
        # Read again: another opponent's process may have recorded since this one loaded.
        meta = read_meta(path)
        meta = {k: v for k, v in meta.items() if k not in ("format", "weights_sha256")}
        strength = meta.get("strength") or {}
        if strength.get("games_per_opponent") != args.games:
            strength = {}
        meta["strength"] = {**strength, "games_per_opponent": args.games, "seats": "rotated",
                            **results}
        save_policy(path, weights, meta)
        print(f"recorded in {os.path.join(path, 'policy.json')}")
    print(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


# --- balanced tables (the arena's seating), for the batched trainer ---------------------------------
def balanced(policy, opponent, game: str, num_players: int, games: int,
             env_options: dict | None = None, seed: int = 10_000_000, workers: int = 1) -> dict:
    """``policy`` against ``opponent`` (a spec or a Policy) as ``catzoo arena`` seats two
    policies: on alternate seats (whole teams in team games), every rotation of a round on
    the same deal. Competitive games: the share of meetings in which ``policy`` finished
    ahead of ``opponent`` (ties half), with a 95% interval over rounds (each round's deal is
    one sample, so the rotations of a deal are not counted as independent). Cooperative
    games: the mean difference of the two teams' shared scores on the same deals.

    The arena plays it with the numeric libraries' pools at one thread (``CATZOO_THREADS``
    overrides) and gives them back after, so the trainer's own threads are untouched; a
    search opponent's budget counts CPU time (``catzoo.arena.runner``)."""
    from catzoo.arena import run_arena

    result = run_arena(game, [policy, opponent], games=games, num_players=num_players,
                       seed=seed, options=env_options, workers=workers)
    name = opponent if isinstance(opponent, str) else getattr(opponent, "name", "opponent")
    pair = result.pair() or {"metric": "share ahead", "value": math.nan, "low": math.nan,
                             "high": math.nan}
    return {"opponent": name, "games": len(result.records), "metric": pair["metric"],
            "value": pair["value"], "low": pair["low"], "high": pair["high"]}


def summary_line(result: dict) -> str:
    if result["metric"] == "share ahead":
        return (f"vs {result['opponent']}: ahead {result['value']:.1%} "
                f"[{result['low']:.1%}, {result['high']:.1%}] over {result['games']} games")
    return (f"vs {result['opponent']} team: score difference {result['value']:+.2f} "
            f"[{result['low']:+.2f}, {result['high']:+.2f}] over {result['games']} games")
