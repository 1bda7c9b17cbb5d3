"""Cat in the Box logs: each chance outcome is one round's deal (``hands``, ``leftover``),
numbers 0-based; together they are the deck of the player count (every number up to
``max_number`` ``COPIES`` times) and each hand holds ``hand_size`` cards."""

from __future__ import annotations

from collections import Counter

from catzoo.games import log_check as C
from catzoo.games.cat_in_the_box.options import COPIES, GAME


def check_chance(o, chance: list) -> None:
    n, h, top = o.num_players, o.hand_size, o.max_number
    deck = Counter({k: COPIES for k in range(top)})
    C.rounds(GAME, chance, o.num_rounds)
    for r, deal in enumerate(chance):
        where = f"chance[{r}] (round {r + 1}'s deal)"
        hands, leftover = C.sequence(GAME, where, deal, 2)
        C.sequence(GAME, f"{where}, the hands", hands, n)
        for p, hand in enumerate(hands):
            C.integers(GAME, f"{where}, the hand of player {p}", hand, 0, top - 1, h)
        C.integers(GAME, f"{where}, the leftover cards", leftover, 0, top - 1, top * COPIES - n * h)
        C.composition(GAME, where, [k for hand in hands for k in hand] + leftover, deck,
                      name=lambda k: f"{k} (number {k + 1})")
