"""The ledges lookahead bot (policies/heuristics/ledges_lookahead.py): a build is valued in
the simulator by the shot it leaves the builder, a build that ends the turn below any shot;
it takes the candidate valued most, leaves the game it reads untouched, and plays the
aimer's cat, toy and bats."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco")

import numpy as np

from catzoo.games.ledges import geometry as G
from catzoo.games.ledges.state import BUILD, NUM_BUILD
from catzoo.policies.heuristics.ledges_aimer import LedgesAimer
from catzoo.policies.heuristics.ledges_lookahead import FALL, LedgesLookahead
from catzoo.policies.match import play_match
from catzoo.policies.registry import available_policies, make_policy
from tests.ledges_scenarios import RECT_SS, RECT_TT, exact, on_platform, on_table, pass_turn
from tests.test_ledges_aimer import decide
from tests.test_ledges_physics import tower_with_landing

TILTED_VARIANT = next(v for v, (_, sizes, _) in enumerate(G.VARIANTS) if len(set(sizes)) > 1)


def tower_to_build():
    """#1 on two tall pillars on the start platform (level 3), no landing; player 1 builds.
    No dexterity noise, the cards pinned: every value below is exact."""
    s = exact([0, 1, 2, 3, 4, 5])
    s.apply(on_platform(0, 4, RECT_TT))
    pass_turn(s)
    assert s.phase == BUILD and s.current_player == 1
    return s


def test_a_build_is_worth_the_shot_it_leaves():
    """The fish rectangle 12 cm west on two short pillars (level 1) under #1 (level 3):
    the aimer's shot from #1 drops two pillar lengths onto the icon, 3 points; a rectangle
    on a short and a tall pillar slides off and ends the turn: FALL."""
    s = tower_to_build()
    assert LedgesLookahead._value(s, on_table(0, 3, RECT_SS), seed=1) == pytest.approx(3.0)
    assert LedgesLookahead._value(s, on_table(0, 3, TILTED_VARIANT), seed=1) == FALL


def test_it_takes_the_build_valued_most_and_leaves_the_game_alone(monkeypatch):
    s = tower_to_build()
    before, log = s.state_vector().copy(), list(s.log)
    seen: dict[int, list[float]] = {}
    value = LedgesLookahead._value

    def spy(state, action, seed):
        seen.setdefault(action, []).append(value(state, action, seed))
        return seen[action][-1]

    monkeypatch.setattr(LedgesLookahead, "_value", staticmethod(spy))
    action = decide(LedgesLookahead(2, seed=3), s)
    assert action < NUM_BUILD and len(seen) > 1
    means = {a: np.mean(v) for a, v in seen.items()}
    assert means[action] == max(means.values())
    assert np.array_equal(s.state_vector(), before) and s.log == log


def test_a_build_needs_the_state():
    with pytest.raises(ValueError, match="state"):
        decide(LedgesLookahead(2, seed=0), tower_to_build(), with_state=False)


def test_cat_toy_and_bats_are_the_aimers():
    s, aimer, bot = tower_with_landing(), LedgesAimer(2, seed=0), LedgesLookahead(2, seed=0)
    while s.current_player == 1 and not s.is_terminal():
        action = decide(bot, s)
        assert action == decide(aimer, s)
        s.apply(action)


def test_it_plays_whole_games_at_every_count():
    assert "lookahead" in available_policies("ledges")
    assert "lookahead" not in available_policies("lunar")
    for n in (2, 3, 4):
        bots = [make_policy("lookahead" if k == 0 else "aimer", "ledges", n, seed=k)
                for k in range(n)]
        result = play_match("ledges", bots, seed=n, max_rounds=2)
        assert len(result.log["actions"]) > 4 * n


@pytest.mark.parametrize(("cost", "seconds", "simulations"), [
    (0.1, 10.0, 16),  # time for both rounds of the 8 candidates: the unbudgeted move
    (0.1, 1.25, 13),  # the first round whole (0.8 s), the second cut at 1.3 s: dropped
    (0.3, 1.0, 4),  # the first round cut at 1.2 s: the 4 candidates it reached decide
])
def test_a_budgeted_build_stops_within_one_simulation(monkeypatch, cost, seconds, simulations):
    """Each simulation costs ``cost`` on a fake clock: the move stops at the first check
    past ``seconds``, so over it by at most one simulation, and with time for every round
    it plays the unbudgeted bot's build."""
    from tests.test_search_budget import SlowClock

    s = tower_to_build()
    plain = decide(LedgesLookahead(2, seed=3), s)
    clock, value, calls = SlowClock(cost), LedgesLookahead._value, []

    def costly(state, action, seed):
        clock.work()
        calls.append((action, value(state, action, seed)))
        return calls[-1][1]

    monkeypatch.setattr(LedgesLookahead, "_value", staticmethod(costly))
    bot = make_policy(f"lookahead:seconds={seconds:g}", "ledges", 2, seed=3)
    bot.clock = clock
    action = decide(bot, s)
    assert len(calls) == simulations and clock.t < seconds + cost
    if simulations == 16:
        assert action == plain
    first = calls[:min(simulations, 8)]
    assert action == max(first, key=lambda c: c[1])[0]  # the first of equals


def test_best_plays_the_lookahead_with_its_budget():
    for n in (2, 3, 4):
        assert make_policy("best", "ledges", n).spec == "lookahead:seconds=1"
    assert make_policy("best:seconds=0.25", "ledges", 3).inner.seconds == 0.25
    with pytest.raises(ValueError, match="takes no options"):
        make_policy("aimer:seconds=1", "ledges", 2)
    with pytest.raises(ValueError, match="unknown option"):
        make_policy("lookahead:samples=3", "ledges", 2)


def test_it_searches_the_engine_so_no_batched_opponent_is_made_of_it():
    from catzoo.policies.registry import is_search
    from catzoo.training.tables import policy_opponent

    assert is_search("ledges", "lookahead") and not is_search("ledges", "aimer")
    with pytest.raises(ValueError, match="searches the rules engine"):
        policy_opponent("lookahead", "ledges", 2, seed=0, env_options={}, obs_size=1)
