"""The search bots' time budgets under a slowed clock: time is faked (each unit of work
advances a fake clock by a fixed cost), so these tests count work, never measure it. A
move must stop within the budget plus one step of work, and use the budget it has."""

from __future__ import annotations

import pytest

from catzoo.policies.registry import make_policy
from catzoo.policies.search import budget, determinize, ismcts, planner, threads
from catzoo.policies.search.pimc import FIRST_CHUNK
from tests.test_ismcts import mid_game_states, obs_of


class SlowClock:
    """A clock that moves only when work is done: ``cost`` seconds per unit."""

    def __init__(self, cost: float):
        self.t, self.cost = 0.0, cost

    def __call__(self) -> float:
        return self.t

    def work(self, units: int = 1) -> None:
        self.t += units * self.cost


def slowed(monkeypatch, module, name: str, clock: SlowClock):
    """``module.name`` (a function) made to cost ``clock.cost`` per call."""
    real = getattr(module, name)

    def costly(*args, **kwargs):
        clock.work()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, costly)


def a_position(game: str = "cat_in_the_box", n: int = 4):
    return next(s for s in mid_game_states(game, n) if len(s.legal_actions()) > 1)


def move_time(bot, state, clock: SlowClock) -> float:
    bot.clock = clock
    start = clock.t
    bot.act(obs_of(state), state=state, player=state.current_player)
    return clock.t - start


@pytest.mark.parametrize(("cost", "done"), [(0.05, 20), (0.3, 3), (2.0, 2)])
def test_pimc_values_redeals_in_chunks_until_the_budget_is_spent(monkeypatch, cost, done):
    """1 s of budget, each re-deal costing ``cost``: as many re-deals as fit (the chunk
    after the time per re-deal is known is cut to fit), and the first chunk (2 re-deals)
    even when one alone overruns: over by at most that one chunk."""
    clock = SlowClock(cost)
    slowed(monkeypatch, determinize, "determinize", clock)  # pimc's re-deals
    bot = make_policy("pimc:seconds=1,policy=heuristic", "cat_in_the_box", 4, seed=3)
    spent = move_time(bot, a_position(), clock)
    assert bot.last_determinizations == done
    assert spent == pytest.approx(done * cost)
    assert spent <= 1.0 + 1e-9 or done == FIRST_CHUNK


def test_pimc_determinizations_cap_a_budget_and_no_budget_is_exact(monkeypatch):
    clock = SlowClock(0.001)
    slowed(monkeypatch, determinize, "determinize", clock)  # pimc's re-deals
    capped = make_policy("pimc:seconds=10,determinizations=5,policy=heuristic",
                         "cat_in_the_box", 4, seed=3)
    move_time(capped, a_position(), clock)
    assert capped.last_determinizations == 5
    plain = make_policy("pimc:determinizations=7,policy=heuristic", "cat_in_the_box", 4, seed=3)
    assert move_time(plain, a_position(), clock) == pytest.approx(7 * 0.001)  # no clock read


@pytest.mark.parametrize("cost", [0.01, 0.07])
def test_ismcts_stops_within_one_iteration_of_its_budget(monkeypatch, cost):
    clock = SlowClock(cost)
    slowed(monkeypatch, ismcts, "determinize", clock)  # one re-deal per iteration
    bot = make_policy("ismcts:seconds=0.2", "lunar", 4, seed=1)
    spent = move_time(bot, a_position("lunar", 4), clock)
    assert 0.2 <= spent <= 0.2 + cost + 1e-9
    assert bot.last_iterations == round(spent / cost)


def test_the_planner_finishes_whole_samples_within_one_simulation_of_its_budget(monkeypatch):
    clock = SlowClock(0.125)
    slowed(monkeypatch, planner.PlannerPolicy, "_simulate", clock)
    bot = make_policy("planner:seconds=1,candidates=3", "cat_in_the_box", 4, seed=2)
    spent = move_time(bot, a_position(), clock)
    # 3 candidates a sample (0.375 s): 2 whole samples by 0.75 s, the 3rd cut at 1.0 s
    # after two of its simulations (8 in all: 1.0 s) is dropped
    assert spent == 1.0 and len(bot.last_values) == 3


def test_best_holds_its_budget_on_the_bot_clock(monkeypatch):
    clock = SlowClock(0.04)
    slowed(monkeypatch, determinize, "determinize", clock)  # pimc's re-deals
    bot = make_policy("best:seconds=0.5", "cat_in_the_box", 4, seed=3)
    assert bot.spec == "pimc:seconds=0.5"
    spent = move_time(bot, a_position(), clock)
    assert spent <= 0.5 + 1e-9 and bot.inner.last_determinizations == 12


def test_the_arena_counts_budgets_on_cpu_time_and_the_tables_on_wall_time(monkeypatch):
    from catzoo.arena import run_arena
    from catzoo.policies.random_policy import RandomPolicy

    seen = set()

    class Watcher(RandomPolicy):
        def act(self, observation, **kwargs):
            seen.add(budget.clock_name())
            return super().act(observation, **kwargs)

    assert budget.clock_name() == "wall"
    run_arena("cat_in_the_box", [Watcher(0), "random"], games=2, num_players=2, seed=0,
              options={"rounds": "single"}, progress=False)
    assert seen == {"cpu"} and budget.clock_name() == "wall"
    monkeypatch.setenv(budget.ENV, "wall")
    seen.clear()
    run_arena("cat_in_the_box", [Watcher(0), "random"], games=2, num_players=2, seed=0,
              options={"rounds": "single"}, progress=False)
    assert seen == {"wall"}


def test_thread_pools_are_sized_inside_the_block_and_restored_after(monkeypatch):
    import numpy as np
    from threadpoolctl import threadpool_info

    np.dot(np.ones((4, 4)), np.ones((4, 4)))  # BLAS loaded
    before = {i["filepath"]: i["num_threads"] for i in threadpool_info()}
    with threads.limited() as n:
        assert n == 1 and all(i["num_threads"] == 1 for i in threadpool_info())
    assert {i["filepath"]: i["num_threads"] for i in threadpool_info()} == before
    monkeypatch.setenv(threads.ENV, "3")
    assert threads.pool_size() == 3
    monkeypatch.setenv(threads.ENV, "none")
    with pytest.raises(ValueError, match="CATZOO_THREADS='none'"):
        threads.pool_size()
    with pytest.raises(ValueError, match="unknown search clock"):
        budget.set_clock("sundial")
