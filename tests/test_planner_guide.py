"""``planner:guide=SPEC`` (policies/search/planner.py): the guide proposes the candidates (its
own move first, then its ranking) and plays the rest of the mover's turn in each
simulation; where it ranks nothing the planner plays the guide's move unsimulated. The
aimer's ranking (``LedgesAimer.ranked``) starts with the move the aimer plays."""

from __future__ import annotations

import pytest

from catzoo.games.registry import GAMES
from catzoo.policies.registry import UnknownPolicyError, make_policy

pytestmark = pytest.mark.skipif("ledges" not in GAMES, reason="ledges (MuJoCo) is not installed")


def obs_of(state):
    p = state.current_player
    return {"observation": state.observation(p), "action_mask": state.legal_mask()}


def aimer_game(seed: int, num_players: int = 2, moves: int = 60, max_rounds: int = 4):
    """The positions of a seeded game of aimers, with the aiming features shown."""
    from catzoo.games.ledges import state as S

    state = GAMES["ledges"].engine_class().new(seed=seed, num_players=num_players,
                                               aim_features=True, max_rounds=max_rounds)
    aimer = make_policy("aimer", "ledges", num_players, seed=seed)
    for _ in range(moves):
        if state.is_terminal():
            return
        yield state
        state.apply(aimer.act(obs_of(state), state=state, player=state.current_player))
    assert S.BAT  # the phases named in the tests below exist


def test_the_aimers_ranking_starts_with_its_move_and_holds_the_legal_options_of_the_phase():
    from catzoo.games.ledges import state as S

    aimer = make_policy("aimer", "ledges", 2, seed=0)
    ranked_phases = set()
    for state in aimer_game(seed=4):
        obs = obs_of(state)
        ranked = aimer.ranked(obs, state=state)
        move = aimer.act(obs, state=state, player=state.current_player)
        if ranked is None:
            continue
        ranked_phases.add(S.BAT if move >= S.BAT_BASE else S.TOY if move >= S.TOY_BASE else S.CAT)
        assert ranked[0] == move
        # the aimer never stops batting while a bat is left: stop is not among the options
        legal = [a for a in state.legal_actions() if a != S.STOP and (a >= S.BAT_BASE) == (move >= S.BAT_BASE)
                 and (S.TOY_BASE <= a < S.BAT_BASE) == (S.TOY_BASE <= move < S.BAT_BASE)
                 and (S.CAT_BASE <= a < S.TOY_BASE) == (S.CAT_BASE <= move < S.TOY_BASE)]
        assert sorted(ranked) == sorted(legal)
    assert ranked_phases == {S.CAT, S.TOY, S.BAT}


def test_the_guided_planner_simulates_the_guides_best_moves_and_plays_its_builds():
    from catzoo.games.ledges import state as S

    simulated = built = 0
    for state in aimer_game(seed=5, moves=25):
        obs, player = obs_of(state), state.current_player
        bot = make_policy("planner:guide=aimer,candidates=3,samples=2", "ledges", 2, seed=9)
        guide = make_policy("aimer", "ledges", 2, seed=9)  # the planner's guide, as seeded
        ranked = guide.ranked(obs, state=state)
        move = guide.act(obs, state=state, player=player)
        before = state.observation(player).copy()
        action = bot.act(obs, state=state, player=player)
        assert (state.observation(player) == before).all()  # simulations work on copies
        if ranked is None or len(ranked) == 1:
            assert action == move and bot.last_values == {}
            built += move < S.CAT_BASE
        else:
            assert list(bot.last_values) == ranked[:3] and action in ranked[:3]
            simulated += 1
    assert simulated and built


def test_a_guide_that_is_no_bot_is_refused_by_name():
    with pytest.raises(UnknownPolicyError, match="guide.*not a planner"):
        make_policy("planner:guide=planner", "ledges", 2)
    bot = make_policy("planner:guide=nobody", "ledges", 2)
    state = next(aimer_game(seed=1))
    with pytest.raises(ValueError, match="planner: its guide.*unknown policy 'nobody'"):
        bot.act(obs_of(state), state=state, player=state.current_player)


def test_a_network_guide_proposes_its_most_likely_moves_and_a_guide_that_ranks_nothing_is_refused():
    from catzoo.games.ledges import state as S

    net = make_policy("shipped", "ledges", 3, env_options={"aim_features": True})  # as trained
    simulated = 0
    for state in aimer_game(seed=6, num_players=3, moves=20, max_rounds=20):
        obs, player = obs_of(state), state.current_player
        if len(state.legal_actions()) < 3 or state.legal_actions()[0] < S.CAT_BASE:
            continue
        p = net.action_probabilities(obs["observation"][None], obs["action_mask"][None])[0]
        likeliest = sorted(state.legal_actions(), key=lambda a: -p[a])[:3]
        bot = make_policy("planner:guide=shipped,candidates=3,samples=1", "ledges", 3, seed=9)
        bot.act(obs, state=state, player=player)
        assert sorted(bot.last_values) == sorted(likeliest)
        simulated += 1
    assert simulated
    state = next(aimer_game(seed=1))
    with pytest.raises(ValueError, match="guide='heuristic' ranks no moves"):
        make_policy("planner:guide=heuristic", "ledges", 2).act(
            obs_of(state), state=state, player=state.current_player)
