"""benchmarks/vector_speed.py's measurement (no timing is asserted): its sampler draws
legal actions uniformly whatever its thread count, and its loops and soak run and print."""

from __future__ import annotations

import numpy as np
import pytest

from catzoo import vector
from tests.helpers import load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("vector_speed")


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_sampler_draws_each_legal_action_uniformly(bench, threads):
    rng = np.random.default_rng(0)
    mask = (rng.random((101, 20)) < 0.3).astype(np.int8)
    mask[:, 7] = 1
    sample = bench.Sampler(101, 20, threads, seed=1)
    counts = np.zeros((101, 20))
    draws = 400
    for _ in range(draws):
        counts[np.arange(101), sample(mask)] += 1
    sample.close()
    assert not counts[mask == 0].any()  # never an illegal action
    legal = mask.sum(1, keepdims=True)
    expected = draws / legal
    # each legal action's count within 5 standard deviations of its binomial mean
    sd = np.sqrt(draws * (1 / legal) * (1 - 1 / legal))
    assert (np.abs(counts - expected)[mask == 1] <= (5 * sd + 1).repeat(20, 1)[mask == 1]).all()


def test_the_aec_env_beside_it_is_played_as_env_speed_plays_it(bench):
    assert bench.random_game.__module__ == "env_speed"
    assert bench.aec_speed(vector.games_with_core()[0], 2, 0.02) > 0


def test_the_loops_and_the_soak_run(bench, capsys):
    game = vector.games_with_core()[0]
    loop = bench.Loop(game, 2, 64, 2)
    loop.run(0.01)
    assert loop.steps > 0 and loop.engine <= loop.wall
    loop.close()
    bench.soak(game, 2, 64, 1, 64 * 200)
    out = capsys.readouterr().out
    assert "RSS" in out and "done" in out
