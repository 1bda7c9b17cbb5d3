"""A hand-written CATsle Builders bot that reads only its observation.

It values each card by what adding it to its own board would do to the round score:

* a suit whose column still has room: +1 (one more card within the limit), +2 more when
  the card makes the column exactly full (a perfect column: its bonus step);
* a suit whose column is exactly full: minus the column's count and the lost bonus step
  (the column would fall from +limit to -1), and -1 for each further sideways card;
* a new suit: +1 if an empty limited column is left, -1 if only the 0 column is.

Playing: for each legal card it estimates the rating the card will reach (cards already
in the trick are known; each player still to play beats it with a probability computed
from the unseen cards) and the value of the cards that rating takes (the trick's known
cards plus, for cards still to come, the mean value of an unseen card), and plays the
card with the best expected value (the higher card between equals); so it fights for
cards while its board has room and ducks to the bottom of the rating once its columns
are full. Taking: the card of highest value. Column: the empty limited column with the
largest limit (first suits get the most room), the 0 column only when nothing else is
empty.

Its results against random players and the other bots are on the leaderboard
(``docs/leaderboard.md``).

The estimates are computed for a batch of observations at once (``estimates``): the
batched trainer plays this bot in thousands of games per rollout, and a network can take
the same estimates as input features (``catzoo.policies.features``), so they have one
source.

Built as ``CatsleBuildersHeuristic(num_players, seed)``; the seed breaks exact ties.
``take_counts`` must be passed when the game uses non-default ones.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from catzoo.games.catsle_builders.core import MAX_PLAYERS, NUM_CARDS, NUM_SUITS
from catzoo.games.catsle_builders.layout import COLUMN_FEATURES, layout_for
from catzoo.games.catsle_builders.options import (
    DEFAULT_TAKE_COUNTS,
    VALUES,
    CatsleBuildersOptions,
)
from catzoo.games.catsle_builders.scoring import card_key
from catzoo.games.catsle_builders.state import COLUMN_BASE, TAKE_BASE
from catzoo.policies.base import legal_actions
from catzoo.policies.heuristics import catsle_estimates as _kernel
from catzoo.policies.random_policy import SeededPolicy

PERFECT_STEP = 2.0  # about the growth of the default bonus per perfect column
CARD_SUIT = np.arange(NUM_CARDS) // VALUES
SHED_STEP = 1e-3  # between equally good cards, shed the higher one: this much a value step
TIE = 1e-9  # scores this close count as equal; the seeded generator breaks the tie
# The compiled core's trick rating, card_key(card, led, position), as a table to index
# arrays with: the rule has one source.
KEY = np.array([[[card_key(c, led, pos) for pos in range(MAX_PLAYERS)]
                 for led in range(NUM_SUITS)] for c in range(NUM_CARDS)], dtype=np.int64)
COMB = np.array([[comb(m, k) for k in range(MAX_PLAYERS)] for m in range(MAX_PLAYERS)],
                dtype=np.float64)  # COMB[m, k]: m choose k


@dataclass
class Estimates:
    """What the bot reckons for each row of a batch of observations.

    ``suit_value`` (B, 5): the value of adding a card of each suit to the own board;
    ``beat`` (B, 60): for each card, the chance that one later player's card beats it
    (0 when nobody plays later); ``play`` (B, 60): the expected value of the cards taken
    after playing each card, tie-break included (meaningful for the cards in hand during
    the play phase); ``unknown_value`` (B,): the mean value of an unseen card.
    """

    suit_value: np.ndarray
    beat: np.ndarray
    play: np.ndarray
    unknown_value: np.ndarray


def suit_values(board: np.ndarray) -> np.ndarray:
    """(B, 5) values of one more card of each suit for boards ``(B, 5 columns, 8)`` (the
    own board of the observation's ``board`` block)."""
    return _kernel.suit_values(board, PERFECT_STEP)


def estimates(view: dict, num_players: int, num_suits: int, takes,
              play_rows: np.ndarray | None = None) -> Estimates:
    """The bot's estimates for a batch of decoded observations (``Layout.decode``);
    ``play`` only for the rows of ``play_rows`` (None: every row), 0 in the others.

    For each card, ``beat`` is the chance that one later player's card beats it: a player
    holding the led suit must follow (a hand holds the led suit with the chance that
    ``tricks_left`` cards drawn from the unseen ones include one), and then beats the
    card with the led suit's share of higher values; otherwise any card of value at least
    the card's (played later, so an equal off-suit value wins too) beats an off-suit card.
    ``play`` is the expected value taken after playing the card: the trick's values (the
    own card's, the cards played, the mean unseen value for each card still to come),
    sorted, give what each rating takes (halfway between its best and its worst share);
    exactly ``e`` of the ``k`` later players beating the card (a binomial term) takes it
    down ``e`` ratings from where the cards already played put it; the higher card gets
    0.001 a value step between equals. The arithmetic runs in C
    (``catsle_estimates.pyx``), row by row."""
    B = view["board"].shape[0]
    rows = (np.ones(B, dtype=np.uint8) if play_rows is None
            else np.asarray(play_rows, dtype=np.uint8))
    values, beat, play, unknown = _kernel.estimates(
        _f32(view["board"][:, 0].reshape(-1, 5, COLUMN_FEATURES)), _f32(view["hand"]),
        _f32(view["seen"]), _f32(view["trick_card"][:, 1:]), _f32(view["led"]),
        _f32(view["leader"][:, :, 0]), _f32(view["tricks_left"][:, 0]), rows,
        num_players, num_suits, tuple(int(t) for t in takes), KEY, COMB, PERFECT_STEP,
        SHED_STEP)
    return Estimates(values, beat, play, unknown)


def _f32(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32)


class CatsleBuildersHeuristic(SeededPolicy):
    name = "heuristic"

    def __init__(self, num_players: int = 4, seed: int | None = None, take_counts=None):
        super().__init__(seed)
        self.num_players = num_players
        self.layout = layout_for(num_players)
        self.takes = tuple(take_counts or DEFAULT_TAKE_COUNTS[num_players])
        self.num_suits = CatsleBuildersOptions(num_players=num_players).num_suits

    def act(self, observation, *, state=None, player=None) -> int:
        legal_actions(observation)  # the error for a mask with no legal action
        obs = np.asarray(observation["observation"])[None]
        return int(self.act_batch(obs, np.asarray(observation["action_mask"])[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        observations, masks = np.asarray(observations), np.asarray(masks) > 0
        view = self.layout.decode(observations)
        board = view["board"][:, 0].reshape(-1, 5, COLUMN_FEATURES)
        scores = np.full(masks.shape, -np.inf)
        play = masks[:, :NUM_CARDS].any(axis=1)
        if play.any():
            rows = view if play.all() else {k: v[play] for k, v in view.items()}
            scores[play, :NUM_CARDS] = estimates(rows, self.num_players, self.num_suits,
                                                 self.takes).play
        take = masks[:, TAKE_BASE:COLUMN_BASE].any(axis=1)
        if take.any():
            scores[take, TAKE_BASE:COLUMN_BASE] = suit_values(board[take])[:, CARD_SUIT]
        # The empty limited column with the largest limit (the observation's limit / 5):
        # the first suits taken tend to be the ones this bot keeps taking (it prefers
        # suits with room), so they get the largest columns; tried against matching
        # columns to the suits' remaining supply, this wins more often.
        columns = masks.shape[1] - COLUMN_BASE
        scores[:, COLUMN_BASE:] = np.rint(board[:, :columns, 7] * 5)
        out = np.empty(masks.shape[0], dtype=np.int64)
        for j in range(masks.shape[0]):  # row by row: the generator breaks ties in order
            legal = np.flatnonzero(masks[j])
            s = scores[j, legal]
            best = np.flatnonzero(s >= s.max() - TIE)
            out[j] = legal[best[self.rng.integers(best.size)]]
        return out
