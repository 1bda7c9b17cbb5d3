"""SPARTA's re-deals at Cat Tree's simultaneous keep: the partner's pick of this turn, made
before the searching player's and not yet revealed, is the blueprint's on each re-dealt hand
(determinize.partner_picks), with every rule and everything the player saw kept."""

from __future__ import annotations

import random

import numpy as np
import pytest

from catzoo.games.base import TERMINAL
from catzoo.games.cat_tree import CatTreeState
from catzoo.games.cat_tree.state import KEEP, KEEP_BASE, deal_of
from catzoo.policies.base import Policy
from catzoo.policies.registry import make_policy
from catzoo.policies.search.determinize import determinizations, determinize
from catzoo.policies.search.sparta import SPARTAPolicy
from tests.test_ismcts import obs_of


def at_keep(seed: int, turn: int, player: int) -> CatTreeState:
    """A random game of ``seed`` played to ``player``'s keep of ``turn``."""
    state, rng = CatTreeState.new(seed=seed), random.Random(seed)
    while not (state.turn == turn and state.phase == KEEP and state.current_player == player):
        state.apply(rng.choice(state.legal_actions()))
    return state


class KeepHigher(Policy):
    """Keeps the higher card of its two; any other decision its lowest legal action."""

    def act(self, observation, *, state=None, player=None) -> int:
        return int(self.act_batch(observation["observation"][None],
                                  observation["action_mask"][None])[0])

    def act_batch(self, observations, masks):
        masks = np.asarray(masks)
        keeping = (masks[:, KEEP_BASE] > 0) & (masks[:, KEEP_BASE + 1] > 0)
        return np.where(keeping, KEEP_BASE + 1, masks.argmax(axis=1)).astype(np.int64)


@pytest.mark.parametrize("seed", range(4))
def test_rewound_to_the_unseen_pick_the_logged_pick_gives_the_same_game_back(seed):
    state = at_keep(seed, turn=seed + 1, player=1)
    det = determinize(state, 1, random.Random(seed))
    rewound = det.before_unseen_pick(1)
    assert rewound.current_player == 0 and rewound.history == det.history[:-1]
    rewound.apply(det.history[-1])
    assert rewound.to_json() == det.to_json()
    assert rewound.rng.getstate() == det.rng.getstate()  # it deals on as the re-deal would
    assert all((rewound.observation(p) == det.observation(p)).all() for p in range(2))
    # player 0 keeps first: nothing of player 1's is unseen then, nor by player 0 after
    assert at_keep(seed, turn=seed, player=0).before_unseen_pick(0) is None
    assert state.before_unseen_pick(0) is None


def test_the_partners_unseen_pick_is_the_policys_on_each_redealt_hand():
    state = at_keep(5, turn=3, player=1)
    even = determinizations(state, 1, random.Random(9), 40)
    picked = determinizations(state, 1, random.Random(9), 40, picks=KeepHigher())
    # at even odds both picks occur; the policy's partner keeps its higher card in each
    assert {d.history[-1] for d in even} == {KEEP_BASE, KEEP_BASE + 1}
    for e, p in zip(even, picked):
        assert p.deck == e.deck and p.history[:-1] == e.history[:-1]
        assert p.history[-1] == KEEP_BASE + 1
        assert p.rng.getstate() == e.rng.getstate()
        # what player 1 sees and may do is the real game's
        assert (p.observation(1) == state.observation(1)).all()
        assert p.legal_actions() == state.legal_actions()
        revealed = p.clone()
        revealed.apply(KEEP_BASE)
        assert revealed.kept[0] == max(deal_of(p.deck, 3, 0))
    # no unseen pick (player 0 keeps first): the re-deals are the uniform ones
    first = at_keep(5, turn=3, player=0)
    assert ([d.to_json() for d in determinizations(first, 0, random.Random(2), 6, picks=KeepHigher())]
            == [d.to_json() for d in determinizations(first, 0, random.Random(2), 6)])


def test_weighted_redeals_are_weighed_with_the_pick_drawn_then_take_the_policys():
    # a weighted re-deal weighs every candidate with its pick as drawn (the partner's moves
    # since the start, that pick too: tests/test_redeal.py); the chosen ones then take the
    # policy's pick, the same re-deals otherwise
    from catzoo.policies.search.determinize import Redeal
    from tests.test_redeal import KeepHigherModel

    state = at_keep(5, turn=3, player=1)
    redeal = Redeal(KeepHigherModel(), candidates=3)
    drawn = determinizations(state, 1, random.Random(4), 12, redeal)
    picked = determinizations(state, 1, random.Random(4), 12, redeal, picks=KeepHigher())
    assert len({d.deck for d in drawn}) > 1
    for d, p in zip(drawn, picked):
        assert p.deck == d.deck and p.history[:-1] == d.history[:-1]
        assert p.history[-1] == KEEP_BASE + 1
        assert (p.observation(1) == state.observation(1)).all()
        assert p.legal_actions() == state.legal_actions()


def sparta_values_one_at_a_time(state, player, net, determinizations, seed):
    """SPARTA's values the slow way: each re-deal's partner pick and every rollout's moves
    by the network's ``act``, one position at a time."""
    rng = random.Random(seed)
    legal = state.legal_actions()
    totals = dict.fromkeys(legal, 0.0)
    for _ in range(determinizations):
        det = determinize(state, player, rng)
        rewound = det.before_unseen_pick(player)
        if rewound is not None:
            rewound.apply(net.act(obs_of(rewound)))
            det = rewound
        for a in legal:
            sim = det.clone()
            sim.apply(a)
            while sim.current_player != TERMINAL:
                sim.apply(net.act(obs_of(sim)))
            totals[a] += sim.returns()[player]
    return {a: t / determinizations for a, t in totals.items()}


@pytest.mark.parametrize("turn", [0, 4])
def test_spartas_values_are_its_rollouts_after_the_blueprints_partner_pick(turn):
    net = make_policy("shipped", "cat_tree", 2)
    for player in (0, 1):
        state = at_keep(turn + 11, turn=turn, player=player)
        bot = SPARTAPolicy(seed=3, determinizations=3)
        values = bot.values(state, player, state.legal_actions(), bot.rollout.for_state(state))
        slow = sparta_values_one_at_a_time(state, player, net, 3, seed=3)
        assert values == pytest.approx(slow, abs=1e-12)
    even = SPARTAPolicy(seed=3, determinizations=3, unseen_pick="even")
    assert even.values(state, 1, state.legal_actions(), even.rollout.for_state(state)) != values


def test_unseen_pick_is_policy_or_even():
    with pytest.raises(Exception, match="unseen_pick"):
        make_policy("sparta:unseen_pick=random", "cat_tree", 2)
