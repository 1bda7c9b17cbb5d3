"""Options of Cat in the Box, each rule choice traced in docs/rules/cat_in_the_box.md."""

from __future__ import annotations

from dataclasses import dataclass

from catzoo.games.base import OptionsError, check_choice, is_int, str_sequence
from catzoo.games.cat_in_the_box.core import Board

GAME = "cat_in_the_box"

COLOURS = ("blue", "yellow", "green", "red")  # the board's colour order (the core's indices)
RED = int(Board.RED)

# [R] rules-notes: deck numbers and hand size by player count.
MAX_NUMBER = {2: 5, 3: 6, 4: 8, 5: 9}
HAND_SIZE = {2: 10, 3: 10, 4: 10, 5: 9}
COPIES = 5

# [R] 3 players may predict only 1, 3 or 4; [?] 4-5 players: published versions differ.
PREDICTION_CHOICES = {"1-3": (1, 2, 3), "1-4": (1, 2, 3, 4), "0-4": (0, 1, 2, 3, 4)}
THREE_PLAYER_PREDICTIONS = (1, 3, 4)
# [R] 2 players: the bonus goes to any player who wins this many tricks or fewer.
TWO_PLAYER_BONUS_MAX_TRICKS = 4


@dataclass(frozen=True)
class CatInTheBoxOptions:
    """``num_players`` 2-5; ``predictions`` the allowed predictions at 4-5 players
    ("1-3", "1-4" or "0-4"; 3 players always use 1, 3, 4; 2 players do not predict);
    ``row_order`` the research board's rows from top to bottom (it decides which spaces
    are vertically adjacent for the bonus); ``rounds`` "full" (as many rounds as players,
    the published game) or "single" (one round, for faster training)."""

    num_players: int = 4
    predictions: str = "1-4"
    row_order: tuple[str, ...] = COLOURS
    rounds: str = "full"

    def __post_init__(self):
        if not is_int(self.num_players) or self.num_players not in MAX_NUMBER:
            raise OptionsError(
                f"{GAME}: num_players={self.num_players!r} is not allowed; choose 2, 3, 4 or 5"
            )
        check_choice(GAME, "predictions", self.predictions, tuple(PREDICTION_CHOICES))
        check_choice(GAME, "rounds", self.rounds, ("full", "single"))
        order = str_sequence(GAME, "row_order", self.row_order)
        object.__setattr__(self, "row_order", order)
        if sorted(order) != sorted(COLOURS):
            raise OptionsError(
                f"{GAME}: row_order={self.row_order!r} must name each of "
                f"{', '.join(COLOURS)} exactly once"
            )

    @property
    def allowed_predictions(self) -> tuple[int, ...]:
        if self.num_players == 2:
            return ()
        if self.num_players == 3:
            return THREE_PLAYER_PREDICTIONS
        return PREDICTION_CHOICES[self.predictions]

    @property
    def num_rounds(self) -> int:
        return self.num_players if self.rounds == "full" else 1

    @property
    def max_number(self) -> int:
        return MAX_NUMBER[self.num_players]

    @property
    def hand_size(self) -> int:
        return HAND_SIZE[self.num_players]

    @property
    def tricks_per_round(self) -> int:
        # [R] one card is set aside and the last card is never played.
        return self.hand_size - 2
