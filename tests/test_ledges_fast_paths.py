"""The shortcuts that make Cats Knocking Things Off Ledges fast change no result: each is
checked against the computation it skips, and the batched engine (catzoo.vector) plays the
AEC env's games seed for seed at every player count, with the aiming features on.

* plane overlaps: only pairs whose bounding circles come within reach get the exact test
  (geometry.footprint_overlap); with the reach unbounded every pair gets it, and the
  answers agree on every pair of random footprints, margins and turns;
* the aiming features evaluate each toy spot once and give each toy its icon's bonus
  (features.bat_outcomes with ``rows``): the same arrays as one start per toy;
* the cat phase finds each platform's spot once, as it begins (state._cat_spots): what
  a fresh search finds in every cat phase of seeded games;
* one quaternion's rotation is computed in Python floats (geometry._rotation_of_one): the
  bits of the array code, for unit and other quaternions, and the array code's answer
  where the norm is 0 or not finite.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco")

from catzoo.games.ledges import LedgesState
from catzoo.games.ledges import features as F
from catzoo.games.ledges import geometry as G
from catzoo.games.ledges.state import CAT, CAT0, CAT_BASE
from catzoo.policies.registry import make_policy
from tests.test_vector import lockstep


def random_footprints(rng: np.random.Generator, count: int) -> dict:
    """Boxes and discs of the game's sizes, packed into a few centimetres so that many
    pairs touch, nearly touch or just miss."""
    disc = rng.random(count) < 0.3
    hx = rng.uniform(0.005, 0.05, count)
    hy = rng.uniform(0.005, 0.035, count)
    return G.footprints(rng.uniform(-0.08, 0.08, count), rng.uniform(-0.08, 0.08, count),
                        rng.uniform(-np.pi, np.pi, count), np.where(disc, 0.0, hx),
                        np.where(disc, 0.0, hy), np.where(disc, rng.uniform(0.005, 0.04, count), 0.0))


@pytest.mark.parametrize("margin", [0.0, 0.003, -0.0005, "per column"])
def test_overlap_tests_only_near_pairs_and_answers_as_the_exact_test_on_all(margin, monkeypatch):
    rng = np.random.default_rng(7)
    a, b = random_footprints(rng, 300), random_footprints(rng, 40)
    m = rng.uniform(-0.001, 0.004, (1, 40)) if margin == "per column" else margin
    near = G.footprint_overlap(a, b, m)
    monkeypatch.setattr(G, "NEAR_SLACK", 1e9)  # every pair within reach: all tested exactly
    every = G.footprint_overlap(a, b, m)
    assert np.array_equal(near, every)
    assert 0.05 < every.mean() < 0.6  # the packing makes both answers common


def played_states(players: int, seed: int, moves: int = 90):
    """The states of a seeded game of aimer bots (a tenth of the moves random)."""
    state = LedgesState.new(num_players=players, seed=seed, aim_features=True)
    bots = [make_policy("aimer", "ledges", players, seed=s) for s in range(players)]
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal():
            break
        yield state
        p = state.current_player
        legal = state.legal_actions()
        obs = {"observation": state.observation(p), "action_mask": state.legal_mask()}
        state.apply(int(rng.choice(legal)) if rng.random() < 0.1
                    else int(bots[p].act(obs, state=state, player=p)))


def array_rotations(quats) -> np.ndarray:
    """geometry.rotations as it was before its one-quaternion path: the array code."""
    q = np.asarray(quats, dtype=np.float64).reshape(-1, 4)
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    return np.stack([
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)], 1),
        np.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)], 1),
        np.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], 1)], 1)


def test_one_quaternions_rotation_has_the_bits_of_the_array_code():
    rng = np.random.default_rng(5)
    quats = rng.normal(size=(20_000, 4)) * rng.uniform(0.3, 3.0, size=(20_000, 1))
    quats[::2] /= np.linalg.norm(quats[::2], axis=1, keepdims=True)  # unit ones, as poses hold
    quats[1::7, 1:] = 0.0  # pure turns about nothing: the identity
    for q in quats:
        for shape in ((4,), (1, 4)):
            one = G.rotations(q.reshape(shape))
            assert one.shape == (1, 3, 3)
            assert np.array_equal(one, array_rotations(q))
    assert np.array_equal(G.rotations(quats[:5]), array_rotations(quats[:5]))
    with np.errstate(invalid="ignore", divide="ignore"):
        for bad in ([0.0, 0.0, 0.0, 0.0], [np.inf, 0.0, 0.0, 0.0], [np.nan, 0.0, 0.0, 1.0]):
            assert np.array_equal(G.rotations(np.array(bad)), array_rotations(bad), equal_nan=True)


def test_one_start_per_toy_spot_gives_the_features_of_one_start_per_toy():
    checked = 0
    for state in played_states(3, seed=11):
        if state.phase != CAT:
            continue
        for card in np.flatnonzero(state.legal_mask()[CAT_BASE:CAT_BASE + G.NUM_PLATFORMS]):
            spot, _ = state._cat_spot(int(card))
            scene = F.Scene(state, int(card), skip_pieces=(CAT0 + state.current_player,))
            spots, cat_xy = F.toy_spots(state, int(card), spot)
            obstacles = scene.extra_obstacle(cat_xy[0], cat_xy[1], G.CAT_RADIUS)
            keep = np.hypot(obstacles[None, :, 0] - spots[:, 0, None],
                            obstacles[None, :, 1] - spots[:, 1, None]) > 0.012
            icons = np.tile(np.arange(4), 4)
            rows = np.repeat(np.arange(4), 4)
            shared = F.bat_outcomes(scene, spots, scene.src_top, icons, obstacles, 1.0,
                                    valid=keep, rows=rows)
            each = F.bat_outcomes(scene, spots[rows], scene.src_top, icons, obstacles, 1.0,
                                  valid=keep[rows])
            for x, y in zip(shared, each):
                assert np.array_equal(x, y)
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("players", [2, 4])
def test_the_cat_phase_keeps_the_spots_a_fresh_search_finds(players):
    phases = 0
    for state in played_states(players, seed=20 + players):
        if state.phase != CAT:
            continue
        cards = np.flatnonzero(state.legal_mask()[CAT_BASE:CAT_BASE + G.NUM_PLATFORMS])
        assert sorted(state._cat_spots) == cards.tolist()
        for card in cards:
            assert state._cat_spot(int(card)) == state._find_cat_spot(int(card))
        phases += 1
    assert phases >= 3


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_batch_plays_the_aec_envs_games_with_the_aiming_features(players):
    """Random legal games (wild builds, falls, collapses), 2 rounds each, the batch's slots
    beside as many AEC envs: the same observations (the aiming features among them), masks,
    rewards, ends and scores at every step."""
    games = lockstep("ledges", players, "score", slots=2, seed=40 + players,
                     options={"aim_features": True, "max_rounds": 2}, min_games=2)
    assert games >= 2
