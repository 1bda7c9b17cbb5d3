"""Cats Knocking Things Off Ledges logs: chance outcomes are the platform card drawn for
each build or new tower (a card number) and the dexterity noise of each placement and bat
(standard normals, as many as the action draws), in the order the game drew them.

Which outcome comes next depends on the game so far, so here each is checked for what it
can be (a card number, or a list of finite numbers within ``physics.NOISE_LIMIT``); the
engine checks each one as it uses it (a card left in the supply, noise of the right
length) and raises ``ReplayError`` too."""

from __future__ import annotations

from catzoo.games import log_check as C
from catzoo.games.ledges.geometry import NUM_PLATFORMS
from catzoo.games.ledges.options import GAME
from catzoo.games.ledges.physics import NOISE_LIMIT
from catzoo.games.ledges.state import NOISE_LENGTHS


def check_chance(o, chance: list) -> None:
    for i, outcome in enumerate(chance):
        where = f"chance[{i}]"
        if isinstance(outcome, list):
            C.finite_numbers(GAME, where, outcome, NOISE_LENGTHS, NOISE_LIMIT)
        else:
            C.integer(GAME, where, outcome, 0, NUM_PLATFORMS - 1,
                      "platform card (or a list of noise numbers)")
