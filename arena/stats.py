"""Per-policy results with 95% confidence intervals, rating events and head-to-head.

Outcomes are taken per side (a team, or a lone player): partners share a result. In each
game a side's rank is 1 + the sides ahead + half the sides tied with it; its win share is
1 divided among the sides tied first (so a 2-player draw is half a win each, and the win
shares of a game add up to 1). In a cooperative game the lineups of a round, all on the
same deal, are compared with each other by their shared score in the same way.

One sample per game (per lineup in cooperative rounds) and policy: a policy holding several
seats gets the mean over its seats, so that its seats do not count as independent
evidence. Intervals: Wilson's score interval for the win rate, mean +- 1.96 standard errors
for score and rank.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from catzoo.arena.schedule import Structure

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Event:
    """One comparison: entrants (each the policies at its seats) and their ranks (1 best)."""

    entrants: tuple[tuple[int, ...], ...]
    ranks: tuple[float, ...]


def ranks_of(values) -> list[float]:
    """Rank 1 for the highest value; ties share the mean of the places they span."""
    return [1 + sum(w > v for w in values) + (sum(w == v for w in values) - 1) / 2
            for v in values]


def win_shares(values) -> list[float]:
    best = max(values)
    tied = sum(v == best for v in values)
    return [1.0 / tied if v == best else 0.0 for v in values]


def events_and_samples(records: list[dict], structure: Structure):
    """Rating events, and per policy a list of (win share, score, rank) samples."""
    samples: dict[int, list[tuple[float, float, float]]] = defaultdict(list)
    events: list[Event] = []
    if structure.cooperative:
        by_round: dict[int, list[dict]] = defaultdict(list)
        for rec in records:
            by_round[rec["round"]].append(rec)
        groups = [(recs, [r["returns"][0] for r in recs]) for recs in by_round.values()]
        for recs, values in groups:
            if len(recs) < 2:
                continue  # a round cut short by a failure compares nothing
            ranks, wins = ranks_of(values), win_shares(values)
            events.append(Event(tuple(tuple(r["seats"]) for r in recs), tuple(ranks)))
            for rec, rank, win in zip(recs, ranks, wins):
                _add(samples, rec["seats"], rec["scores"], [win] * len(rec["seats"]),
                     [rank] * len(rec["seats"]))
        return events, samples
    teams = structure.teams
    for rec in records:
        values = [rec["returns"][t[0]] for t in teams]
        winners = set(rec["winners"])
        team_wins = [any(s in winners for s in t) for t in teams]
        shares = [1.0 / sum(team_wins) if w else 0.0 for w in team_wins]
        ranks = ranks_of(values)
        seat_win, seat_rank = [0.0] * len(rec["seats"]), [0.0] * len(rec["seats"])
        for k, team in enumerate(teams):
            for s in team:
                seat_win[s], seat_rank[s] = shares[k], ranks[k]
        _add(samples, rec["seats"], rec["scores"], seat_win, seat_rank)
        events.append(Event(tuple(tuple(rec["seats"][s] for s in t) for t in teams),
                            tuple(ranks)))
    return events, samples


def _add(samples, seats, scores, wins, ranks) -> None:
    per: dict[int, list[int]] = defaultdict(list)
    for s, p in enumerate(seats):
        per[p].append(s)
    for p, mine in per.items():
        samples[p].append((float(np.mean([wins[s] for s in mine])),
                           float(np.mean([scores[s] for s in mine])),
                           float(np.mean([ranks[s] for s in mine]))))


def wilson(p: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a rate ``p`` observed over ``n`` samples: the project's
    one win-rate interval (the arena's tables, training's evaluations).

    With no sample (``n == 0``) it is ``(0.0, 1.0)``: nothing is known, every rate is
    possible (the interval's own limit as ``n`` falls to 0); ``p`` is then not read.

    Written out rather than taken from SciPy or statsmodels: a win share may be a
    fraction (a draw is half a win, a shared first place a share), which SciPy's
    ``binomtest`` refuses, and the formula is four lines.
    """
    if n < 0:
        raise ValueError(f"wilson: a sample size cannot be negative, got n={n}")
    if n == 0:
        return (0.0, 1.0)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"wilson: a rate must be in [0, 1], got p={p}")
    a = n + z * z

    def upper(q: float) -> float:  # the interval's upper end for the rate q
        return (2 * n * q + z * z + z * math.sqrt(z * z + 4 * n * q * (1 - q))) / (2 * a)

    # The ends are the roots of a x^2 - (2 n p + z^2) x + n p^2: their product gives the
    # lower end without the cancellation of "centre - half" (exactly 0 at p = 0), and
    # the symmetry p -> 1 - p the upper end (exactly 1 at p = 1).
    return (n * p * p / (a * upper(p)), 1.0 - n * (1 - p) ** 2 / (a * upper(1 - p)))


def mean_interval(values, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high); the interval is undefined (nan) below two samples."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if x.size < 2:
        return (m, math.nan, math.nan)
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size)
    return (m, m - half, m + half)


def policy_stats(samples: dict[int, list], num_policies: int,
                 max_rank: float | None = None) -> list[dict]:
    """Per policy: games, win rate, mean score and mean rank with their intervals; the
    rank's interval is clipped to the ranks possible, 1 to ``max_rank`` (the sides of a
    game), as a normal interval near a bound would pass it."""
    out = []
    for p in range(num_policies):
        rows = samples.get(p, [])
        wins = [r[0] for r in rows]
        win = float(np.mean(wins)) if rows else math.nan
        lo, hi = wilson(win, len(rows))
        out.append({
            "games": len(rows),
            "win_rate": win, "win_rate_low": lo, "win_rate_high": hi,
            **dict(zip(("mean_score", "mean_score_low", "mean_score_high"),
                       mean_interval([r[1] for r in rows]))),
            **dict(zip(("mean_rank", "mean_rank_low", "mean_rank_high"),
                       _clipped(mean_interval([r[2] for r in rows]), 1.0, max_rank))),
        })
    return out


def _clipped(interval: tuple[float, float, float], low: float, high: float | None):
    m, lo, hi = interval
    if high is None:
        return interval
    return (m, lo if math.isnan(lo) else max(lo, low), hi if math.isnan(hi) else min(hi, high))


def head_to_head(events: list[Event], num_policies: int) -> tuple[np.ndarray, np.ndarray]:
    """``share[i, j]``: how often i finished ahead of j when they met as rivals (ties count
    a half), and ``met[i, j]``: how many such meetings (a pair of seats in one event)."""
    ahead = np.zeros((num_policies, num_policies))
    met = np.zeros((num_policies, num_policies), dtype=np.int64)
    for ev in events:
        for a, (ea, ra) in enumerate(zip(ev.entrants, ev.ranks)):
            for b, (eb, rb) in enumerate(zip(ev.entrants, ev.ranks)):
                if a == b:
                    continue
                for i in set(ea):
                    for j in set(eb):
                        if i != j:
                            met[i, j] += 1
                            ahead[i, j] += 1.0 if ra < rb else 0.5 if ra == rb else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(met > 0, ahead / np.maximum(met, 1), np.nan)
    return share, met


def pair_comparison(records: list[dict], events: list[Event], cooperative: bool):
    """Policy 0 against policy 1 with a 95% interval, one sample per round (a deal played
    in every seating; its rotations are not independent evidence). Competitive games: the
    share of their meetings as rivals in which 0 finished ahead (ties half), clipped to
    [0, 1]. Cooperative games: the mean of 0's lineup's score minus 1's on the same deal.
    ``None`` when no round compared them."""
    by_round: dict[int, list[float]] = defaultdict(list)
    if cooperative:
        for rec in records:
            if set(rec["seats"]) == {0}:
                by_round[rec["round"]].append(float(np.mean(rec["scores"])))
            elif set(rec["seats"]) == {1}:
                by_round[rec["round"]].append(-float(np.mean(rec["scores"])))
        samples = [sum(v) for v in by_round.values() if len(v) == 2]
        metric, bounds = "score difference", (-math.inf, math.inf)
    else:
        for rec, ev in zip(records, events):
            ahead = [1.0 if ra < rb else 0.5 if ra == rb else 0.0
                     for ea, ra in zip(ev.entrants, ev.ranks)
                     for eb, rb in zip(ev.entrants, ev.ranks)
                     if 0 in ea and 1 not in ea and 1 in eb and 0 not in eb]
            if ahead:
                by_round[rec["round"]].append(float(np.mean(ahead)))
        samples = [float(np.mean(v)) for v in by_round.values()]
        metric, bounds = "share ahead", (0.0, 1.0)
    if not samples:
        return None
    m, lo, hi = mean_interval(samples)
    return {"metric": metric, "value": m, "low": max(lo, bounds[0]), "high": min(hi, bounds[1]),
            "rounds": len(samples)}
