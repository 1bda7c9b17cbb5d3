"""Cat Tree logs: the one chance outcome is the shuffled deck, ``COPIES`` cards of each of
the ``NUM_TYPES`` structures, dealt 4 a turn."""

from __future__ import annotations

from collections import Counter

from catzoo.games import log_check as C
from catzoo.games.cat_tree.options import COPIES, DECK_SIZE, GAME, NUM_TYPES, TYPE_NAMES


def check_chance(o, chance: list) -> None:
    C.rounds(GAME, chance, 1, "one shuffled deck")
    for r, deck in enumerate(chance):
        where = f"chance[{r}] (the deck)"
        C.integers(GAME, where, deck, 0, NUM_TYPES - 1, DECK_SIZE)
        C.composition(GAME, where, deck, Counter({t: COPIES for t in range(NUM_TYPES)}),
                      name=lambda t: f"{t} ({TYPE_NAMES[t]})")
