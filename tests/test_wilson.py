"""One Wilson interval for the whole project (``catzoo.arena.stats.wilson``): the arena's
tables and training's evaluations report the same interval for the same sample."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from catzoo.arena.stats import Z95, policy_stats, wilson


def test_worked_values():
    # 8 wins in 10: centre (0.8 + z^2/20) / (1 + z^2/10), half-width by the formula
    z2 = Z95 * Z95
    centre = (0.8 + z2 / 20) / (1 + z2 / 10)
    half = Z95 * math.sqrt(0.8 * 0.2 / 10 + z2 / 400) / (1 + z2 / 10)
    assert wilson(0.8, 10) == pytest.approx((centre - half, centre + half))
    assert wilson(0.8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)  # published tables
    assert wilson(0.5, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)


def test_an_empty_sample_allows_every_rate():
    assert wilson(0.0, 0) == (0.0, 1.0)
    assert wilson(math.nan, 0) == (0.0, 1.0)  # no sample: the rate is not read


def test_no_win_and_every_win_touch_the_ends():
    assert wilson(0.0, 7)[0] == 0.0 and wilson(0.0, 7)[1] > 0.0
    assert wilson(1.0, 7)[1] == 1.0 and wilson(1.0, 7)[0] < 1.0


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="n=-1"):
        wilson(0.5, -1)
    with pytest.raises(ValueError, match="p=1.5"):
        wilson(1.5, 4)


@given(st.integers(1, 10_000), st.data())
def test_the_interval_holds_the_rate_and_narrows_with_more_samples(n, data):
    p = data.draw(st.floats(0.0, 1.0))
    lo, hi = wilson(p, n)
    assert 0.0 <= lo <= p <= hi <= 1.0
    lo4, hi4 = wilson(p, 4 * n)
    assert hi4 - lo4 <= hi - lo + 1e-12


def test_the_arena_and_training_evaluation_use_it():
    import catzoo.training.eval as training_eval

    assert training_eval.wilson is wilson
    # a policy without a single game: the same interval as the function's
    assert (policy_stats({}, 1)[0]["win_rate_low"], policy_stats({}, 1)[0]["win_rate_high"]) \
        == wilson(math.nan, 0)


def test_a_training_evaluation_reports_the_wilson_interval_of_its_wins():
    from catzoo.policies.registry import make_policy
    from catzoo.training.eval import evaluate

    result = evaluate(lambda seat: make_policy("heuristic", "cat_in_the_box", 3, seed=seat),
                      "cat_in_the_box", 3, "random", 6, env_options={"rounds": "single"})
    assert result["win_rate_ci95"] == pytest.approx(list(wilson(result["win_rate"], 6)))
