"""The Cat Tree grid bound: above every game (exact optima of small deals, any options,
played games), tighter than the counting bound, and a proof on a reference deal."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.analysis.cat_tree.bound import PricedCounts, upper_bound
from catzoo.analysis.cat_tree.oracle import deals
from catzoo.games.cat_tree import CatTreeOptions
from catzoo.games.cat_tree.options import BOX, NUM_TYPES, PIPE
from tests.analysis.test_cat_tree_oracle import (
    any_options,
    bots_scores,
    brute_force,
    small_options,
)

pytest.importorskip("ortools")
from catzoo.analysis.cat_tree.grid_bound import best_bound, grid_bound, grid_value


def test_the_grid_programme_finds_a_pipe_beside_a_box_for_two_cards():
    # two cards on a 3 x 2 grid without altitude: a pipe and a hanger beside it (5 + 3 +
    # 5) beat two hangers (10), a scratcher pair (one group, 5) or a hammock (needs two)
    options = CatTreeOptions(width=3, height=2, turns=1)
    value, counts = grid_value(np.zeros(NUM_TYPES), options)
    assert value == 13
    expected = np.zeros((NUM_TYPES, 2))
    expected[PIPE, 0] = expected[BOX, 0] = 1
    assert (counts == expected).all()
    # priced: a pipe charged 10 is not worth placing (13 - 10 < 10, two hangers)
    prices = np.zeros(NUM_TYPES)
    prices[PIPE] = 10
    assert grid_value(prices, options)[0] == 10


@pytest.mark.parametrize("seed", range(6))
def test_each_programme_returns_a_grid_or_path_worth_its_value(seed):
    # the cards each reports are the ones its value was made of: the cuts of the grid
    # bound are exact (prices are multiples of 1/64, as the bound's are)
    rng = np.random.default_rng(seed)
    options = small_options(seed)
    deck = deals(1, seed=seed, options=options)[0]
    prices = np.round(rng.normal(3, 5, (NUM_TYPES, 2)) * 64) / 64
    value, counts = PricedCounts(deck, options).best(prices)
    assert value == (prices * counts).sum() and counts.sum() <= 2 * options.turns
    value, counts = grid_value(prices, options)
    score = value + (prices * counts).sum()
    assert score == int(score) >= 0 and counts.sum() <= 2 * options.turns


@pytest.mark.parametrize("seed", range(40))
def test_grid_bound_above_the_exact_optimum_of_small_games(seed):
    options = small_options(seed)
    deck = deals(1, seed=1000 + seed, options=options)[0]
    best = brute_force(deck, options)
    assert grid_bound(deck, options, order=False) >= best
    assert grid_bound(deck, options) >= best


def test_best_bound_is_exact_more_often_than_the_counting_bound():
    # not a validity check: on small games the grid programme closes most of the gap
    counting = best = 0
    for seed in range(40):
        options = small_options(seed)
        deck = deals(1, seed=1000 + seed, options=options)[0]
        exact = brute_force(deck, options)
        counting += upper_bound(deck, options) == exact
        best += best_bound(deck, options) == exact
    assert best >= counting + 5 and best >= 30


@settings(max_examples=12, deadline=None)
@given(options=any_options(6), seed=st.integers(0, 2**31))
def test_grid_bound_holds_for_any_options(options, seed):
    deck = deals(1, seed=seed, options=options)[0]
    bounds = grid_bound(deck, options, order=False), grid_bound(deck, options)
    assert max(bots_scores(deck, options, seed)) <= min(bounds)


def test_grid_bound_proves_the_best_known_plan_of_reference_deal_27_optimal():
    # the counting programme alone allows 193 on this deal; the grid programme, priced
    # against the kept cards alone, shows that no game on it beats the shipped plan's 181
    from catzoo.analysis.cat_tree.reference import load

    deal = load()[27]
    assert deal.score == 181
    assert grid_bound(deal.deck, order=False) == 181


def test_without_ortools_the_error_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "ortools", None)
    monkeypatch.setitem(sys.modules, "ortools.linear_solver", None)
    options = CatTreeOptions(width=3, height=2, turns=1)
    with pytest.raises(ImportError, match=r"catzoo\[oracle\]"):
        grid_bound(deals(1, seed=0, options=options)[0], options)


def test_181_is_the_best_score_of_any_game_under_the_default_options():
    # no game on any deal scores more (the grid programme priced against any 16 cards),
    # and reference deal 27's plan scores it: the counting bound is capped there
    from catzoo.analysis.cat_tree.bound import MAXIMA
    from catzoo.analysis.cat_tree.grid_bound import free_bound
    from catzoo.analysis.cat_tree.reference import load

    assert free_bound() == MAXIMA[CatTreeOptions()] == load()[27].score == 181
    small = CatTreeOptions(width=3, height=2, turns=1)
    assert free_bound(small) == 13  # a pipe beside a box, as above
