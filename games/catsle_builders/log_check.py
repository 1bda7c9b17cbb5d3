"""CATsle Builders logs: the first chance outcome is the first round's start player, then
one deal per round (``hands``, ``undealt``): ``hands`` cards to each player, every card of
the deck (``deck_size``: the Moats are out at 3 players) dealt or undealt exactly once."""

from __future__ import annotations

from collections import Counter

from catzoo.games import log_check as C
from catzoo.games.catsle_builders.options import GAME, SUIT_LETTERS, VALUES


def _name(card: int) -> str:
    return f"{card} ({SUIT_LETTERS[card // VALUES]}{card % VALUES + 1})"


def check_chance(o, chance: list) -> None:
    n, size = o.num_players, o.deck_size
    if not chance:
        return
    C.integer(GAME, "chance[0] (the start player)", chance[0], 0, n - 1, "player")
    C.rounds(GAME, chance[1:], o.num_rounds)
    deck = Counter(range(size))
    for r, deal in enumerate(chance[1:], 1):
        where = f"chance[{r}] (round {r}'s deal)"
        hands, undealt = C.sequence(GAME, where, deal, 2)
        C.sequence(GAME, f"{where}, the hands", hands, n)
        for p, hand in enumerate(hands):
            C.integers(GAME, f"{where}, the hand of player {p}", hand, 0, size - 1, o.hands)
        C.integers(GAME, f"{where}, the undealt cards", undealt, 0, size - 1, size - n * o.hands)
        C.composition(GAME, where, [c for hand in hands for c in hand] + undealt, deck, _name)
