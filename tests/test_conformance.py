"""PettingZoo's own conformance tests on every registered game at every player count."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test, parallel_seed_test, seed_test, state_test
from pettingzoo.test.api_test import api_test
from pettingzoo.utils import average_total_reward
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from catzoo.games.registry import GAMES
from tests.helpers import pettingzoo_conformance

# Physics turns are slow: fewer cycles keep the suite within its time budget.
CYCLES = {"ledges": 40}

CASES = [(name, n) for name, info in GAMES.items() for n in info.players]


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_pettingzoo_api_seed_and_render(game, players):
    module = GAMES[game].load_env_module()
    pettingzoo_conformance(module, num_cycles=CYCLES.get(game, 400), num_players=players)


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_same_seed_same_game_other_seed_other_deal(game, players):
    module = GAMES[game].load_env_module()
    first = module.env(num_players=players)
    again = module.env(num_players=players)
    other = module.env(num_players=players)
    first.reset(seed=7)
    again.reset(seed=7)
    other.reset(seed=8)
    # Same seed: the same state (global view) after the same actions.
    for _ in range(5):
        if not first.agents or first.terminations[first.agent_selection]:
            break
        np.testing.assert_array_equal(first.state(), again.state())
        mask = first.last()[0]["action_mask"]
        action = int(np.flatnonzero(mask)[0])
        first.step(action)
        again.step(action)
    np.testing.assert_array_equal(first.state(), again.state())
    # A different seed: a different deal (seeds 7 and 8 are checked to differ).
    fresh = module.env(num_players=players)
    fresh.reset(seed=7)
    assert not np.array_equal(fresh.state(), other.state())


@pytest.mark.parametrize("game", sorted(GAMES))
def test_registered_with_pettingzoo_make(game):
    import pettingzoo

    import catzoo.envs  # noqa: F401  (registers the envs)

    env = pettingzoo.make("aec", f"catzoo/{game}-v0")
    env.reset(seed=0)
    assert env.agents == env.possible_agents
    assert type(env.unwrapped).__module__ == GAMES[game].env_module


# PettingZoo's tests as its clients run them: the env as ``env()`` makes it (default
# options, so an unmasked random action is an illegal move that ends the game, as in
# PettingZoo's classic envs), a quick game (the record's quick options), few cycles.
QUICK_CYCLES = {"ledges": 10}


@pytest.mark.parametrize(("game", "players"), CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_pettingzoo_suite_unmodified_on_the_default_env(game, players):
    info = GAMES[game]
    module = info.load_env_module()
    cycles = QUICK_CYCLES.get(game, 40)

    def make(**kwargs):
        return module.env(num_players=players, **info.quick_options, **kwargs)

    def parallel():
        return turn_based_aec_to_parallel(make())

    with warnings.catch_warnings():
        # api_test warns about observations it cannot judge (all-zero blocks early on).
        warnings.simplefilter("ignore")
        api_test(make(), num_cycles=cycles)
        seed_test(make, num_cycles=cycles)
        parallel_api_test(parallel(), num_cycles=cycles)
        parallel_seed_test(parallel, num_cycles=cycles)
        state_test(make(), parallel(), num_cycles=cycles)
        # random unmasked actions too (it reads no observation): whole games either way
        average_total_reward(make(), max_episodes=3, max_steps=cycles * players * 3)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_state_space_holds_the_state_through_whole_legal_games(game):
    info = GAMES[game]
    env = info.load_env_module().env(**info.quick_options)
    space = env.unwrapped.state_space  # declared before reset(), as wrappers read it then
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for agent in env.agent_iter():
        state = env.state()
        assert state.shape == space.shape and state.dtype == space.dtype
        assert space.contains(state)
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated
                 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
