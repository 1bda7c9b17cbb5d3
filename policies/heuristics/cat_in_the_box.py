"""A heuristic Cat in the Box player that reads only its own observation.

* Set aside: the number it holds most copies of (duplicates compete for the same four
  research spaces, so they are the cards most likely to leave it without a move).
* Predict: the cards among the two highest numbers of the deck, plus half of the third
  highest, rounded to the nearest allowed prediction (high cards win tricks, in red).
* Play: score every legal (card, colour) and take the best: +3 when the card's effect on
  the trick (winning or not) matches the need (win while below the prediction; with two
  players, while below 4 tricks), -1.5 for giving up the led colour's marker, +0.15 per
  move it will still have afterwards (fewer moves means a paradox is near), +0.3 when
  the token joins its own group on the board (the bonus), and a small preference for
  high cards when winning and for shedding high cards when losing.
"""

from __future__ import annotations

import numpy as np

from catzoo.games.cat_in_the_box.layout import layout_for
from catzoo.games.cat_in_the_box.options import MAX_NUMBER, RED
from catzoo.games.cat_in_the_box.state import ASIDE_BASE, NUMBERS, PLAY_BASE, PREDICT_BASE
from catzoo.policies.base import Policy, legal_actions

TWO_PLAYER_TARGET = 4
PLAY_BLOCKS = ("board", "blocked", "markers", "tricks", "prediction", "trick_card", "led")
# (play, space) pairs that are the same: the played space is no longer empty after it.
SAME_SPACE = np.eye(4 * NUMBERS, dtype=bool).reshape(1, 4, NUMBERS, 4, NUMBERS)
SAME_NUMBER = np.eye(NUMBERS, dtype=bool)[None]


class CatInTheBoxHeuristic(Policy):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None):
        self.num_players = num_players
        self.layout = layout_for(num_players)
        self.max_number = MAX_NUMBER[num_players]

    def act(self, observation, *, state=None, player=None) -> int:
        legal_actions(observation)  # the error for a mask with no legal action
        obs = np.asarray(observation["observation"])[None]
        return int(self.act_batch(obs, np.asarray(observation["action_mask"])[None])[0])

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        # Vectorised over the rows and every action at once: the batched trainer's league
        # plays this bot in thousands of games per rollout, and a Python loop over the
        # legal moves made it most of the rollout's time.
        view = self.layout.decode(np.asarray(observations))
        legal = np.asarray(masks) > 0
        phase = view["phase"].argmax(axis=-1)
        hand = np.rint(view["hand"] * 5).astype(np.int64)
        # Each phase's score of every action, higher is better, -inf where illegal or
        # another phase; the first best action wins ties, as a scan of the legal moves does.
        score = np.full(legal.shape, -np.inf)
        aside, predict, play = phase == 0, phase == 1, phase == 2
        if aside.any():
            k = np.arange(NUMBERS)  # the number held most often, then the lowest
            score[aside, ASIDE_BASE:ASIDE_BASE + NUMBERS] = hand[aside] * (NUMBERS + 1) - k
        if predict.any():
            top = self.max_number - 1
            h = hand[predict]
            estimate = h[:, top] + h[:, top - 1] + 0.5 * h[:, top - 2]
            tricks = np.arange(PLAY_BASE - PREDICT_BASE)  # nearest the estimate, then fewest
            distance = np.abs(tricks[None, :] - estimate[:, None])
            score[predict, PREDICT_BASE:PLAY_BASE] = -(distance * 2 * tricks.size + tricks)
        if play.any():
            rows = view if play.all() else {name: view[name][play] for name in PLAY_BLOCKS}
            score[play, PLAY_BASE:PLAY_BASE + 4 * NUMBERS] = self._play_values(
                rows, hand[play]).reshape(-1, 4 * NUMBERS)
        score[~legal] = -np.inf
        return score.argmax(axis=1).astype(np.int64)

    def _play_values(self, view, hand) -> np.ndarray:
        """The value of playing each (colour, number), ``(B, 4, NUMBERS)``."""
        B, n = hand.shape[0], self.num_players
        board = view["board"].reshape(B, n, 4, NUMBERS) > 0.5
        mine = board[:, 0]
        empty = ~(board.any(axis=1) | (view["blocked"].reshape(B, 4, NUMBERS) > 0.5))
        markers = view["markers"][:, 0] > 0.5
        tricks = np.rint(view["tricks"][:, 0, 0] * 8)
        if n == 2:
            want_win = tricks < TWO_PLAYER_TARGET
        else:
            predicted = view["prediction"][:, 0]
            want_win = np.where(predicted.any(axis=1), tricks < predicted.argmax(axis=1), True)
        played = view["trick_card"]
        present = played.any(axis=2)
        numbers = played[..., :NUMBERS].argmax(axis=2)
        colours = played[..., NUMBERS:].argmax(axis=2)
        led = np.where(view["led"].any(axis=1), view["led"].argmax(axis=1), -1)
        best_red = np.where(present & (colours == RED), numbers, -1).max(axis=1)
        best_led = np.where(present & (colours == led[:, None]), numbers, -1).max(axis=1)

        colour = np.arange(4)[None, :, None]
        k = np.arange(NUMBERS)[None, None, :]
        led3, best_red3 = led[:, None, None], best_red[:, None, None]
        wins = np.where(led3 < 0, k >= self.max_number - 2,  # leading: high cards hold
                        np.where(colour == RED, k > best_red3,
                                 (best_red3 < 0) & (colour == led3) & (k > best_led[:, None, None])))
        holds_led = (led >= 0) & markers[np.arange(B), np.maximum(led, 0)]
        loses_marker = holds_led[:, None, None] & (colour != led3)
        # Moves left after each play, (B, colour, number) of the play x (colour, number)
        # of the space: the played space is taken, the card leaves the hand, and the led
        # colour's marker goes if the play gives it up.
        after_empty = empty[:, None, None] & ~SAME_SPACE
        after_hand = np.where(SAME_NUMBER, (hand > 1)[:, :, None], (hand > 0)[:, None, :])
        after_markers = markers[:, None, None, :] & ~(
            loses_marker[..., None] & (np.arange(4) == led[:, None, None, None]))
        options = (after_empty & after_hand[:, None, :, None, :]
                   & after_markers[..., None]).sum(axis=(3, 4))
        value = (
            3.0 * (wins == want_win[:, None, None])
            - 1.5 * loses_marker
            + 0.15 * options
            + 0.3 * _touches(mine)
            + np.where(wins, 0.05 * k, 0.03 * k)
        )
        return value


def _touches(mine: np.ndarray) -> np.ndarray:
    """Whether each space (colour, number) is next to one of the player's tokens (same row,
    or the same number in the colour rows listed next to it: the default board order)."""
    padded = np.zeros((mine.shape[0], 6, NUMBERS + 2), dtype=bool)
    padded[:, 1:-1, 1:-1] = mine  # row and column -1 and past the end: no token
    return (padded[:, 1:-1, :-2] | padded[:, 1:-1, 2:]
            | padded[:, :-2, 1:-1] | padded[:, 2:, 1:-1])
