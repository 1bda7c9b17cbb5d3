"""Ratings fit from the arena's comparisons.

* Two sides per comparison, each held by one policy: a Bradley-Terry fit (maximum
  likelihood, by Hunter's MM iterations) on the Elo scale, ``1500 + 400 log10(gamma)``
  with the mean rating at 1500. A draw counts half a win each way, and every pair that met
  gets one virtual drawn game so that a perfect record still has a finite rating. The 95%
  interval is +- 1.96 standard errors from the inverse Fisher information (its pseudo-
  inverse: ratings are defined up to their mean, fixed at 1500). With two policies this is
  ``n = games + 1``, ``p = (wins + draws/2 + 1/2) / n``, rating difference
  ``400 log10(p / (1 - p))``, standard error of each rating ``400 / ln 10 / (2 sqrt(n p (1 - p)))``.
* Otherwise (more sides, teams of mixed policies, cooperative lineups): OpenSkill's
  Plackett-Luce model, fed the comparisons in game order, without the dynamics term
  (``tau=0``: a bot's skill does not drift during an arena); rating ``mu``, interval
  ``mu +- 1.96 sigma``. A policy at several places of one comparison gets the mean of its
  updates.
"""

from __future__ import annotations

import math

import numpy as np

from catzoo.arena.stats import Z95, Event

ELO_BASE = 1500.0
ELO_SCALE = 400.0 / math.log(10.0)


def fit(events: list[Event], num_policies: int) -> dict:
    if is_two_sided(events):
        return bradley_terry(events, num_policies)
    return plackett_luce(events, num_policies)


def is_two_sided(events: list[Event]) -> bool:
    return bool(events) and all(len(e.entrants) == 2 and all(len(set(x)) == 1 for x in e.entrants)
                                for e in events)


def pair_counts(events: list[Event], k: int) -> tuple[np.ndarray, np.ndarray]:
    wins = np.zeros((k, k))
    games = np.zeros((k, k))
    for e in events:
        i, j = e.entrants[0][0], e.entrants[1][0]
        if i == j:
            continue
        ri, rj = e.ranks
        w = 1.0 if ri < rj else 0.5 if ri == rj else 0.0
        wins[i, j] += w
        wins[j, i] += 1.0 - w
        games[i, j] += 1
        games[j, i] += 1
    return wins, games


def bradley_terry(events: list[Event], k: int, iterations: int = 10_000) -> dict:
    wins, games = pair_counts(events, k)
    met = games > 0
    wins = wins + 0.5 * met  # the virtual draw
    games = games + 1.0 * met
    gamma = np.ones(k)
    total = wins.sum(axis=1)
    for _ in range(iterations):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), 1.0)
        new = new / math.exp(np.mean(np.log(new)))
        if np.max(np.abs(np.log(new) - np.log(gamma))) < 1e-12:
            gamma = new
            break
        gamma = new
    theta = np.log(gamma)
    p = gamma[:, None] / (gamma[:, None] + gamma[None, :])
    info = -games * p * p.T
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    se = np.sqrt(np.clip(np.diag(np.linalg.pinv(info)), 0.0, None))
    rating = ELO_BASE + ELO_SCALE * theta
    half = Z95 * ELO_SCALE * se
    return {"method": "elo (bradley-terry)", "rating": rating.tolist(),
            "low": (rating - half).tolist(), "high": (rating + half).tolist()}


def plackett_luce(events: list[Event], k: int) -> dict:
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0, limit_sigma=False)
    mu = [model.mu] * k
    sigma = [model.sigma] * k
    for e in events:
        teams = [[model.rating(mu=mu[p], sigma=sigma[p]) for p in entrant] for entrant in e.entrants]
        new = model.rate(teams, ranks=list(e.ranks))
        updates: dict[int, list] = {}
        for entrant, team in zip(e.entrants, new):
            for p, r in zip(entrant, team):
                updates.setdefault(p, []).append(r)
        for p, rs in updates.items():
            mu[p] = float(np.mean([r.mu for r in rs]))
            sigma[p] = float(np.mean([r.sigma for r in rs]))
    mu_a, sigma_a = np.array(mu), np.array(sigma)
    return {"method": "openskill plackett-luce (mu)", "rating": mu_a.tolist(),
            "low": (mu_a - Z95 * sigma_a).tolist(), "high": (mu_a + Z95 * sigma_a).tolist()}
