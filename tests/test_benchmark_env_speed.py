"""The env speed benchmark's measurement (no timing is asserted: the figures are its
output, not a test's): interleaved chunks give each env its share of CPU time, and the
script prints a row per env and player count."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from catzoo.envs import cat_tree_v0

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "env_speed.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("env_speed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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


def test_script_prints_a_row_per_player_count(bench, capsys):
    bench.main(["--games", "lunar", "--seconds", "0.02", "--trials", "1", "--chunk", "0.01"])
    out = capsys.readouterr().out
    assert "texas_holdem_v4 (reference)" in out
    for n in (2, 4):
        assert f"floor for lunar_v0 ({n}p)" in out
        row = next(line for line in out.splitlines() if line.startswith(f"lunar_v0 ({n}p)"))
        assert row.rstrip().endswith("x") and "%" in row
