"""Options of Cat Tree, each rule choice traced in docs/rules/cat_tree.md.

Sources: [S] the seed text (the jam rules), [D] a documented project decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from catzoo.games.base import OptionsError, check_choice, is_int

# The rules' constants are defined once, in the compiled core, and exported here: the 8
# structures (the type index of the 8 ranks used [S]), the deck, the base points.
from catzoo.games.cat_tree.core import (  # noqa: F401
    ALTITUDE_FACTOR,
    BASE_POINTS,
    BOX,
    CARDS_PER_TURN,
    CATWALK,
    COPIES,
    DECK_SIZE,
    HAMMOCK,
    MAX_TURNS,
    NEST,
    NUM_TYPES,
    PIPE,
    PIPE_SIDE_POINTS,
    SCRATCHER,
    SHELF,
    TOY,
)

GAME = "cat_tree"

TYPE_NAMES = ("pipe", "scratcher", "hammock", "catwalk", "box", "toy", "shelf", "nest")
RANKS = ("A", "3", "6", "7", "8", "10", "J", "K")
# One letter per structure for text output (the shelf is "L" for ledge: "S" is taken).
LETTERS = ("P", "S", "H", "C", "B", "T", "L", "N")

PLACING_ORDERS = ("choose", "alternate")
PIPE_SIDES = ("hangers", "any")


@dataclass(frozen=True)
class CatTreeOptions:
    """``num_players`` 2 (the game is for two partners).

    ``width`` x ``height``: the grid, the bottom row lying on the floor [D] (default 8 x 8).
    ``bottom_height``: the height of a card in the bottom row, 1 (default: a card on the
    floor is at height 1, so the altitude bonus starts on the 5th row) or 0 (the 6th row).
    ``altitude``: the height from which a card's points are doubled [S] 5.
    ``placing_order``: "choose" (default: each turn's leader, player ``turn % 2``, decides
    who places first) or "alternate" (the leader always places first, no decision).
    ``pipe_sides``: which neighbours count as an attached side of a pipe: "hangers"
    (default: a box, nest or shelf, the pieces things can hang from) or "any" piece.
    ``detach_distance``: a part at this Manhattan distance or more from the
    ground-connected structure scores nothing [S] 3.
    ``toy_distance``: toys closer than this are grouped [S] 3.
    ``turns``: turns per game, 1-8 [S] 8 (fewer makes shorter training games).
    """

    num_players: int = 2
    width: int = 8
    height: int = 8
    bottom_height: int = 1
    altitude: int = 5
    placing_order: str = "choose"
    pipe_sides: str = "hangers"
    detach_distance: int = 3
    toy_distance: int = 3
    turns: int = MAX_TURNS

    def __post_init__(self):
        if not is_int(self.num_players) or self.num_players != 2:
            raise OptionsError(
                f"{GAME}: num_players={self.num_players!r} is not allowed; the game is for 2"
            )
        _check_int("width", self.width, 3, 12)
        _check_int("height", self.height, 2, 12)
        check_choice(GAME, "bottom_height", self.bottom_height, (0, 1))
        _check_int("altitude", self.altitude, 1, 20)
        check_choice(GAME, "placing_order", self.placing_order, PLACING_ORDERS)
        check_choice(GAME, "pipe_sides", self.pipe_sides, PIPE_SIDES)
        _check_int("detach_distance", self.detach_distance, 1, 24)
        _check_int("toy_distance", self.toy_distance, 1, 24)
        _check_int("turns", self.turns, 1, MAX_TURNS)

    @property
    def num_cells(self) -> int:
        return self.width * self.height

    @property
    def altitude_row(self) -> int:
        """The first row (0 = bottom) whose cards get the altitude bonus."""
        return max(0, self.altitude - self.bottom_height)


def _check_int(name: str, value, low: int, high: int) -> None:
    if not is_int(value) or not low <= value <= high:
        raise OptionsError(
            f"{GAME}: option {name}={value!r} is not allowed; use an integer in {low}..{high}"
        )
