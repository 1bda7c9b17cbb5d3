"""A determinization for the card-game searches (ISMCTS, PIMC): the hidden cards re-dealt
from one player's view, with a generator of its own."""

from __future__ import annotations

import random


def determinize(state, player: int, rng: random.Random):
    """``state.resample(player, rng)`` given a fresh generator drawn from ``rng``: a clone
    that kept the real game's generator would deal the next round exactly as the real game
    will, which the searching player cannot know."""
    det = state.resample(player, rng)
    det.rng = random.Random(rng.getrandbits(64))
    return det
