"""The env speed benchmarks' measurement (no timing is asserted: the figures are their
output, not a test's): interleaved chunks give each env its share of CPU time, the
scripts print a row per env and player count, and the A/B script imports a revision as
a package of its own."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from catzoo.envs import cat_tree_v0
from tests.helpers import BENCHMARKS, load_benchmark


@pytest.fixture(scope="module")
def bench():
    return load_benchmark("env_speed")


def test_compare_gives_both_envs_their_seconds_in_whole_games(bench):
    env = cat_tree_v0.env()
    floor = bench.wrap(bench.FloorEnv(2, 10, 5, steps_per_game=7))
    env_run, floor_run = bench.compare(env, floor, seconds=0.05, chunk=0.01, seed=3)
    for run in (env_run, floor_run):
        assert run.cpu >= 0.05 and run.games >= 1
    # the floor's games are exactly its length plus one final step per agent
    assert floor_run.steps == floor_run.games * (7 + 2)
    # the Cat Tree env's games have a fixed length too: 8 turns of keep, order, 2 places
    assert env_run.steps % env_run.games == 0


def test_a_random_game_plays_to_the_end_and_counts_every_agent_step(bench):
    env = cat_tree_v0.env()
    steps = bench.random_game(env, np.random.default_rng(0), seed=5)
    assert not env.agents  # every agent stepped out of the ended game
    # 8 turns of keep (both), order (the leader), place (both): 40, then a step per agent
    assert steps == 8 * 5 + 2
    assert bench.random_game(env, np.random.default_rng(0), seed=5) == steps


def test_script_prints_a_row_per_player_count(bench, capsys):
    bench.main(["--games", "lunar", "--seconds", "0.02", "--trials", "1", "--chunk", "0.01"])
    out = capsys.readouterr().out
    assert "texas_holdem_v4 (reference)" in out
    for n in (2, 4):
        assert f"floor for lunar_v0 ({n}p)" in out
        row = next(line for line in out.splitlines() if line.startswith(f"lunar_v0 ({n}p)"))
        assert row.rstrip().endswith("x") and "%" in row


def test_ab_script_compares_the_tree_with_a_revision(capsys):
    root = BENCHMARKS.parent
    if subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                      check=False).returncode:
        pytest.skip("not a git checkout: the A/B script reads revisions with git")
    module = load_benchmark("env_ab")
    module.main(["HEAD", "--games", "cat_tree", "--seconds", "0.02", "--trials", "1"])
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("cat_tree_v0 (2p)"))
    ratio = float(row.split()[2])
    assert 0 < ratio < 10  # the same code on both sides, timed for a fiftieth of a second
    # the revision was imported as its own package and left no module behind
    assert not [m for m in sys.modules if m.startswith("catzoo_rev")]
    with pytest.raises(SystemExit, match="cannot read revision 'no-such-revision'"):
        module.main(["no-such-revision", "--games", "cat_tree"])
