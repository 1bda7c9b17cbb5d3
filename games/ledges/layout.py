"""The observation layout of Cats Knocking Things Off Ledges (documented in the env module).

Positions are divided by ``POS_SCALE`` (0.15 m), heights by ``Z_SCALE`` (0.25 m), levels
(in pillar lengths) by ``LEVEL_SCALE`` (5); every feature is clipped to [-4, 4].
"""

from __future__ import annotations

from functools import cache

from catzoo.games.layout import Block, Layout

POS_SCALE = 0.15
Z_SCALE = 0.25
LEVEL_SCALE = 5.0
SCORE_SCALE = 10.0

PLATFORM_FEATURES = (
    "present", "rectangular", "round", "icon_yarn", "icon_mouse", "icon_fish", "icon_feather",
    "x", "y", "z", "level", "cos_yaw", "sin_yaw", "tilt_x", "tilt_y", "cat",
)
PIECE_FEATURES = 4 + 16  # on table, x, y, z, platform one-hot (16 cards)

BLOCKS = [
    Block("platforms", 16 * len(PLATFORM_FEATURES), "public",
          "16 platform cards (0-7 rectangular, 8-15 round) x 16 features: on the table, "
          "rectangular, round, icon one-hot (yarn, mouse, fish, feather), centre x, y, z, top "
          "level in pillar lengths, cos and sin of its heading, its normal's x and y (tilt), "
          "a cat on it"),
    Block("cat", PIECE_FEATURES, "seat",
          "the seat's cat: on a platform, x, y, z, platform one-hot over the 16 cards"),
    Block("toys", 4 * PIECE_FEATURES, "seat",
          "the seat's 4 toys (icons yarn, mouse, fish, feather) x (on a platform, x, y, z, "
          "platform one-hot over the 16 cards)"),
    Block("supply", 4, "public",
          "supply left: rectangular platforms / 8, round / 8, short pillars / 12, tall / 12"),
    Block("score", 1, "seat", "score, divided by 10"),
    Block("phase", 4, "public", "turn phase one-hot: build, place cat, place toy, bat"),
    Block("turn", 24, "public",
          "bats used this turn / max bats; the toy in play, one-hot over the 4 icons; the "
          "platform the cat left this turn, one-hot over 16 cards; final round started; "
          "final turns left / 3; round / max rounds"),
    Block("to_act", 1, "seat", "1 for the player to act"),
]


@cache
def layout_for(num_players: int) -> Layout:
    return Layout(num_players, BLOCKS)
