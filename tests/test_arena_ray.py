"""The arena on Ray (a local instance of 2 CPUs, shared by the Ray tests): the same games as
``--workers 1``, a killed worker's rounds played again with the same final table, a failing
policy reported as locally, policies shipped as data."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from catzoo.arena import ArenaPolicyError, ArenaSetupError, run_arena
from catzoo.arena.ray_backend import ray_available
from tests.helpers import without_clocks

pytestmark = [
    pytest.mark.skipif(not ray_available(),
                       reason="Ray is not installed (pip install 'catzoo[ray]')"),
    pytest.mark.xdist_group("ray"),  # one Ray instance per run: every Ray test on one worker
]

ROOT = Path(__file__).resolve().parent.parent
TAG_VAR = "CATZOO_TEST_RAY"  # set by the ray_cluster fixture (conftest.py)
KEY = ("policy", "games", "rating", "rating_low", "rating_high", "win_rate", "mean_score",
       "mean_rank")


def table(result):
    return [[row[k] for k in KEY] for row in result.summary()]


# Four policies of every kind that travels: bots, a search bot with options, a checkpoint
# (its files' bytes), and a bot of our own by import path.
LINEUP = ["heuristic", "ismcts:iterations=6", str(ROOT / "checkpoints" / "cat_in_the_box" / "4p"),
          "tests.arena_bots:Bomb:after=100000"]
ARGS = {"games": 8, "num_players": 4, "seed": 5}


def test_ray_arena_equals_the_local_one_game_for_game(ray_cluster):
    local = run_arena("cat_in_the_box", LINEUP, workers=1, **ARGS)
    remote = run_arena("cat_in_the_box", LINEUP, backend="ray", **ARGS)
    assert len(local.records) == 8
    assert without_clocks(remote.records) == without_clocks(local.records)
    assert [r["game"] for r in remote.records] == list(range(8))
    assert table(remote) == table(local)
    assert remote.workers == 2  # the cluster's CPUs
    assert ray_cluster.is_initialized()  # the caller's Ray is left as it was


def _our_busy_workers(tag: str) -> list[int]:
    """The workers of this test's Ray instance (they inherit its RAY_CLUSTER_TAG from the
    process that started it; other Ray instances may run on the machine) playing a task
    (Ray titles a busy worker ray::<task name>)."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            title = (proc / "cmdline").read_bytes()
            if not title.startswith(b"ray::play_rounds"):
                continue
            if f"{TAG_VAR}={tag}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def test_a_killed_workers_rounds_are_played_again_with_the_same_table(ray_cluster):
    lineup = ["random", "heuristic", "ismcts:iterations=20"]
    args = {"games": 24, "num_players": 3, "seed": 9, "options": {"rounds": "single"}}
    local = run_arena("cat_in_the_box", lineup, workers=1, **args)
    killed: list[int] = []
    stop = threading.Event()

    tag = os.environ.get(TAG_VAR)
    if not tag:
        pytest.skip(f"this Ray instance was not started by the tests' fixture ({TAG_VAR} unset)")

    def kill_one_busy_worker():
        while not stop.is_set() and not killed:
            for pid in _our_busy_workers(tag):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_one_busy_worker, daemon=True)
    killer.start()
    try:
        remote = run_arena("cat_in_the_box", lineup, backend="ray", **args)
    finally:
        stop.set()
        killer.join(timeout=10)
    # The task of the killed worker returned its records all the same: Ray ran it again.
    assert killed, "no busy Ray worker was found to kill"
    assert without_clocks(remote.records) == without_clocks(local.records)
    assert table(remote) == table(local)


@pytest.mark.parametrize("illegal", ["false", "true"])
def test_a_failing_policy_stops_the_ray_arena_with_the_local_report(ray_cluster, illegal):
    lineup = ["random", f"tests.arena_bots:Bomb:every=7,illegal={illegal}"]
    args = {"games": 40, "num_players": 2, "seed": 0}
    with pytest.raises(ArenaPolicyError) as here:
        run_arena("cat_in_the_box", lineup, workers=1, **args)
    with pytest.raises(ArenaPolicyError) as there:
        run_arena("cat_in_the_box", lineup, backend="ray", **args)
    assert str(there.value) == str(here.value)
    assert there.value.report == here.value.report
    partial = there.value.partial
    assert 0 < len(partial.records) == there.value.report["game"] < partial.scheduled
    assert without_clocks(partial.records) == without_clocks(here.value.partial.records)
    assert "STOPPED" in partial.table()


def test_a_local_ray_runs_its_workers_at_our_priority(ray_cluster):
    """Ray's default (nice 15) starves its workers beside any busy process: the RLlib test
    took 185 s instead of 24 beside three."""
    niceness = ray_cluster.get(ray_cluster.remote(lambda: os.nice(0)).remote())
    assert niceness == os.nice(0)


def test_policy_objects_do_not_travel():
    from tests.arena_bots import Bomb

    with pytest.raises(ArenaSetupError, match="never pickled"):
        run_arena("cat_in_the_box", ["random", Bomb(2)], games=2, num_players=2,
                  backend="ray")
    with pytest.raises(ArenaSetupError, match="backend='ray'"):
        run_arena("cat_in_the_box", ["random", "heuristic"], address="auto")


def test_cli_arena_on_the_running_ray(ray_cluster, tmp_path, capsys):
    from catzoo.cli.main import main

    assert main(["arena", "cat_tree", "--ray", "--policy", "random", "--policy", "heuristic",
                 "--games", "4", "--seed", "3", "--out", str(tmp_path), "--quiet",
                 "--no-plot"]) == 0
    assert "rating [95% CI]" in capsys.readouterr().out
    assert (tmp_path / "arena_cat_tree.json").is_file()


@pytest.mark.slow
def test_cli_arena_starts_a_local_ray_and_shuts_it_down(tmp_path):
    """Without a running Ray, ``--ray`` starts a local instance (of ``--workers`` CPUs) and
    shuts it down: the command returns and no Ray is left connected."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    code = ("import sys, ray; from catzoo.cli.main import main; "
            "status = main(sys.argv[1:]); assert not ray.is_initialized(); sys.exit(status)")
    done = subprocess.run(
        [sys.executable, "-c", code, "arena", "cat_tree", "--ray", "--workers", "1",
         "--policy", "random", "--policy", "heuristic", "--games", "2", "--quiet", "--no-plot",
         "--out", str(tmp_path)],
        check=False, capture_output=True, text=True, timeout=300, env=env, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "rating [95% CI]" in done.stdout
