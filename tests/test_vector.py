"""catzoo.vector, the batched engine, against the AEC env: the same games step for step.

Parametrised over every game with a compiled core (``vector.games_with_core()``: a game
joins by landing ``catzoo.games.<game>.core``) and each of its player counts; the games
without one run the same checks, fewer games, through the Python path.

The main check plays LOCKSTEP_GAMES seeded random games per game, player count and reward
mode as one batch of that many slots beside as many AEC envs, every step comparing the
observation of the player to act, the mask, the player, every seat's reward, ``done``, the
ended games' scores and standing, and the seed each slot is dealt next (automatic reset).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

from catzoo import vector
from catzoo.games.base import GameState, IllegalActionError, OptionsError
from catzoo.games.compiled import CompiledState
from catzoo.games.registry import GAMES, UnknownGameError

LOCKSTEP_GAMES = 2000  # per game and player count (issue 22), under the standing reward
# The score reward differs in the rewards alone: fewer games check those (the suite's time).
LOCKSTEP_GAMES_SCORE = 300
CORE_GAMES = vector.games_with_core()
PYTHON_GAMES = [g for g in GAMES if g not in CORE_GAMES]
CORE_CASES = [(g, n) for g in CORE_GAMES for n in GAMES[g].players]
# Games on the Python path: a few games each (Ledges' turns are physics simulations).
PYTHON_CASES = [(g, GAMES[g].players[0], 3 if g == "ledges" else 40) for g in PYTHON_GAMES]
# Short games where the options allow, for the Python path's checks.
SHORT = {"cat_in_the_box": {"rounds": "single"}, "lunar": {"rounds": "single"},
         "catsle_builders": {"rounds": "single"}}


def uniform_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``mask``."""
    noise = rng.random(mask.shape, dtype=np.float32) + 1.0  # in [1, 2): never 0
    return np.argmax(noise * mask, axis=1)


def lockstep(game: str, players: int, reward: str, slots: int, seed: int, options=None,
             min_games=None) -> int:
    """Play ``slots`` slots beside as many AEC envs until every slot finished a game (or
    ``min_games`` games ended), comparing everything every step; returns the games."""
    options = dict(options or {})
    vg = vector.make(game, num_envs=slots, num_players=players, seed=seed, reward=reward,
                     **options)
    module = GAMES[game].load_env_module()
    envs = [module.env(num_players=players, reward=reward, **options) for _ in range(slots)]
    # The wrappers forward these dicts from the raw env: read there, not through a chain of
    # __getattr__ calls per read (a third of this harness's time at 2,000 slots).
    raws = [env.unwrapped for env in envs]
    agents = envs[0].possible_agents
    obs, mask, player = vg.reset()
    assert vg.seeds.tolist() == vector.slot_seeds(seed, slots)  # the documented first seeds
    for i, env in enumerate(envs):
        env.reset(seed=int(vg.seeds[i]))
    D, A, P = vg.obs_size, vg.num_actions, vg.num_players
    want_obs, want_mask = np.empty((slots, D), np.float32), np.empty((slots, A), np.int8)
    want_player, want_rewards = np.empty(slots, np.int32), np.zeros((slots, P), np.float32)
    want_done, want_scores = np.zeros(slots, bool), np.zeros((slots, P), np.float32)
    want_returns = np.zeros((slots, P), np.float32)

    def observe_all():
        for i, env in enumerate(envs):
            agent = raws[i].agent_selection
            seen = env.observe(agent)
            want_obs[i], want_mask[i] = seen["observation"], seen["action_mask"]
            want_player[i] = agents.index(agent)

    def compare(where):
        np.testing.assert_array_equal(player, want_player, err_msg=where)
        np.testing.assert_array_equal(mask, want_mask, err_msg=where)
        np.testing.assert_array_equal(obs, want_obs, err_msg=where)

    observe_all()
    compare("reset")
    rng = np.random.default_rng(seed)
    finished = np.zeros(slots, bool)
    games = steps = 0
    while not finished.all() if min_games is None else games < min_games:
        actions = uniform_actions(mask, rng)
        before = vg.seeds.copy()
        obs, mask, player, rewards, done = vg.step(actions)
        for i, env in enumerate(envs):
            env.step(int(actions[i]))
            raw = raws[i]
            want_rewards[i] = [raw.rewards[a] for a in agents]
            over = all(raw.terminations.values())
            want_done[i] = over
            if over:
                game_state = raw.game
                want_scores[i] = game_state.scores()
                want_returns[i] = game_state.returns()
                if isinstance(game_state, CompiledState) and game_state.generic_standing:
                    # the core's standing (C) against the Python rule of the other engines
                    np.testing.assert_array_equal(want_returns[i],
                                                  GameState.returns(game_state).astype(np.float32))
                env.reset(seed=vector.next_seed(int(before[i])))  # the documented next seed
            else:
                want_scores[i] = want_returns[i] = 0.0
        observe_all()
        where = f"{game} {players}p {reward}, step {steps}"
        np.testing.assert_array_equal(done, want_done, err_msg=where)
        np.testing.assert_array_equal(rewards, want_rewards, err_msg=where)
        np.testing.assert_array_equal(vg.final_scores, want_scores, err_msg=where)
        np.testing.assert_array_equal(vg.final_returns, want_returns, err_msg=where)
        expected_seeds = [vector.next_seed(int(s)) if d else int(s) for s, d in zip(before, done)]
        assert vg.seeds.tolist() == expected_seeds, where
        compare(where)
        finished |= done
        games += int(done.sum())
        steps += 1
    vg.close()
    return games


@pytest.mark.parametrize("reward", [pytest.param("standing", marks=pytest.mark.slow), "score"])
@pytest.mark.parametrize(("game", "players"), CORE_CASES, ids=[f"{g}-{n}p" for g, n in CORE_CASES])
def test_the_batch_plays_the_aec_envs_games_step_for_step(game, players, reward):
    wanted = LOCKSTEP_GAMES if reward == "standing" else LOCKSTEP_GAMES_SCORE
    games = lockstep(game, players, reward, wanted, seed=players * 1000 + len(reward))
    assert games >= wanted


@pytest.mark.parametrize(("game", "players", "games"), PYTHON_CASES,
                         ids=[f"{g}-{n}p" for g, n, _ in PYTHON_CASES])
def test_games_without_a_core_play_the_aec_envs_games_through_the_same_interface(
        game, players, games):
    vg = vector.make(game, num_envs=2, num_players=players)
    assert not vg.compiled
    for reward in ("standing", "score"):
        slots = min(games, 8)
        assert lockstep(game, players, reward, slots, seed=5, options=SHORT.get(game),
                        min_games=games) >= games


def core_game(players=None):
    return CORE_GAMES[0], players or GAMES[CORE_GAMES[0]].players[-1]


pytestmark_core = pytest.mark.skipif(not CORE_GAMES, reason="no compiled core")


@pytestmark_core
@pytest.mark.parametrize("game", CORE_GAMES)
def test_explicit_seeds_deal_what_the_engine_deals_from_them(game):
    players = GAMES[game].players[0]
    seeds = [0, 1, 2**32, 2**63 - 1, 123456789123, 7]
    vg = vector.make(game, num_envs=len(seeds), num_players=players)
    obs, mask, player = vg.reset(seeds=seeds)
    assert vg.seeds.tolist() == seeds
    state_cls = vg.state_cls
    for i, s in enumerate(seeds):
        state = state_cls.new(vg.options, seed=s)
        np.testing.assert_array_equal(obs[i], state.observation(state.current_player))
        np.testing.assert_array_equal(mask[i], state.legal_mask())
        assert vg.slot_state(i).chance == [] and vg.slot_state(i).current_player == player[i]
    # seed= reseeds the stream; no argument after the first reset deals each slot's next seed
    vg.reset(seed=11)
    assert vg.seeds.tolist() == vector.slot_seeds(11, len(seeds)) and vg.seed == 11
    first = vg.seeds.tolist()
    vg.reset()
    assert vg.seeds.tolist() == [vector.next_seed(s) for s in first]


@pytestmark_core
@pytest.mark.parametrize("bad", [[0, 1], [-1] * 6, [2**63] * 6, ["a"] * 6, [1.5] * 6, [True] * 6])
def test_reset_refuses_bad_seeds(bad):
    game, players = core_game()
    vg = vector.make(game, num_envs=6, num_players=players)
    vg.reset()
    before = vg.games_bytes(), vg.seeds.copy()
    with pytest.raises(ValueError, match="seed"):
        vg.reset(seeds=bad)
    assert vg.games_bytes() == before[0] and (vg.seeds == before[1]).all()


@pytestmark_core
@pytest.mark.parametrize(("game", "players"), CORE_CASES, ids=[f"{g}-{n}p" for g, n in CORE_CASES])
def test_threads_play_the_same_games(game, players):
    slots = 67  # not a multiple of the thread count
    one = vector.make(game, num_envs=slots, num_players=players, seed=3, reward="score")
    two = vector.make(game, num_envs=slots, num_players=players, seed=3, reward="score",
                      threads=2)
    a, b = one.reset(), two.reset()
    rng = np.random.default_rng(0)
    ended = 0
    while ended <= slots:  # until automatic resets happened along the way
        actions = uniform_actions(a[1], rng)
        a, b = one.step(actions), two.step(actions)
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(one.final_scores, two.final_scores)
        assert one.games_bytes() == two.games_bytes()
        ended += int(a[4].sum())


def snapshot(vg):
    arrays = (vg._obs, vg._mask, vg._player, vg._rewards, vg._done, vg.final_scores,
              vg.final_returns, vg.seeds)
    return vg.games_bytes(), [np.array(a) for a in arrays]


@pytestmark_core
@pytest.mark.parametrize(("game", "players"), CORE_CASES, ids=[f"{g}-{n}p" for g, n in CORE_CASES])
def test_bad_actions_name_the_slot_and_step_no_slot(game, players):
    slots = 64
    vg = vector.make(game, num_envs=slots, num_players=players, seed=9)
    mask = vg.reset()[1]
    rng = np.random.default_rng(1)
    for _ in range(7):  # somewhere in the game
        mask = vg.step(uniform_actions(mask, rng))[1]
    good = uniform_actions(mask, rng)
    before = snapshot(vg)

    def refused(actions, *patterns):
        with pytest.raises(IllegalActionError) as err:
            vg.step(actions)
        for pattern in patterns:
            assert pattern in str(err.value), str(err.value)
        after = snapshot(vg)
        assert after[0] == before[0]  # every game as it was
        for x, y in zip(after[1], before[1]):
            np.testing.assert_array_equal(x, y)  # every buffer as it was

    refused(good[:-1], "shape (64,)")
    refused(good.reshape(8, 8), "shape (64,)")
    refused(good.astype(np.float64), "integers")
    refused(good.astype(bool), "integers")
    state = vg.slot_state(40)
    legal = vg.legal_actions(40)
    illegal = next(a for a in range(vg.num_actions) if a not in legal)
    names = ", ".join(f"{a} ({state.action_to_string(a)})" for a in legal)
    not_legal = (f"action {illegal} ({state.action_to_string(illegal)}) is not legal for "
                 f"player {state.current_player}")
    for action, what in ((illegal, not_legal),
                         (-1, "action -1 is out of range"),
                         (vg.num_actions, f"action {vg.num_actions} is out of range")):
        actions = good.copy()
        actions[40] = action
        refused(actions, f"slot 40: {what}", f"legal actions: {names}", "no slot was stepped")
    huge = good.astype(np.uint64)
    huge[3] = 2**64 - 1
    refused(huge, f"slot 3: action {2**64 - 1} is out of range")
    first_bad = good.copy()
    first_bad[[5, 9]] = -1
    refused(first_bad, "slot 5:")
    # and the batch steps on as if nothing happened
    vg.step(good.astype(np.int32))


@pytestmark_core
def test_make_checks_its_arguments_with_the_envs_messages():
    game, players = core_game()
    module = GAMES[game].load_env_module()
    with pytest.raises(UnknownGameError, match="unknown game 'chess'"):
        vector.make("chess")
    with pytest.raises(OptionsError, match="unknown option"):
        vector.make(game, colours=3)
    with pytest.raises(OptionsError) as ours:
        vector.make(game, num_players=99)
    with pytest.raises(OptionsError) as envs:
        module.env(num_players=99)
    assert str(ours.value) == str(envs.value)
    with pytest.raises(OptionsError) as ours:
        vector.make(game, reward="dense")
    with pytest.raises(OptionsError) as envs:
        module.env(reward="dense")
    assert str(ours.value) == str(envs.value)
    for bad in ({"num_envs": 0}, {"num_envs": 2.5}, {"threads": 0}, {"seed": -1},
                {"seed": "x"}, {"num_players": players, "options": None}):
        with pytest.raises(OptionsError):
            vector.make(game, **bad)
    if PYTHON_GAMES:
        with pytest.raises(OptionsError, match="no compiled core"):
            vector.make(PYTHON_GAMES[0], threads=2)


@pytestmark_core
def test_what_a_pgx_or_pufferlib_user_expects():
    game, players = core_game()
    vg = vector.make(game, num_envs=16, num_players=players)
    probe = vg.state_cls.new(vg.options, seed=0)
    assert (vg.num_envs, vg.num_players, vg.num_actions, vg.obs_size) == (
        16, players, probe.num_actions, probe.observation_size)
    assert len(vg) == 16 and vg.observation_shape == (probe.observation_size,)
    assert vg.single_observation_space.shape == (probe.observation_size,)
    assert vg.single_action_space.n == probe.num_actions
    assert vg.observation_space.shape == (16, probe.observation_size)
    with pytest.raises(RuntimeError, match="reset"):
        vg.step(np.zeros(16, np.int64))
    obs, mask, player = vg.reset()
    assert (obs.dtype, mask.dtype, player.dtype) == (np.float32, np.int8, np.int32)
    assert not obs.flags.writeable  # views of the engine's buffers
    out = vg.step(uniform_actions(mask, np.random.default_rng(0)))
    assert out[3].dtype == np.float32 and out[3].shape == (16, players) and out[4].dtype == bool
    np.testing.assert_array_equal(vg.observe(0, int(out[2][0])), out[0][0])
    assert game in repr(vg)
    with vector.make(game, num_envs=2, num_players=players) as other:
        other.reset()
    with pytest.raises(RuntimeError, match="closed"):
        other.reset()
    vg.close()
    with pytest.raises(RuntimeError, match="closed"):
        vg.step(np.zeros(16, np.int64))


@pytestmark_core
def test_torch_and_the_cores_openmp_share_a_process():
    game, players = core_game()
    script = textwrap.dedent(f"""
        import numpy as np, torch
        from catzoo import vector
        torch.set_num_threads(2)
        x = torch.randn(256, 256)
        y = (x @ x).sum().item()
        vg = vector.make({game!r}, num_envs=512, num_players={players}, threads=2)
        obs, mask, player = vg.reset()
        rng = np.random.default_rng(0)
        for _ in range(200):
            obs, mask, player, rewards, done = vg.step(np.argmax(rng.random(mask.shape) * mask, 1))
            z = torch.from_numpy(np.array(obs)).sum().item()
        assert abs((x @ x).sum().item() - y) < 1e-3 * max(1.0, abs(y))
        print("ok")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr
