"""Weighted re-deals (policies/search/determinize.py): every re-deal still obeys the rules,
and re-deals under which an opponent's observed moves were likely weigh more."""

from __future__ import annotations

import random

import numpy as np
import pytest

from catzoo.games.cat_in_the_box.state import PLAY, PLAY_BASE, CatInTheBoxState
from catzoo.policies.search.determinize import (
    Redeal,
    determinizations,
    determinize,
    observed_moves,
    redeal_weights,
)

NUMBERS = 9


class HighCardModel:
    """A stand-in for a network that likes to play high: P ∝ exp(SLOPE * number), whatever
    colour it declares; set-asides and predictions uniform."""

    SLOPE = 0.7

    def action_probabilities(self, observations, masks):
        masks = np.asarray(masks, dtype=float)
        number = np.zeros(masks.shape[1])
        number[PLAY_BASE:] = (np.arange(masks.shape[1] - PLAY_BASE) % NUMBERS) + 1
        logits = np.where(masks > 0, self.SLOPE * number, -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)


def opening_lead(seed: int = 3) -> tuple[CatInTheBoxState, int]:
    """Three players (cards 1-9); the set-asides and predictions made at random, then the
    leader leads its lowest card: a lead the model finds unlikely from a hand holding high
    cards. Returns the state and the player after the leader, who searches."""
    state = CatInTheBoxState.new(num_players=3, seed=seed)
    rng = random.Random(0)
    while state.phase != PLAY:
        state.apply(rng.choice(state.legal_actions()))
    state.apply(min(state.legal_actions(), key=lambda a: (a - PLAY_BASE) % NUMBERS))
    return state, state.current_player


def python_replay_moves(det, me: int) -> list:
    """``observed_moves`` the slow way: the Python engine replaying the re-deal's log."""
    again = type(det).new(det.options, seed=0, chance=det.chance)
    moves = []
    for action in det.history:
        mover, deals = again.current_player, len(again.chance)
        if mover != me:
            moves.append((again.observation(mover), again.legal_mask(), action))
        again.apply(action)
        if len(again.chance) != deals:
            moves = []
    return moves


def test_every_weighted_redeal_obeys_the_rules_and_keeps_what_the_player_saw():
    state, me = opening_lead()
    dets = determinizations(state, me, random.Random(7), 12, Redeal(HighCardModel()))
    assert len(dets) == 12
    for det in dets:
        np.testing.assert_array_equal(det.observation(me), state.observation(me))
        again = type(state).replay(det.action_log())  # the log checks every rule
        assert again.history == det.history and again.counts == det.counts
        assert det.legal_actions() == state.legal_actions()  # my own hand is untouched


def test_a_redeal_weighs_the_likelihood_of_the_opponents_moves():
    state, me = opening_lead()
    rng = random.Random(11)
    pool = [determinize(state, me, rng) for _ in range(40)]
    weights = redeal_weights(pool, me, Redeal(HighCardModel(), epsilon=0.0))
    model = HighCardModel()
    # By hand: each move the others made since the deal (set-asides, predictions, the lead)
    # at the model's probability given the mover's view in that re-deal.
    expected = []
    for det in pool:
        moves = observed_moves(det, me)
        slow = python_replay_moves(det, me)
        assert [m[2] for m in moves] == [m[2] for m in slow] and len(moves) >= 3
        for (obs, mask, _), (obs2, mask2, _) in zip(moves, slow):
            np.testing.assert_array_equal(obs, obs2)
            np.testing.assert_array_equal(mask, mask2)
        p = 1.0
        for obs, mask, action in moves:
            p *= model.action_probabilities(obs[None], mask[None])[0, action]
        expected.append(p)
    expected = np.array(expected) / max(expected)
    np.testing.assert_allclose(weights, expected, rtol=1e-9)
    # A hand holding a 6 (the top card at 3 players) made the lead of a 1 less likely than
    # one whose top card is a 5, by e^0.7 for every 6 and colour it could declare it in.
    leader = state.trick[0][0]
    top = [max(k for k in range(NUMBERS) if det.counts[leader][k]) for det in pool]
    with_six = [w for w, t in zip(weights, top) if t == 5]
    without = [w for w, t in zip(weights, top) if t < 5]
    assert with_six and without and np.mean(without) > 1.5 * np.mean(with_six)
    np.testing.assert_allclose(sorted(weights)[:1] + sorted(weights)[-3:],
                               [0.13062625330573335, 0.5135547103059153, 0.5515062468909223,
                                1.0], rtol=1e-9)  # pinned for this seed


def test_weighted_draws_follow_the_weights_and_uniform_ones_are_the_old_draws():
    state, me = opening_lead()
    uniform = determinizations(state, me, random.Random(5), 6)
    old = [determinize(state, me, r) for r in [random.Random(5)] for _ in range(6)]
    assert [d.counts for d in uniform] == [d.counts for d in old]
    heavy = determinizations(state, me, random.Random(5), 200, Redeal(HighCardModel(),
                                                                      candidates=4))
    light = determinizations(state, me, random.Random(5), 200)
    leader = state.trick[0][0]

    def high_cards(dets) -> float:
        return float(np.mean([det.counts[leader][5] for det in dets]))  # its 6s

    # the play said: few high cards (0.595 sixes in the leader's hand against 0.855)
    assert high_cards(heavy) < high_cards(light) - 0.2


@pytest.mark.parametrize("candidates", [0, 1])
def test_one_candidate_per_redeal_is_a_uniform_redeal(candidates):
    state, me = opening_lead()
    a = determinizations(state, me, random.Random(2), 4, Redeal(HighCardModel(),
                                                                candidates=candidates))
    b = determinizations(state, me, random.Random(2), 4)
    assert [d.counts for d in a] == [d.counts for d in b]


@pytest.mark.parametrize("bot", ["pimc:determinizations=4,redeal=weighted,candidates=3",
                                 "ismcts:iterations=24,redeal=weighted,candidates=2"])
def test_the_search_bots_play_whole_games_on_weighted_redeals(bot, monkeypatch):
    from catzoo.policies import match
    from catzoo.policies.registry import make_policy
    from catzoo.policies.search import determinize as module

    weighed = []
    real = module.redeal_weights
    monkeypatch.setattr(module, "redeal_weights",
                        lambda dets, *a: weighed.append(len(dets)) or real(dets, *a))
    seated = [make_policy(bot, "cat_in_the_box", 3, seed=1),
              make_policy("random", "cat_in_the_box", 3, seed=2),
              make_policy("random", "cat_in_the_box", 3, seed=3)]
    steps = []
    match.play_match("cat_in_the_box", seated, seed=11,
                     on_step=lambda state, player, action: steps.append(
                         state.is_legal(action) if hasattr(state, "is_legal")
                         else action in state.legal_actions()))
    assert steps and all(steps)
    candidates = 3 if bot.startswith("pimc") else 2
    assert weighed and all(n % candidates == 0 for n in weighed)


@pytest.mark.parametrize("bot", ["pimc", "ismcts"])
def test_weighted_redeals_need_a_network(bot):
    from catzoo.policies.registry import make_policy
    from catzoo.policies.search.options import SearchOptionError

    state, player = opening_lead()
    policy = make_policy(f"{bot}:redeal=weighted,redeal_policy=heuristic", "cat_in_the_box", 3,
                         seed=1)
    with pytest.raises(SearchOptionError, match="redeal_policy='heuristic' is not a network"):
        policy.act({"observation": state.observation(player), "action_mask": state.legal_mask()},
                   state=state, player=player)
    with pytest.raises(ValueError, match="redeal='sometimes' must be uniform or weighted"):
        make_policy(f"{bot}:redeal=sometimes", "cat_in_the_box", 3, seed=1)


@pytest.mark.parametrize("game", ["cat_in_the_box", "lunar", "catsle_builders", "cat_tree",
                                  "ledges"])
def test_a_determinization_deals_on_from_a_generator_drawn_from_the_searchers(game):
    # later deals must come from a generator the searcher's own draws seed, as
    # random.Random(seed) would (a compiled core builds it in C), never the real game's
    from catzoo.games.registry import get_game

    state = get_game(game).engine_class().new(seed=7)
    rng = random.Random(11)
    det = determinize(state, state.current_player, rng)
    seed = random.Random(11)
    state.resample(state.current_player, seed)
    assert det.rng.getstate() == random.Random(seed.getrandbits(64)).getstate()
    assert det.rng.getstate() != state.rng.getstate()


class KeepHigherModel:
    """A stand-in for a Cat Tree network that keeps its higher card: P(keep higher) =
    e^SLOPE / (1 + e^SLOPE); every other decision uniform over its legal moves."""

    SLOPE = 1.0

    def action_probabilities(self, observations, masks):
        masks = np.asarray(masks, dtype=float)
        p = masks / masks.sum(axis=1, keepdims=True)
        keeping = (masks[:, 0] > 0) & (masks[:, 1] > 0)
        high = np.exp(self.SLOPE) / (1 + np.exp(self.SLOPE))
        p[keeping, 0], p[keeping, 1] = 1 - high, high
        return p


def test_cat_tree_redeals_weigh_every_partner_pick_since_the_start():
    # Cat Tree deals one deck: a re-deal re-deals the partner's discards of every past turn
    # and its unrevealed pick of this turn, so every partner move since the start tells of
    # them: a re-deal weighs e^SLOPE per pick of the partner's that keeps its higher card
    # there (its other picks, orders and placements the same in every re-deal)
    from catzoo.games.cat_tree import CatTreeState
    from catzoo.games.cat_tree.state import KEEP

    state, rng = CatTreeState.new(seed=4), random.Random(1)
    while not (state.turn == 3 and state.phase == KEEP and state.current_player == 1):
        state.apply(rng.choice(state.legal_actions()))
    pool = [determinize(state, 1, rng) for _ in range(60)]
    weights = redeal_weights(pool, 1, Redeal(KeepHigherModel(), epsilon=0.0))
    keeps = [[action for _, mask, action in observed_moves(det, 1) if mask[:2].all()]
             for det in pool]
    assert all(len(k) == 4 for k in keeps)  # the partner's picks of turns 0-3
    highs = np.array([sum(k) for k in keeps])
    assert set(highs) >= {1, 2, 3}  # the re-deals disagree on the partner's picks
    np.testing.assert_allclose(weights, np.exp(KeepHigherModel.SLOPE * (highs - highs.max())),
                               rtol=1e-9)
