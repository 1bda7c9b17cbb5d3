"""Lunar logs: each chance outcome is one round's two shuffled decks, the suit cards
(``SUIT_COPIES`` of each suit) and the rank cards (``RANK_COPIES`` of each rank), in the
order they are dealt."""

from __future__ import annotations

from collections import Counter

from catzoo.games import log_check as C
from catzoo.games.lunar.options import (
    GAME,
    NUM_CARDS,
    NUM_SUITS,
    RANK_COPIES,
    SUIT_COPIES,
    card_name,
)


def check_chance(o, chance: list) -> None:
    suits = Counter({c: SUIT_COPIES for c in range(NUM_SUITS)})
    ranks = Counter({c: RANK_COPIES for c in range(NUM_SUITS, NUM_CARDS)})
    C.rounds(GAME, chance, o.num_rounds or o.max_rounds, "two decks")
    for r, decks in enumerate(chance):
        where = f"chance[{r}] (round {r + 1}'s decks)"
        suit_deck, rank_deck = C.sequence(GAME, where, decks, 2)
        C.integers(GAME, f"{where}, the suit deck", suit_deck, 0, NUM_SUITS - 1, sum(suits.values()))
        C.composition(GAME, f"{where}, the suit deck", suit_deck, suits, card_name)
        C.integers(GAME, f"{where}, the rank deck", rank_deck, NUM_SUITS, NUM_CARDS - 1,
                   sum(ranks.values()))
        C.composition(GAME, f"{where}, the rank deck", rank_deck, ranks, card_name)
