"""Options of CATsle Builders, each rule choice traced in docs/rules/catsle_builders.md.

Tags: [R] publisher text (via rules-notes), [S] seed text, [D] a documented project
decision (the numbers the texts leave out).
"""

from __future__ import annotations

from dataclasses import dataclass

from catzoo.games.base import OptionsError, check_choice, int_sequence, is_int

# [S] 5 suits of values 1-12 (VALUES, NUM_CARDS), 3 rounds (NUM_ROUNDS): constants of
# the compiled core, which plays the game.
from catzoo.games.catsle_builders.core import NUM_CARDS, NUM_ROUNDS, VALUES  # noqa: F401

GAME = "catsle_builders"

# [S] 3 players remove the Moats (the blue suit).
SUITS = ("Walls", "Gables", "Gates", "Bridges", "Moats")
SUIT_LETTERS = "WGTBM"

# [D] hand sizes: 5-9 cards stay undealt so counting is never exact, and the expected
# intake (a trick shares out as many cards as were played) stays under the 14-card room.
DEFAULT_HAND_SIZE = {3: 13, 4: 13, 5: 11}
# [R] strongest takes 1, second takes 2; [D] then 1 each, the weakest takes none.
DEFAULT_TAKE_COUNTS = {3: (1, 2, 0), 4: (1, 2, 1, 0), 5: (1, 2, 1, 1, 0)}
# [D] four columns with limits 2, 3, 4, 5 (14 cards, about one round's intake).
DEFAULT_COLUMN_LIMITS = (2, 3, 4, 5)
# [D] bonus by number of perfect columns (0-4): triangular, the last column pays most.
DEFAULT_PERFECT_BONUS = (0, 1, 3, 6, 10)


@dataclass(frozen=True)
class CatsleBuildersOptions:
    """``num_players`` 3-5. ``hand_size`` cards dealt to each player per round (None: 13 /
    13 / 11 at 3 / 4 / 5 players). ``take_counts`` how many cards the players take from
    a trick, strongest first (None: (1, 2, 0) / (1, 2, 1, 0) / (1, 2, 1, 1, 0)); it must
    sum to the number of players so every played card lands in a tableau. The player who
    takes the most (first such in rating order) leads the next trick. ``column_limits``
    the limits of the player board's columns (default (2, 3, 4, 5)); at 4-5 players a
    column of limit 0 is added. ``perfect_bonus`` the round bonus by the number of
    perfect columns, one entry per count from 0 to the number of limited columns.
    ``rounds`` "full" (3 rounds, the published game) or "single" (one round, for faster
    training)."""

    num_players: int = 4
    hand_size: int | None = None
    take_counts: tuple[int, ...] | None = None
    column_limits: tuple[int, ...] = DEFAULT_COLUMN_LIMITS
    perfect_bonus: tuple[int, ...] = DEFAULT_PERFECT_BONUS
    rounds: str = "full"

    def __post_init__(self):
        n = self.num_players
        if not is_int(n) or n not in DEFAULT_HAND_SIZE:
            raise OptionsError(f"{GAME}: num_players={n!r} is not allowed; choose 3, 4 or 5")
        check_choice(GAME, "rounds", self.rounds, ("full", "single"))
        for name in ("take_counts", "column_limits", "perfect_bonus"):
            value = getattr(self, name)
            if value is not None or name != "take_counts":
                object.__setattr__(self, name, int_sequence(GAME, name, value))
        hand = self.hand_size
        if hand is not None:
            if not is_int(hand) or hand < 1:
                raise OptionsError(f"{GAME}: hand_size={hand!r} must be a positive integer")
            if hand * n > self.deck_size:
                raise OptionsError(
                    f"{GAME}: hand_size={hand} for {n} players needs {hand * n} cards; "
                    f"the deck has {self.deck_size}"
                )
        takes = self.take_counts
        if takes is not None and (len(takes) != n or any(t < 0 for t in takes)
                                  or sum(takes) != n):
            raise OptionsError(
                f"{GAME}: take_counts={takes!r} must give a non-negative count to each "
                f"of the {n} ratings and sum to {n} (every played card is taken)"
            )
        limits = self.column_limits
        if not limits or any(v < 1 for v in limits):
            raise OptionsError(
                f"{GAME}: column_limits={limits!r} must be one or more positive integers"
            )
        if len(limits) > 4:
            raise OptionsError(f"{GAME}: column_limits={limits!r}: at most 4 limited columns")
        if self.num_columns < self.num_suits:
            # [D] a suit must always find a column: with fewer columns than suits a player
            # could be forced to take a card with nowhere to put it.
            raise OptionsError(
                f"{GAME}: column_limits={limits!r} gives {self.num_columns} column(s) at {n} "
                f"players, fewer than the {self.num_suits} suits in play"
            )
        bonus = self.perfect_bonus
        if len(bonus) != len(limits) + 1:
            raise OptionsError(
                f"{GAME}: perfect_bonus={bonus!r} must hold {len(limits) + 1} integers, the "
                f"bonus for 0 to {len(limits)} perfect columns"
            )

    @property
    def num_suits(self) -> int:
        return 4 if self.num_players == 3 else 5

    @property
    def deck_size(self) -> int:
        return self.num_suits * VALUES

    @property
    def hands(self) -> int:
        return self.hand_size if self.hand_size is not None else DEFAULT_HAND_SIZE[self.num_players]

    @property
    def takes(self) -> tuple[int, ...]:
        if self.take_counts is not None:
            return self.take_counts
        return DEFAULT_TAKE_COUNTS[self.num_players]

    @property
    def has_zero_column(self) -> bool:
        return self.num_players >= 4  # [S]

    @property
    def limits(self) -> tuple[int, ...]:
        """Limits of every column of a board; the 0 column, if any, comes last."""
        return tuple(self.column_limits) + ((0,) if self.has_zero_column else ())

    @property
    def num_columns(self) -> int:
        return len(self.limits)

    @property
    def num_rounds(self) -> int:
        return NUM_ROUNDS if self.rounds == "full" else 1

    @property
    def leader_rank(self) -> int:
        """[R] the player who took two cards leads; [D] in general the first rating that
        takes the most cards."""
        takes = self.takes
        return takes.index(max(takes))

