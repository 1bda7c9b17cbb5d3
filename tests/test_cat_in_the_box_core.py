"""Cat in the Box's compiled core seen from Python: the generator it deals from, pinned
deals, and the master vector it keeps step by step."""

from __future__ import annotations

import json
import random
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.games.base import SeedError, shuffle
from catzoo.games.cat_in_the_box import CatInTheBoxState
from catzoo.games.cat_in_the_box.options import COPIES, CatInTheBoxOptions
from tests.helpers import assert_replays


def python_deal(n: int, rng: random.Random):
    """A deal as the Python engine dealt it: the sorted deck shuffled by chance.shuffle."""
    o = CatInTheBoxOptions(num_players=n)
    deck = [k for k in range(o.max_number) for _ in range(COPIES)]
    shuffle(deck, rng)
    h = o.hand_size
    return tuple(tuple(sorted(deck[p * h:(p + 1) * h])) for p in range(n)), tuple(deck[n * h:])


@settings(max_examples=30, deadline=None)
@given(n=st.sampled_from([2, 3, 4, 5]), seed=st.integers(0, 2**70))
def test_the_core_deals_what_random_random_deals(n, seed):
    rng = random.Random(seed)
    s = CatInTheBoxState.new(num_players=n, seed=seed)
    assert s.chance[0] == python_deal(n, rng)
    assert s.rng.getstate() == rng.getstate()  # the same draws consumed


@settings(max_examples=20, deadline=None)
@given(n=st.sampled_from([2, 3, 4, 5]), seed=st.integers(0, 2**40), other=st.integers(0, 2**40))
def test_pinned_deals_draw_nothing_and_a_new_generator_deals_on(n, seed, other):
    first = CatInTheBoxState.new(num_players=n, seed=other).chance[0]
    s = CatInTheBoxState.new(num_players=n, seed=seed, chance=[first])
    assert s.chance == [first]
    s.rng = random.Random(other + 1)  # as ISMCTS gives its determinizations
    rng = random.Random(seed)
    while s.round_index == 0:
        s.apply(rng.choice(s.legal_actions()))
    if not s.is_terminal():
        assert s.chance[1] == python_deal(n, random.Random(other + 1))
    assert_replays(s)


def test_pinned_deals_are_checked_in_full():
    good = CatInTheBoxState.new(num_players=3, seed=1).chance[0]
    hands, leftover = good
    bad_cases = [
        ((hands[:2], leftover), "the hands: holds 2 items, not 3"),
        (((hands[0][:9],) + hands[1:], leftover), "the hand of player 0: holds 9 cards, not 10"),
        ((hands, (0,)), "the leftover cards: holds 1 cards, not 0"),
        (((hands[0][:9] + (6,),) + hands[1:], leftover), "6 is not a card (0 to 5)"),
        (((hands[0][:9] + (-1,),) + hands[1:], leftover), "-1 is not a card"),
        (((hands[0][:9] + ("x",),) + hands[1:], leftover), "'x' is not a card"),
        (((hands[0][:9] + (hands[0][0] ^ 1,),) + hands[1:], leftover), "the deck has 5"),
        (5, "must be a list"),
    ]
    for outcome, message in bad_cases:
        with pytest.raises(ValueError, match=re.escape(message)) as err:
            CatInTheBoxState.new(num_players=3, chance=[good, outcome])
        assert "chance[1]" in str(err.value)  # the round whose deal is wrong
    # the core guards its arrays for any caller of its own
    from catzoo.games.cat_in_the_box.core import Core
    from catzoo.games.compiled import core_config

    config = core_config(CatInTheBoxState.core_module, CatInTheBoxState.new(num_players=3).options)
    for outcome, message in (((hands[:2], leftover), "must hold 3 hands of 10 cards"),
                             (((hands[0][:9] + (6,),) + hands[1:], leftover), "card 6"),
                             (5, "must be \\(hands, leftover\\)")):
        with pytest.raises(ValueError, match=message):
            Core.new(config, 0, [outcome])


@settings(max_examples=25, deadline=None)
@given(n=st.sampled_from([2, 3, 4, 5]), seed=st.integers(0, 2**32), order=st.permutations(
    ["blue", "yellow", "green", "red"]))
def test_the_master_vector_kept_step_by_step_is_the_one_written_from_the_state(n, seed, order):
    s = CatInTheBoxState.new(num_players=n, seed=seed, row_order=tuple(order))
    rng = random.Random(seed)
    while True:
        assert s._core.rebuilt_master() == s.master.tobytes()
        if s.is_terminal():
            break
        s.apply(rng.choice(s.legal_actions()))


def test_unseeded_games_differ_and_replay_from_their_chance_record():
    a, b = CatInTheBoxState.new(num_players=4), CatInTheBoxState.new(num_players=4)
    assert a.chance != b.chance
    rng = random.Random(0)
    while not a.is_terminal():
        a.apply(rng.choice(a.legal_actions()))
    log = json.loads(a.to_json())
    assert log["seed"] is None
    assert CatInTheBoxState.replay(log).scores() == a.scores()


def test_seeds_are_non_negative_ints_as_for_every_engine():
    for bad in ("abc", -5, 1.0, True):
        with pytest.raises(SeedError, match="seed"):
            CatInTheBoxState.new(seed=bad)
    assert CatInTheBoxState.new(seed=np.int64(5)).chance == CatInTheBoxState.new(seed=5).chance


def test_the_setters_refuse_bad_input_and_change_nothing():
    s = CatInTheBoxState.new(num_players=2, seed=4)
    core = s._core
    before = core.fields(), core.mt_state, s.master.tobytes()
    bad_calls = [
        (lambda: core.set_hand(0, [1] * 8 + [6]), "count 6 is out of range"),
        (lambda: core.set_hand(0, [1] * 8), "8 counts, expected 9"),
        (lambda: core.set_leftover((0, 1, 2, 3, 9)), "card 9 is out of range"),
        (lambda: core.set_leftover((0, 1)), "2 leftover cards, expected 5"),
        (lambda: core.set_aside_card(0, 9), "card 9 is out of range"),
        (lambda: core.set_scores(totals=[1, 2, 3]), "3 totals for 2 players"),
        (lambda: core.set_scores(totals=[1, 2], rounds=[[1, 2, 3]]), "rounds of 2 scores"),
        (lambda: setattr(core, "mt_state", (0,) * 624 + (700,)), "an index in 0..624"),
    ]
    for call, message in bad_calls:
        with pytest.raises(ValueError, match=message):
            call()
        assert (core.fields(), core.mt_state, s.master.tobytes()) == before
    with pytest.raises(OverflowError):
        core.mt_state = (2**40,) + (0,) * 624
    assert (core.fields(), core.mt_state, s.master.tobytes()) == before
