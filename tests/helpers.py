"""Test helpers shared by every game's tests."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import random
import signal
import subprocess
import time
import warnings
from pathlib import Path

import numpy as np
from pettingzoo.test import api_test, render_test, seed_test

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def load_benchmark(name: str):
    """The script ``benchmarks/<name>.py`` as a module: the benchmarks are scripts that
    print their figures, not a package, so tests load them by path."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None, name
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(path: Path) -> list[dict]:
    """A run's CSV log as dicts, one per row."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def sigkill_past_a_checkpoint(cmd: list[str], run_dir: Path, log: Path,
                              timeout: float = 180.0) -> int:
    """Start the run ``cmd`` (checkpoints under ``run_dir``), SIGKILL it once it has logged
    a row to ``log`` past a checkpoint after the first (the rows a resumed session must
    drop), and return that checkpoint's step."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pointer = run_dir / "checkpoints" / "latest.json"

    def logged_past_the_checkpoint() -> bool:
        try:
            at = json.loads(pointer.read_text())["step"]
            return at > 0 and any(int(r["step"]) > at for r in rows(log))
        except (OSError, ValueError, KeyError):
            return False

    deadline = time.time() + timeout
    while not logged_past_the_checkpoint() and proc.poll() is None and time.time() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stderr.close()
    return json.loads(pointer.read_text())["step"]


def random_playout(state, rng: random.Random, max_steps: int = 100_000):
    """Play uniformly random legal actions to the end; returns the actions taken.

    Checks on every step the invariants every engine must keep: one legal action at least
    for the player to act, a mask agreeing with ``legal_actions``, an observation of the
    documented size for every player.
    """
    actions = []
    for _ in range(max_steps):
        if state.is_terminal():
            return actions
        legal = state.legal_actions()
        assert legal, f"no legal action for player {state.current_player}"
        mask = state.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (state.num_actions,)
        assert np.flatnonzero(mask).tolist() == legal
        for p in range(state.num_players):
            obs = state.observation(p)
            assert obs.shape == (state.observation_size,) and obs.dtype == np.float32
        action = rng.choice(legal)
        state.apply(action)
        actions.append(action)
    raise AssertionError(f"game did not end within {max_steps} steps")


def random_moves(state, rng: random.Random, steps: int) -> None:
    """Apply up to ``steps`` uniformly random legal actions, stopping at the game's end:
    a random mid-game position for tests that look at one."""
    for _ in range(steps):
        if state.is_terminal():
            return
        state.apply(rng.choice(state.legal_actions()))


def assert_replays(state) -> None:
    """The JSON action log rebuilds the same game: same history, scores, observations."""
    log = json.loads(json.dumps(state.action_log()))
    again = type(state).replay(log)
    assert again.history == state.history
    assert again.scores() == state.scores()
    assert again.current_player == state.current_player
    np.testing.assert_array_equal(again.legal_mask(), state.legal_mask())
    for p in range(state.num_players):
        np.testing.assert_array_equal(again.observation(p), state.observation(p))


def pettingzoo_conformance(env_module, num_cycles: int = 400, **options) -> None:
    """PettingZoo's own api_test, seed_test and render_test on one configuration."""
    with warnings.catch_warnings():
        # api_test warns about observations it cannot judge (all-zero blocks early on).
        warnings.simplefilter("ignore")
        api_test(env_module.env(**options), num_cycles=num_cycles)
        seed_test(lambda **kw: env_module.env(**options, **kw), num_cycles=num_cycles)
        render_test(lambda render_mode=None: env_module.env(render_mode=render_mode, **options))


def play_env_randomly(env, seed: int) -> dict:
    """Play one game through the AEC API with random legal actions; returns final rewards
    accumulated per agent."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        total[agent] += reward
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(rng.choice(legal))
        env.step(action)
    return total


def assert_batch_is_row_by_row(game: str, batched, alone, num_players: int, envs: int,
                               steps: int, seed: int) -> set[int]:
    """A bot's ``act_batch`` over rows of every phase, as the batched trainer hands them
    over, takes the action ``act`` takes alone on each row (``alone``: the same bot, for
    bots whose generator breaks ties, seeded alike). Play mixes in 30% random moves so
    that odd states occur; returns the phases seen."""
    from catzoo import vector

    vg = vector.make(game, num_envs=envs, num_players=num_players, seed=seed, threads=1)
    rng = np.random.default_rng(0)
    obs, mask, _ = vg.reset()
    phases: set[int] = set()
    try:
        for _ in range(steps):
            batch = batched.act_batch(obs, mask)
            one = [alone.act({"observation": obs[j], "action_mask": mask[j]})
                   for j in range(envs)]
            np.testing.assert_array_equal(batch, one)
            assert mask[np.arange(envs), batch].all()
            phases |= set(batched.layout.decode(obs)["phase"].argmax(axis=1).tolist())
            noise = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
            obs, mask, _, _, _ = vg.step(np.where(rng.random(envs) < 0.3, noise, batch))
    finally:
        vg.close()
    return phases


# An arena record's clocks (arena/runner.py): the game's wall time, and per seat its moves'
# wall and CPU time and its longest move on each. No two runs time alike.
ARENA_CLOCKS = ("seconds", "think", "think_cpu", "longest", "longest_cpu")


def without_clocks(records: list[dict]) -> list[dict]:
    """The arena's game records without their clocks (``ARENA_CLOCKS``), for comparing runs
    game for game; checks first that every record has each clock, one per seat where the
    clock is a seat's, and that none is negative."""
    for rec in records:
        for key in ARENA_CLOCKS:
            assert key in rec, f"game {rec.get('game')}: no {key!r} in {sorted(rec)}"
            values = [rec[key]] if key == "seconds" else rec[key]
            assert key == "seconds" or len(values) == len(rec["seats"]), (key, rec)
            assert all(v >= 0 for v in values), (key, rec)
    return [{k: v for k, v in rec.items() if k not in ARENA_CLOCKS} for rec in records]
