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


class CatInTheBoxHeuristic(Policy):
    name = "heuristic"

    def __init__(self, num_players: int, seed: int | None = None):
        self.num_players = num_players
        self.layout = layout_for(num_players)
        self.max_number = MAX_NUMBER[num_players]

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        view = self.layout.decode(np.asarray(observation["observation"]))
        phase = int(np.argmax(view["phase"]))
        if phase == 0:
            return self._set_aside(view, legal)
        if phase == 1:
            return self._predict(view, legal)
        return self._play(view, legal)

    def _hand(self, view) -> np.ndarray:
        return np.rint(view["hand"] * 5).astype(int)

    def _set_aside(self, view, legal) -> int:
        hand = self._hand(view)
        k = max((int(a - ASIDE_BASE) for a in legal), key=lambda k: (hand[k], -k))
        return ASIDE_BASE + k

    def _predict(self, view, legal) -> int:
        hand = self._hand(view)
        top = self.max_number - 1
        estimate = hand[top] + hand[top - 1] + 0.5 * hand[top - 2]
        return int(min(legal, key=lambda a: (abs((a - PREDICT_BASE) - estimate), a)))

    def _play(self, view, legal) -> int:
        hand = self._hand(view)
        board = view["board"].reshape(self.num_players, 4, NUMBERS) > 0.5
        mine = board[0]
        empty = ~(board.any(axis=0) | (view["blocked"].reshape(4, NUMBERS) > 0.5))
        markers = view["markers"][0] > 0.5
        tricks = round(view["tricks"][0, 0] * 8)
        if self.num_players == 2:
            want_win = tricks < TWO_PLAYER_TARGET
        else:
            predicted = view["prediction"][0]
            want_win = tricks < int(np.argmax(predicted)) if predicted.any() else True
        played = view["trick_card"]
        in_trick = [(int(np.argmax(c[:NUMBERS])), int(np.argmax(c[NUMBERS:])))
                    for c in played if c.any()]
        led = int(np.argmax(view["led"])) if view["led"].any() else -1
        best_red = max((k for k, c in in_trick if c == RED), default=-1)
        best_led = max((k for k, c in in_trick if c == led), default=-1)

        best_action, best_value = int(legal[0]), -np.inf
        for a in legal:
            colour, k = divmod(int(a) - PLAY_BASE, NUMBERS)
            if led < 0:  # leading: a high card is likely to hold the trick
                wins = k >= self.max_number - 2
            elif colour == RED:
                wins = k > best_red
            else:
                wins = best_red < 0 and colour == led and k > best_led
            loses_marker = led >= 0 and colour != led and markers[led]
            after_hand = hand.copy()
            after_hand[k] -= 1
            after_empty = empty.copy()
            after_empty[colour, k] = False
            after_markers = markers.copy()
            if loses_marker:
                after_markers[led] = False
            options = int((after_empty & (after_hand > 0)[None, :] & after_markers[:, None]).sum())
            joins = _touches(mine, colour, k)
            value = (
                3.0 * (wins == want_win)
                - 1.5 * loses_marker
                + 0.15 * options
                + 0.3 * joins
                + (0.05 * k if wins else 0.03 * k)
            )
            if value > best_value:
                best_action, best_value = int(a), value
        return best_action


def _touches(mine: np.ndarray, colour: int, k: int) -> bool:
    """Whether space (colour, k) is next to one of the player's tokens (same row, or the
    same number in the colour rows listed next to it: the default board order)."""
    if (k > 0 and mine[colour, k - 1]) or (k < NUMBERS - 1 and mine[colour, k + 1]):
        return True
    return (colour > 0 and mine[colour - 1, k]) or (colour < 3 and mine[colour + 1, k])
