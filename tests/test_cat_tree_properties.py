"""Property tests of Cat Tree over random legal games and random options.

A naive reference (cell by cell, breadth-first search, no bit tricks) re-derives the
legal cells and the score from the grid, so that the engine's bit-set rules are checked
against a second, independent reading of docs/rules/cat_tree.md.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from catzoo.envs import cat_tree_v0
from catzoo.games.cat_tree import CatTreeOptions, CatTreeState
from catzoo.games.cat_tree.options import (
    BOX,
    CATWALK,
    HAMMOCK,
    NEST,
    NUM_TYPES,
    PIPE,
    SCRATCHER,
    SHELF,
    TOY,
)
from catzoo.games.cat_tree.state import KEEP, PLACE
from tests.helpers import assert_replays

CARRIES = {SCRATCHER, BOX, SHELF, NEST}
HANGS = {BOX, SHELF, NEST}
POINTS = {HAMMOCK: 8, CATWALK: 8, BOX: 5, SHELF: 5, NEST: 5}


def naive_legal(grid: dict, kind: int, row: int, col: int, width: int) -> bool:
    if (row, col) in grid:
        return False
    flat = row == 0 or grid.get((row - 1, col)) in CARRIES
    sides = (col > 0 and col < width - 1 and grid.get((row, col - 1)) in HANGS
             and grid.get((row, col + 1)) in HANGS)
    if kind in (PIPE, SCRATCHER, TOY):
        return flat
    if kind in (HAMMOCK, CATWALK):
        return sides
    if kind in (BOX, NEST):
        return flat or sides
    return row > 0  # shelf


def naive_score(grid: dict, o: CatTreeOptions) -> int:
    def neighbours(cell):
        r, c = cell
        return [n for n in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)) if n in grid]

    parts, seen = [], set()
    for cell in grid:
        if cell in seen:
            continue
        part, todo = {cell}, [cell]
        seen.add(cell)
        while todo:
            for n in neighbours(todo.pop()):
                if n not in seen:
                    seen.add(n)
                    part.add(n)
                    todo.append(n)
        parts.append(part)
    ground = set().union(*[p for p in parts if any(r == 0 for r, _ in p)]) if parts else set()
    if not ground:
        return 0
    counted = set(ground)
    for p in parts:
        if not p & ground:
            near = min(abs(a - c) + abs(b - d) for a, b in p for c, d in ground)
            if near < o.detach_distance:
                counted |= p

    def mult(row):
        return 2 if row + o.bottom_height >= o.altitude else 1

    total = 0
    for (r, c) in counted:
        kind = grid[(r, c)]
        if kind in POINTS:
            total += POINTS[kind] * mult(r)
        elif kind == PIPE:
            holders = HANGS if o.pipe_sides == "hangers" else set(range(NUM_TYPES))
            sides = sum(grid.get((r, c + dc)) in holders for dc in (-1, 1))
            total += (5 + 3 * sides) * mult(r)
        elif kind == SCRATCHER:
            left = (r, c - 1)
            if not (left in counted and grid[left] == SCRATCHER):
                total += 5 * mult(r)
    toys = [cell for cell in counted if grid[cell] == TOY]
    groups = []
    for t in toys:
        joined = [g for g in groups
                  if any(abs(t[0] - u[0]) + abs(t[1] - u[1]) < o.toy_distance for u in g)]
        merged = {t}.union(*joined) if joined else {t}
        groups = [g for g in groups if g not in joined] + [merged]
    total += sum(5 * max(mult(r) for r, _ in g) for g in groups)
    return total


def grid_of_observation(obs: np.ndarray, state: CatTreeState) -> dict:
    planes = state.layout.decode(obs)["grid"].reshape(NUM_TYPES, state.num_cells)
    w = state.options.width
    return {divmod(int(i), w): int(kind) for kind in range(NUM_TYPES)
            for i in np.flatnonzero(planes[kind])}


def check_where_planes(s: CatTreeState, grid: dict) -> None:
    """The kept_legal planes hold the naive legal cells of the kept cards."""
    w, n = s.options.width, s.num_cells
    if s.is_terminal():
        return

    def naive(kind):
        return [naive_legal(grid, kind, i // w, i % w, w) for i in range(n)]

    for viewer in (0, 1):
        parts = s.layout.decode(s.observation(viewer))
        for seat in (0, 1):
            who = (viewer + seat) % 2
            plane = parts["kept_legal"][seat].astype(bool)
            if s.to_place[who]:
                np.testing.assert_array_equal(plane, naive(s.kept[who]))
            else:
                assert not plane.any()
        counted = parts["counted"].astype(bool)
        assert counted.sum() <= len(grid)


options_strategy = st.builds(
    CatTreeOptions,
    width=st.integers(3, 9),
    height=st.integers(3, 9),
    bottom_height=st.sampled_from([0, 1]),
    placing_order=st.sampled_from(["choose", "alternate"]),
    pipe_sides=st.sampled_from(["hangers", "any"]),
    detach_distance=st.integers(2, 4),
    toy_distance=st.integers(2, 4),
    turns=st.integers(1, 8),
)


@settings(max_examples=25, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 2**32 - 1))
def test_random_games_follow_the_naive_rules(options, seed):
    rng = random.Random(seed)
    s = CatTreeState.new(options, seed=seed)
    w = options.width
    while not s.is_terminal():
        p = s.current_player
        for viewer in (0, 1):
            obs = s.observation(viewer)
            assert obs.dtype == np.float32 and obs.shape == (s.observation_size,)
            assert obs.min() >= -4.0 and obs.max() <= 4.0
        mask = s.legal_mask()
        if s.phase == PLACE:
            grid = grid_of_observation(s.observation(p), s)
            kind = s.kept[p]
            naive = [naive_legal(grid, kind, i // w, i % w, w) for i in range(s.num_cells)]
            np.testing.assert_array_equal(mask[4 : 4 + s.num_cells].astype(bool), naive)
            assert bool(mask[s.dismiss]) == (not any(naive))
        s.apply(rng.choice(s.legal_actions()))
        grid = grid_of_observation(s.observation(0), s)
        assert naive_score(grid, options) == s.total
        check_where_planes(s, grid)
    assert_replays(s)


@settings(max_examples=15, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 2**32 - 1))
def test_re_deals_replay_and_read_nothing_the_viewer_did_not_see(options, seed):
    # a re-deal is rebuilt on a new core without the log checks (the searches make
    # thousands a move): the checked replay of its own log must be the same game, it must
    # keep what the viewer saw, and later deals come from the original's generator. And it
    # is a game the viewer cannot tell from the real one, so re-dealing it again gives what
    # re-dealing the real game gives from the same generator: a re-deal depends on the
    # viewer's information alone (the partner's unseen hand, discards and this turn's
    # unrevealed pick included)
    rng = random.Random(seed)
    s = CatTreeState.new(options, seed=seed)
    while not s.is_terminal():
        viewer, k = rng.randrange(2), rng.getrandbits(32)
        r = s.resample(viewer, random.Random(rng.getrandbits(32)))
        assert_replays(r)
        assert r.chance == type(r).replay(r.action_log()).chance
        np.testing.assert_array_equal(r.observation(viewer), s.observation(viewer))
        assert r.rng.getstate() == s.rng.getstate() and r.seed == s.seed
        others = [r]
        if viewer == 1 and s.phase == KEEP and s.current_player == 1:
            # player 0 kept the other card of its hand this turn: player 1 cannot tell
            flipped = CatTreeState.new(options, chance=[s.deck])
            for action in s.history[:-1] + [1 - s.history[-1]]:
                flipped.apply(action)
            others.append(flipped)
        a = s.resample(viewer, random.Random(k))
        for other in others:
            b = other.resample(viewer, random.Random(k))
            assert a.deck == b.deck and a.history == b.history
        s.apply(rng.choice(s.legal_actions()))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dense=st.booleans())
def test_env_rewards_are_shared_and_add_up(seed, dense):
    env = cat_tree_v0.env(reward="score" if dense else "standing")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _info = env.last()
        totals[agent] += reward
        legal = np.flatnonzero(obs["action_mask"])
        env.step(None if terminated or truncated else int(rng.choice(legal)))
    final = env.unwrapped.game.total
    expected = final if dense else final / 100
    assert totals["player_0"] == totals["player_1"]
    assert abs(totals["player_0"] - expected) < 1e-9
    grid = grid_of_observation(env.unwrapped.game.observation(1), env.unwrapped.game)
    assert naive_score(grid, CatTreeOptions()) == final


@settings(max_examples=20, deadline=None)
@given(options=options_strategy, seed=st.integers(0, 2**32 - 1))
def test_observations_are_the_layouts_gather_of_the_state_vector(options, seed):
    # the engine keeps both observations ready instead of one master vector: each must
    # stay exactly the layout's gather of the master vector (state_vector), and a clone,
    # a pickle or a deep copy must be independent of the original
    import copy
    import pickle

    rng = random.Random(seed)
    s = CatTreeState.new(options, seed=seed)
    copies = []
    while True:
        master = s.state_vector()
        assert master.shape == (s.layout.master_size,)
        for viewer in (0, 1):
            np.testing.assert_array_equal(s.observation(viewer),
                                          master[s.layout.view_index[viewer]])
        if s.is_terminal():
            break
        if rng.random() < 0.1:
            copies.append((s.observation(0), s.legal_mask(), rng.choice(
                [s.clone(), pickle.loads(pickle.dumps(s)), copy.deepcopy(s)])))
        s.apply(rng.choice(s.legal_actions()))
    for obs, mask, other in copies:  # untouched by the original's later moves
        np.testing.assert_array_equal(other.observation(0), obs)
        np.testing.assert_array_equal(other.legal_mask(), mask)
        while not other.is_terminal():
            other.apply(rng.choice(other.legal_actions()))
        grid = grid_of_observation(other.observation(0), other)
        assert naive_score(grid, options) == other.total


def test_returned_arrays_are_fresh_and_writable():
    s = CatTreeState.new(seed=3)
    rng = random.Random(3)
    while not s.is_terminal():
        obs, mask = s.observation(s.current_player), s.legal_mask()
        again_obs, again_mask = s.observation(s.current_player).copy(), s.legal_mask().copy()
        obs[:] = 9.0
        mask[:] = 7
        np.testing.assert_array_equal(s.observation(s.current_player), again_obs)
        np.testing.assert_array_equal(s.legal_mask(), again_mask)
        s.apply(rng.choice(s.legal_actions()))
