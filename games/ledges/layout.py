"""The observation layout of Cats Knocking Things Off Ledges (documented in the env module).

Positions are divided by ``POS_SCALE`` (0.15 m), heights by ``Z_SCALE`` (0.25 m), levels
(in pillar lengths) by ``LEVEL_SCALE`` (5); every feature is clipped to [-4, 4].
"""

from __future__ import annotations

from functools import cache

from catzoo.games.layout import Block, Layout, flag, one_hot

POS_SCALE = 0.15
Z_SCALE = 0.25
LEVEL_SCALE = 5.0
SCORE_SCALE = 10.0

PLATFORM_FEATURES = (
    "present", "rectangular", "round", "icon_yarn", "icon_mouse", "icon_fish", "icon_feather",
    "x", "y", "z", "level", "cos_yaw", "sin_yaw", "tilt_x", "tilt_y", "cat",
)
PIECE_FEATURES = 4 + 16  # on table, x, y, z, platform one-hot (16 cards)
# Per option, "regret" is its expected points minus the best option's, / 5 (0 for the best).
BAT_OPTIONS = 32 * 4  # per bat: expected points / 5, regret, chance of staying, blocked
TOY_OPTIONS = 16 * 2  # per place-toy action: the best bat's expected points / 5, regret
CAT_OPTIONS = 16 * 2  # per platform card: the best toy, side and bat's expected points / 5, regret
OPTION_FEATURES = BAT_OPTIONS + TOY_OPTIONS + CAT_OPTIONS

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
    one_hot("phase", ("build", "place cat", "place toy", "bat"), "turn phase"),
    Block("turn", 24, "public",
          "bats used this turn / max bats; the toy in play, one-hot over the 4 icons; the "
          "platform the cat left this turn, one-hot over 16 cards; final round started; "
          "final turns left / 3; round / max rounds"),
    flag("to_act", "the player to act"),
    Block("options", OPTION_FEATURES, "public",
          "only with `aim_features=True`: aiming features for the player to act, from a point-mass model of a bat under the "
          "dexterity noise (games/ledges/features.py), 0 outside their phase: 32 bat actions x "
          "(expected points / 5, regret, chance the toy stays on its platform, path blocked) in "
          "the bat phase; 16 place-toy actions x (the best bat's expected points / 5, regret) in "
          "the place-toy phase; 16 platform cards x (the best toy, side and bat's expected "
          "points / 5, regret) in the place-cat phase; an option's regret is its expected "
          "points minus the best legal option's, / 5 (0 for the best, negative otherwise)"),
]


@cache
def layout_for(num_players: int, aim_features: bool = False) -> Layout:
    """The layout at ``num_players``; the ``options`` block only with ``aim_features``."""
    return Layout(num_players, BLOCKS if aim_features else BLOCKS[:-1])
