"""Ratings, intervals and per-policy statistics on hand-made results, checked against
values computed by hand (formulas in the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from catzoo.arena.ratings import ELO_SCALE, bradley_terry, fit, plackett_luce
from catzoo.arena.schedule import Structure
from catzoo.arena.stats import (
    Event,
    events_and_samples,
    head_to_head,
    policy_stats,
    ranks_of,
    wilson,
)

Z = 1.959963984540054


def two_player_events(wins_a: int, draws: int, wins_b: int) -> list[Event]:
    return ([Event(((0,), (1,)), (1.0, 2.0))] * wins_a + [Event(((0,), (1,)), (1.5, 1.5))] * draws
            + [Event(((1,), (0,)), (1.0, 2.0))] * wins_b)


def test_bradley_terry_two_policies_matches_the_closed_form():
    # 7 wins, 2 draws, 1 loss; plus one virtual draw: n = 11, p = (7 + 1 + 0.5) / 11.
    rt = bradley_terry(two_player_events(7, 2, 1), 2)
    n, p = 11, 8.5 / 11
    diff = 400 * math.log10(p / (1 - p))  # = 409.5... Elo points
    assert rt["rating"][0] - rt["rating"][1] == pytest.approx(diff, abs=1e-6)
    assert rt["rating"][0] + rt["rating"][1] == pytest.approx(3000.0)
    se = ELO_SCALE / (2 * math.sqrt(n * p * (1 - p)))
    assert rt["high"][0] - rt["rating"][0] == pytest.approx(Z * se, rel=1e-6)
    assert rt["rating"][1] - rt["low"][1] == pytest.approx(Z * se, rel=1e-6)
    assert rt["rating"][0] == pytest.approx(1500 + diff / 2, abs=1e-6)


def test_bradley_terry_even_record_and_three_policy_cycle_rate_equal():
    assert bradley_terry(two_player_events(3, 0, 3), 2)["rating"] == pytest.approx([1500, 1500])
    cycle = [Event(((0,), (1,)), (1, 2)), Event(((1,), (2,)), (1, 2)), Event(((2,), (0,)), (1, 2))]
    rt = bradley_terry(cycle * 4, 3)
    assert rt["rating"] == pytest.approx([1500] * 3)
    # Symmetric information matrix: each policy's interval is the same width.
    widths = np.array(rt["high"]) - np.array(rt["low"])
    assert widths == pytest.approx([widths[0]] * 3)


def test_fit_picks_bradley_terry_for_two_sides_and_plackett_luce_otherwise():
    assert fit(two_player_events(2, 0, 1), 2)["method"].startswith("elo")
    three = [Event(((0,), (1,), (2,)), (1, 2, 3))]
    assert fit(three, 3)["method"].startswith("openskill")


def test_plackett_luce_one_game_matches_openskill_by_hand():
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0, limit_sigma=False)
    a, b, c = model.rating(), model.rating(), model.rating()
    [[ra], [rb], [rc]] = model.rate([[a], [b], [c]], ranks=[2, 1, 3])
    rt = plackett_luce([Event(((0,), (1,), (2,)), (2, 1, 3))], 3)
    assert rt["rating"] == pytest.approx([ra.mu, rb.mu, rc.mu])
    assert rt["high"][2] - rt["rating"][2] == pytest.approx(Z * rc.sigma)
    assert rt["rating"][1] > rt["rating"][0] > rt["rating"][2]


def test_ranks_win_shares_and_intervals_on_a_hand_made_result_set():
    structure = Structure(((0,), (1,), (2,)))
    records = [  # seats hold policies 0, 1, 0 (policy 0 at two seats)
        {"round": 0, "seats": [0, 1, 0], "scores": [5, 3, 1], "returns": [1, 0, -1], "winners": [0]},
        {"round": 1, "seats": [0, 1, 0], "scores": [2, 2, 4], "returns": [-.5, -.5, 1], "winners": [2]},
        {"round": 2, "seats": [1, 0, 0], "scores": [6, 6, 0], "returns": [.5, .5, -1], "winners": [0, 1]},
    ]
    events, samples = events_and_samples(records, structure)
    assert ranks_of([1, -0.5, -0.5]) == [1, 2.5, 2.5]
    # policy 0: game 1 seats 0 & 2 -> win (1+0)/2, score (5+1)/2, rank (1+3)/2;
    # game 2: win (0+1)/2, score 3, rank (2.5+1)/2; game 3 (seats 1, 2): win (.5+0)/2 = .25.
    assert samples[0] == [(0.5, 3.0, 2.0), (0.5, 3.0, 1.75), (0.25, 3.0, 2.25)]
    assert samples[1] == [(0.0, 3.0, 2.0), (0.0, 2.0, 2.5), (0.5, 6.0, 1.5)]
    stats = policy_stats(samples, 2)
    wins = np.array([0.5, 0.5, 0.25])
    assert stats[0]["win_rate"] == pytest.approx(wins.mean())
    assert (stats[0]["win_rate_low"], stats[0]["win_rate_high"]) == pytest.approx(
        wilson(wins.mean(), 3))
    ranks = np.array([2.0, 1.75, 2.25])
    half = Z * ranks.std(ddof=1) / math.sqrt(3)
    assert stats[0]["mean_rank_low"] == pytest.approx(2.0 - half)
    assert stats[1]["mean_score"] == pytest.approx(11 / 3)
    assert stats[1]["mean_score_high"] > 11 / 3
    # Wilson by hand for p = 0.5, n = 3.
    p, n = 0.5, 3
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    assert sum(wilson(p, n)) / 2 == pytest.approx(centre)
    share, met = head_to_head(events, 2)
    # game 1: seat 0 (p0) ahead of p1, p1 ahead of seat 2 (p0); game 2: p0 seat 2 ahead,
    # seat 0 (p0) tied with p1; game 3: p1 tied with seat 1 (p0), ahead of seat 2 (p0).
    assert met[0, 1] == met[1, 0] == 6
    assert share[0, 1] == pytest.approx((1 + 0 + 0.5 + 1 + 0.5 + 0) / 6)
    assert share[0, 1] + share[1, 0] == pytest.approx(1.0)


def test_cooperative_rounds_compare_lineups_on_the_same_deal():
    coop = Structure(((0, 1),))
    records = [{"round": 0, "seats": [0, 0], "scores": [40, 40], "returns": [.4, .4], "winners": [0, 1]},
               {"round": 0, "seats": [1, 1], "scores": [90, 90], "returns": [.9, .9], "winners": [0, 1]}]
    events, samples = events_and_samples(records, coop)
    assert events == [Event(((0, 0), (1, 1)), (2.0, 1.0))]
    assert samples[1] == [(1.0, 90.0, 1.0)] and samples[0] == [(0.0, 40.0, 2.0)]
    assert fit(events, 2)["method"].startswith("elo")
