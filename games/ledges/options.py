"""Options of Cats Knocking Things Off Ledges, each rule choice traced in docs/rules/ledges.md."""

from __future__ import annotations

import math
from dataclasses import dataclass

from catzoo.games.base import OptionsError, is_int

GAME = "ledges"

# [S] "When a player reaches a score of 10 or higher ... one final turn".
WINNING_SCORE = 10
# [D] bats allowed per turn ("It's okay to use multiple bats"; a bound keeps turns finite).
MAX_BATS = 3
# [D] a safety bound on game length: the game ends after this many rounds.
MAX_ROUNDS = 20


@dataclass(frozen=True)
class LedgesOptions:
    """``num_players`` 2-4 (one cat each); ``dexterity`` scales the noise of every
    placement and bat (0: perfectly steady hands, for planning research; 1: the default;
    2: clumsy); ``winning_score`` the score that starts the final round (10 in the rules);
    ``max_bats`` bats allowed per turn; ``max_rounds`` the round after which the game ends
    even if nobody reached the winning score; ``aim_features`` appends the ``options``
    block (per-option aiming features of a point-mass model, games/ledges/features.py) to
    the observation: off by default, so the released observation is unchanged and games
    do not pay for features only learners use."""

    num_players: int = 2
    dexterity: float = 1.0
    winning_score: int = WINNING_SCORE
    max_bats: int = MAX_BATS
    max_rounds: int = MAX_ROUNDS
    aim_features: bool = False

    def __post_init__(self):
        if not is_int(self.num_players) or self.num_players not in (2, 3, 4):
            raise OptionsError(
                f"{GAME}: num_players={self.num_players!r} is not allowed; choose 2, 3 or 4"
            )
        d = self.dexterity
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or not 0 <= d <= 5:
            raise OptionsError(f"{GAME}: dexterity={d!r} must be a number from 0 (no noise) to 5")
        object.__setattr__(self, "dexterity", float(d))
        if not isinstance(self.aim_features, bool):
            raise OptionsError(f"{GAME}: aim_features={self.aim_features!r} must be true or false")
        for name, low, high in (("winning_score", 1, 100), ("max_bats", 1, 10), ("max_rounds", 1, 200)):
            value = getattr(self, name)
            if not is_int(value) or not low <= value <= high:
                raise OptionsError(f"{GAME}: {name}={value!r} must be an integer from {low} to {high}")
