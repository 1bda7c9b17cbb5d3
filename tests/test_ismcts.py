"""The search bots: legal, deterministic given their seed, stronger than random."""

from __future__ import annotations

import random

import pytest

from catzoo.arena import run_arena
from catzoo.games.registry import GAMES
from catzoo.policies.match import play_match
from catzoo.policies.registry import UnknownPolicyError, make_policy
from catzoo.policies.search import ISMCTSPolicy, PlannerPolicy

CARD_GAMES = [g for g in GAMES if g != "ledges"]


def mid_game_states(game: str, n: int, count: int = 3):
    """A few seeded positions part-way through random games."""
    cls = GAMES[game].engine_class()
    rng = random.Random(7)
    for k in range(count):
        state = cls.new(seed=k, num_players=n)
        for _ in range(rng.randrange(0, 25)):
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_actions()))
        if not state.is_terminal():
            yield state


def obs_of(state):
    p = state.current_player
    return {"observation": state.observation(p), "action_mask": state.legal_mask()}


@pytest.mark.parametrize(("game", "n"), [(g, n) for g in CARD_GAMES for n in GAMES[g].players])
def test_ismcts_plays_legal_moves_and_leaves_the_state_alone(game, n):
    bot = ISMCTSPolicy(seed=1, iterations=12)
    for state in mid_game_states(game, n):
        before = state.to_json()
        action = bot.act(obs_of(state), state=state, player=state.current_player)
        assert state.is_legal(action)
        assert state.to_json() == before


def test_ismcts_is_deterministic_given_its_seed():
    def moves(seed):
        bots = [make_policy("ismcts:iterations=25", "cat_in_the_box", 3, seed=seed)
                for _ in range(3)]
        return play_match("cat_in_the_box", bots, seed=4, rounds="single").log["actions"]

    assert moves(1) == moves(1)
    bot = ISMCTSPolicy(seed=5, iterations=30)
    state = next(mid_game_states("cat_in_the_box", 4))
    first = [bot.act(obs_of(state), state=state, player=state.current_player) for _ in range(3)]
    bot.reset(5)
    assert [bot.act(obs_of(state), state=state, player=state.current_player)
            for _ in range(3)] == first


def against_random(bot: str, games: int) -> dict:
    """The arena's rows of ``bot`` and random over heads-up single rounds of Cat in the Box."""
    result = run_arena("cat_in_the_box", ["random", bot], games=games, num_players=2, seed=9,
                       options={"rounds": "single"})
    rows = {r["policy"]: r for r in result.summary()}
    assert rows[bot]["win_rate"] >= 0.8, result.table()
    return rows


def test_ismcts_beats_random_in_cat_in_the_box():
    rows = against_random("ismcts:iterations=100", 10)
    assert rows["ismcts:iterations=100"]["rating"] > rows["random"]["rating"]


def test_ismcts_time_budget_and_option_errors():
    bot = ISMCTSPolicy(seed=0, seconds=0.05)
    state = next(mid_game_states("cat_in_the_box", 2))
    bot.act(obs_of(state), state=state, player=state.current_player)
    assert bot.last_iterations >= 1 and bot.iterations is None
    with pytest.raises(UnknownPolicyError, match="unknown option.*'iters'.*known options: iterations"):
        make_policy("ismcts:iters=3", "cat_in_the_box", 2)
    with pytest.raises(UnknownPolicyError, match="iterations=0.*at least 1"):
        make_policy("ismcts:iterations=0", "cat_in_the_box", 2)
    with pytest.raises(UnknownPolicyError, match="c='high' must be float"):
        make_policy("ismcts:c=high", "cat_in_the_box", 2)
    with pytest.raises(ValueError, match="call act\\(observation, state=...,"):
        bot.act(obs_of(state))


def test_planner_is_legal_and_deterministic_on_any_engine():
    state = next(mid_game_states("cat_in_the_box", 3))
    obs = obs_of(state)
    picks = []
    for _ in range(2):
        bot = PlannerPolicy(seed=3, candidates=4, samples=2, depth=3)
        picks.append(bot.act(obs, state=state, player=state.current_player))
        assert state.is_legal(picks[-1]) and len(bot.last_values) <= 4
    assert picks[0] == picks[1]


@pytest.mark.skipif("ledges" not in GAMES, reason="ledges (MuJoCo) is not installed")
def test_planner_plays_a_ledges_move_with_dexterity_noise():
    cls = GAMES["ledges"].engine_class()
    state = cls.new(seed=2, num_players=2)
    bot = PlannerPolicy(seed=0, candidates=2, samples=2, depth=0)
    action = bot.act(obs_of(state), state=state, player=state.current_player)
    assert state.is_legal(action) and len(bot.last_values) == 2


def test_checkpoint_specs_fail_clearly_without_training(tmp_path):
    with pytest.raises(UnknownPolicyError, match="no such file or directory"):
        make_policy(str(tmp_path / "missing"), "cat_in_the_box", 2)
