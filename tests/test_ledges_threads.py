"""Cats Knocking Things Off Ledges on several threads at once (issue 24): each thread owns
its MuJoCo models and data, so concurrent games neither crash the process (it died with
signal 11 when they shared one ``MjData``) nor change each other's results. MuJoCo's
warnings go to Python logging, never into a file in the working directory, and poses
that are not finite never reach the simulator."""

from __future__ import annotations

import logging
import os
import random
import threading

import mujoco
import numpy as np
import pytest

from catzoo.games.ledges import physics
from catzoo.games.ledges.state import LedgesState

THREADS = 4


def play(seed: int, num_players: int) -> tuple:
    state = LedgesState.new(num_players=num_players, max_rounds=1, seed=seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    return state.scores(), state.history, state.pose.tobytes(), state.sim_time


def test_games_on_several_threads_play_as_they_do_alone():
    cases = [(seed, 2 + seed % 3) for seed in range(THREADS)]
    alone = {case: play(*case) for case in cases}
    together: dict = {}
    errors: list = []
    barrier = threading.Barrier(THREADS)

    def worker(mine):
        try:
            barrier.wait()  # start together: the simulations overlap
            for case in mine:
                together[case] = play(*case)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    threads = [threading.Thread(target=worker, args=(cases[i::THREADS],))
               for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert together == alone


def scene() -> tuple:
    """The first tower of a game, a cat on it and a toy flying at it."""
    from catzoo.games.ledges.state import CAT0, KINDS, TOY0

    state = LedgesState.new(num_players=2, seed=1)
    tower = [i for i in range(CAT0) if state.onboard[i]]
    pieces = [*tower, CAT0, TOY0]
    qpos = state.pose[pieces].copy()
    qpos[-2, :3] = (0.0, 0.0, 0.2)
    qpos[-1, :3] = (-0.15, 0.0, 0.15)
    qvel = np.zeros((len(pieces), 6))
    qvel[-1, 0] = 1.5
    return tuple(KINDS[i] for i in pieces), qpos, qvel


def test_simulations_on_several_threads_at_once_give_the_results_of_one():
    kinds, qpos, qvel = scene()
    alone = physics.simulate(kinds, qpos, qvel, 0.5, until_rest=False)[0]
    results: list = []
    barrier = threading.Barrier(THREADS)

    def worker():
        barrier.wait()
        for _ in range(15):
            results.append(physics.simulate(kinds, qpos, qvel, 0.5, until_rest=False)[0])

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == THREADS * 15
    assert all(np.array_equal(r, alone) for r in results)


def test_a_recording_holds_its_own_threads_simulations_only():
    """A table records a bat's flight while bots simulate in other threads: their
    simulations are not in it, and its block ending does not break theirs."""
    kinds, qpos, qvel = scene()
    errors: list = []
    inside, done = threading.Event(), threading.Event()

    def bot():
        inside.wait()
        try:
            for _ in range(10):
                physics.simulate(kinds, qpos, qvel, 0.2, until_rest=False)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)
        done.set()

    t = threading.Thread(target=bot)
    t.start()
    with physics.recording() as runs:
        inside.set()
        physics.simulate(kinds, qpos, qvel, 0.2, until_rest=False)
        done.wait(60)
    t.join()
    assert not errors and len(runs) == 1


def test_each_thread_has_its_own_model_and_data():
    kinds = ("rect", "short", "short")
    here = physics.MODELS.get(kinds)
    there = []
    t = threading.Thread(target=lambda: there.append(physics.MODELS.get(kinds)))
    t.start()
    t.join()
    assert there[0][0] is not here[0] and there[0][1] is not here[1]
    assert physics.MODELS.get(kinds)[1] is here[1]  # reused within a thread


def test_mujoco_warnings_go_to_logging_not_to_a_file(tmp_path, caplog):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        model, data = physics.MODELS.get(("rect", "short", "short"))
        data.qpos[:] = np.nan  # straight to MuJoCo, past the checks
        with caplog.at_level(logging.WARNING, logger="catzoo.ledges.mujoco"):
            mujoco.mj_step(model, data)
        mujoco.mj_resetData(model, data)
    finally:
        os.chdir(cwd)
    assert any("Nan, Inf or huge value in QPOS" in r.getMessage() for r in caplog.records)
    assert list(tmp_path.iterdir()) == []  # no MUJOCO_LOG.TXT


@pytest.mark.parametrize("bad", [np.nan, np.inf, 1e9])
def test_poses_that_are_not_finite_never_reach_the_simulator(bad):
    qpos = np.zeros((1, 7))
    qpos[0, 3] = 1.0
    qpos[0, 2] = bad
    with pytest.raises(ValueError, match="not finite or lies beyond"):
        physics.simulate(("rect",), qpos)
    qvel = np.zeros((1, 6))
    qvel[0, 0] = bad
    qpos[0, 2] = 0.1
    with pytest.raises(ValueError, match="velocity is not finite"):
        physics.simulate(("rect",), qpos, qvel)
