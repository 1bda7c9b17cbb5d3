"""ISMCTS guided by a network's prior (``ismcts:prior=...``): legal, deterministic, steered by
the prior, the network asked once per new node, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

from catzoo.games.registry import GAMES
from catzoo.policies.base import Policy
from catzoo.policies.registry import UnknownPolicyError, make_policy
from catzoo.policies.search import ISMCTSPolicy
from catzoo.policies.search.ismcts import VISITS
from tests.test_ismcts import CARD_GAMES, mid_game_states, obs_of


class FavouriteNet(Policy):
    """A stand-in network: nearly all its probability on the highest legal action; counts
    the observations it was asked about."""

    calls = 0

    def __init__(self, num_players=None, seed=None):
        pass

    def act(self, observation, *, state=None, player=None) -> int:
        return int(np.flatnonzero(observation["action_mask"])[-1])

    def action_probabilities(self, observations, masks):
        FavouriteNet.calls += len(observations)
        p = np.asarray(masks, dtype=np.float64) * 1e-3
        for row, mask in zip(p, masks):
            row[np.flatnonzero(mask)[-1]] = 1.0
        return p / p.sum(axis=1, keepdims=True)


FAKE = "tests.test_ismcts_prior:FavouriteNet"


@pytest.mark.parametrize(("game", "n"), [(g, n) for g in CARD_GAMES for n in GAMES[g].players])
def test_a_prior_of_the_shipped_network_plays_legal_moves_and_leaves_the_state_alone(game, n):
    bot = ISMCTSPolicy(seed=1, iterations=12, prior="shipped")
    for state in mid_game_states(game, n, count=2):
        before = state.to_json()
        action = bot.act(obs_of(state), state=state, player=state.current_player)
        assert state.is_legal(action)
        assert state.to_json() == before


def test_the_prior_steers_the_visits_and_plain_ismcts_spreads_them():
    state = next(s for s in mid_game_states("catsle_builders", 4, count=6)
                 if len(s.legal_actions()) >= 8)
    player, legal = state.current_player, state.legal_actions()
    favourite = legal[-1]

    def root_visits(**options):
        bot = ISMCTSPolicy(seed=3, iterations=40, **options)
        seen = {}
        real = bot._iterate

        def spy(det, root, *args):
            seen["root"] = root
            return real(det, root, *args)

        bot._iterate = spy
        move = bot.search(state, player, legal)
        return move, {a: seen["root"][a][VISITS] for a in legal}

    # With the prior, the favourite gets a third of the iterations or more and half the
    # moves none (the values of the few tried can still outweigh it: which move wins
    # depends on the re-deals); without it, every move is tried and none dominates.
    _, visits = root_visits(prior=FAKE, c=1.0)
    unvisited = sum(v == 0 for v in visits.values())
    assert visits[favourite] >= 40 / 3 and unvisited >= len(legal) / 2, visits
    _, plain = root_visits()
    assert all(v >= 1 for v in plain.values()) and plain[favourite] < 30, plain


def test_every_new_node_asks_the_network_once_and_the_root_once_a_move():
    state = next(mid_game_states("catsle_builders", 3))
    FavouriteNet.calls = 0
    bot = ISMCTSPolicy(seed=2, iterations=50, prior=FAKE)
    bot.act(obs_of(state), state=state, player=state.current_player)
    # An iteration reaches at most one node it has not before (none when it ends the game),
    # and nearly always one: the next player's node holds its hand, dealt anew each time.
    assert 40 < FavouriteNet.calls <= 51, FavouriteNet.calls


def test_a_prior_search_is_deterministic_given_its_seed():
    state = next(mid_game_states("lunar", 4))
    bot = ISMCTSPolicy(seed=5, iterations=30, prior="shipped")
    first = [bot.act(obs_of(state), state=state, player=state.current_player) for _ in range(3)]
    bot.reset(5)
    assert [bot.act(obs_of(state), state=state, player=state.current_player)
            for _ in range(3)] == first


def test_prior_errors_name_what_is_wrong():
    state = next(mid_game_states("cat_in_the_box", 3))
    with pytest.raises(UnknownPolicyError, match="prior='pimc'.*not a search bot"):
        make_policy("ismcts:prior=pimc", "cat_in_the_box", 3)
    with pytest.raises(UnknownPolicyError, match="prior='' must be a network's name"):
        make_policy("ismcts:prior=", "cat_in_the_box", 3)
    bot = make_policy("ismcts:prior=heuristic", "cat_in_the_box", 3)
    with pytest.raises(ValueError, match="prior='heuristic' is not a network"):
        bot.act(obs_of(state), state=state, player=state.current_player)
    bot = make_policy("ismcts:prior=no/such/checkpoint", "cat_in_the_box", 3)
    with pytest.raises(ValueError, match="ismcts: its prior policy:.*no such file"):
        bot.act(obs_of(state), state=state, player=state.current_player)
