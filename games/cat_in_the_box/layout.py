"""The observation layout of Cat in the Box (documented in the env module's docstring)."""

from __future__ import annotations

from functools import cache

from catzoo.games.layout import LEADER, ROUND_START, Block, Layout, one_hot

BLOCKS = [
    Block("hand", 9, "private", "your cards: count of each number 1-9, divided by 5"),
    Block("aside", 9, "private", "your set-aside card, one-hot over numbers 1-9"),
    Block("board", 36, "seat",
          "research-board tokens of each seat, index colour*9 + number-1 "
          "(colours blue, yellow, green, red)"),
    Block("blocked", 36, "public",
          "spaces no one may take: numbers outside the deck, 2-player neutral tokens"),
    Block("markers", 4, "seat", "X markers still held (1) per colour blue, yellow, green, red"),
    Block("prediction", 5, "seat", "prediction, one-hot over 0-4 tricks (zeros before it is made)"),
    Block("tricks", 1, "seat", "tricks won this round, divided by 8"),
    Block("trick_card", 13, "seat",
          "card played to the trick in progress: number one-hot (9) then colour one-hot (4)"),
    one_hot("led", 4, "the led colour of the trick in progress"),
    Block("score", 1, "seat", "total score, divided by 50 (clipped to [-4, 4])"),
    one_hot("round", 5, "round number"),
    one_hot("phase", ("set aside", "predict", "play"), "phase"),
    ROUND_START,
    LEADER,
    Block("played", 9, "public", "cards of each number 1-9 played this round, divided by 5"),
]


@cache
def layout_for(num_players: int) -> Layout:
    return Layout(num_players, BLOCKS)
