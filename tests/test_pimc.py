"""PIMC, determinized rollouts of a policy: legal, its batched rollouts the same as playing
them one seat at a time, deterministic given its seed, and a network's batched actions
those of its one-at-a-time ones."""

from __future__ import annotations

import random

import numpy as np
import pytest

from catzoo.games.base import TERMINAL
from catzoo.games.registry import GAMES
from catzoo.policies.base import NoLegalActionError
from catzoo.policies.match import play_match
from catzoo.policies.registry import UnknownPolicyError, make_policy
from catzoo.policies.search import PIMCPolicy, SearchOptionError
from catzoo.policies.search.determinize import determinize
from tests.test_ismcts import CARD_GAMES, against_random, mid_game_states, obs_of


@pytest.mark.parametrize(("game", "n"), [(g, n) for g in CARD_GAMES for n in GAMES[g].players])
def test_pimc_plays_legal_moves_and_leaves_the_state_alone(game, n):
    bot = PIMCPolicy(seed=1, policy="heuristic", determinizations=2)
    for state in mid_game_states(game, n):
        before = state.to_json()
        action = bot.act(obs_of(state), state=state, player=state.current_player)
        assert state.is_legal(action)
        assert state.to_json() == before


def rollout_values(state, player, legal, policy, determinizations, seed, horizon):
    """PIMC's values the slow way: every rollout on its own, every move by ``act``."""
    rng = random.Random(seed)
    totals = dict.fromkeys(legal, 0.0)
    deals = len(state.chance)
    for _ in range(determinizations):
        det = determinize(state, player, rng)
        for a in legal:
            sim = det.clone()
            sim.apply(a)
            while sim.current_player != TERMINAL and (horizon == "end" or len(sim.chance) == deals):
                sim.apply(policy.act(obs_of(sim)))
            if sim.current_player == TERMINAL:
                totals[a] += sim.returns()[player]
            else:
                scores = np.asarray(sim.scores(), dtype=float)
                totals[a] += scores[player] - (scores.sum() - scores[player]) / (len(scores) - 1)
    return {a: t / determinizations for a, t in totals.items()}


@pytest.mark.parametrize(("game", "n", "horizon"), [
    ("lunar", 4, "deal"), ("catsle_builders", 4, "deal"), ("cat_in_the_box", 3, "end")])
def test_batched_rollouts_are_the_rollouts_played_one_at_a_time(game, n, horizon):
    rollout = make_policy("shipped", game, n)
    bot = PIMCPolicy(num_players=n, seed=3, determinizations=3, horizon=horizon)
    checked = 0
    for state in mid_game_states(game, n, count=2):
        player = state.current_player
        legal = state.legal_actions()
        if len(legal) < 2:
            continue
        bot.rng = random.Random(11)
        got = bot.values(state, player, legal, rollout)
        want = rollout_values(state, player, legal, rollout, 3, 11, horizon)
        assert got == pytest.approx(want)
        checked += 1
    assert checked


def test_the_deal_horizon_values_a_round_by_its_margin_and_the_last_round_by_the_result():
    state = next(mid_game_states("lunar", 4))
    bot = PIMCPolicy(seed=0, policy="heuristic", determinizations=2)
    rollout = make_policy("heuristic", "lunar", 4)
    legal = state.legal_actions()
    cut = bot.values(state, state.current_player, legal, rollout)
    ended = PIMCPolicy(seed=0, policy="heuristic", determinizations=2, horizon="end").values(
        state, state.current_player, legal, rollout)
    assert all(-1 <= v <= 1 for v in ended.values())
    # A first-round margin is in points; a whole game's return is a standing in [-1, 1].
    assert cut != ended and any(abs(v) > 1 for v in cut.values())


def test_pimc_is_deterministic_given_its_seed():
    def moves(seed):
        bots = [make_policy("pimc:policy=heuristic,determinizations=2", "lunar", 4, seed=seed)
                for _ in range(4)]
        return play_match("lunar", bots, seed=4, **GAMES["lunar"].quick_options).log["actions"]

    assert moves(1) == moves(1)


def test_pimc_with_random_rollouts_beats_random():
    against_random("pimc:policy=random,determinizations=16", 20)


@pytest.mark.parametrize(("spec", "message"), [
    ("pimc:dets=3", "unknown option.*'dets'.*known options: policy"),
    ("pimc:determinizations=0", "determinizations=0.*at least 1"),
    ("pimc:horizon=round", "horizon='round'.*deal or end"),
    ("pimc:policy=pimc", "not pimc itself"),
    ("pimc:mix=1.5", "mix=1.5.*between 0 and 1"),
    ("pimc:playouts=-1", "playouts=-1.*at least 0"),
])
def test_pimc_option_errors_name_the_option(spec, message):
    with pytest.raises(UnknownPolicyError, match=message):
        make_policy(spec, "lunar", 4)


def test_pimc_needs_a_rollout_policy_that_loads_and_the_engine_state():
    state = next(mid_game_states("lunar", 4))
    with pytest.raises(SearchOptionError, match="rollout policy.*heuristc.*did you mean 'heuristic'"):
        PIMCPolicy(policy="heuristc").act(obs_of(state), state=state, player=state.current_player)
    with pytest.raises(SearchOptionError, match="state=..., player="):
        PIMCPolicy(policy="heuristic").act(obs_of(state))


@pytest.mark.parametrize(("game", "n"), [("catsle_builders", 4), ("lunar", 4)])
def test_a_networks_batched_actions_are_its_actions_row_by_row(game, n):
    policy = make_policy("shipped", game, n)
    cls = GAMES[game].engine_class()
    rng = random.Random(5)
    rows, masks = [], []
    for seed in range(6):
        state = cls.new(seed=seed, num_players=n)
        while not state.is_terminal() and len(rows) < 60 * (seed + 1):
            rows.append(state.observation(state.current_player))
            masks.append(state.legal_mask())
            state.apply(rng.choice(state.legal_actions()))
    obs, masks = np.stack(rows), np.stack(masks)
    batched = policy.act_batch(obs, masks)
    one = [policy.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks)]
    assert batched.tolist() == one
    with pytest.raises(ValueError, match="expects observations"):
        policy.act_batch(obs[:, :-1], masks)
    masks[2] = 0
    with pytest.raises(NoLegalActionError, match="no legal action"):
        policy.act_batch(obs, masks)


def a_choice(game, n):
    return next(s for s in mid_game_states(game, n) if len(s.legal_actions()) > 1)


def test_with_playouts_the_network_half_is_its_rollouts_return_when_it_plays_to_the_end():
    state = a_choice("catsle_builders", 3)
    player, legal = state.current_player, state.legal_actions()
    rollout = make_policy("shipped", "catsle_builders", 3)

    def values(**options):
        return PIMCPolicy(seed=8, determinizations=3, horizon="end", **options).values(
            state, player, legal, rollout)

    # A rollout to the end needs no playout to finish it: mix=1 values the same re-deals
    # the same way as playouts=0.
    assert values(playouts=3, mix=1.0) == pytest.approx(values())
    assert values(playouts=3, mix=0.5) != pytest.approx(values())


def test_with_mix_0_the_value_is_the_random_playouts_alone():
    state = a_choice("lunar", 4)
    player, legal = state.current_player, state.legal_actions()
    got = [PIMCPolicy(seed=4, determinizations=4, playouts=5, mix=0.0).values(
        state, player, legal, make_policy(spec, "lunar", 4)) for spec in ("heuristic", "random")]
    assert got[0] == got[1]
    assert all(-1 <= v <= 1 for v in got[0].values()) and len(set(got[0].values())) > 1
    before = state.to_json()
    bot = PIMCPolicy(seed=4, determinizations=4, playouts=5)
    move = bot.act(obs_of(state), state=state, player=player)
    assert state.is_legal(move) and state.to_json() == before


def test_playouts_need_a_game_whose_rules_play_in_c():
    state = GAMES["ledges"].engine_class().new(seed=0, num_players=2)
    with pytest.raises(SearchOptionError, match="playouts=2 needs a game whose rules play in C.*ledges"):
        PIMCPolicy(playouts=2).act(obs_of(state), state=state, player=state.current_player)
