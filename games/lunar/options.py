"""Options of Lunar, each rule choice traced in docs/rules/lunar.md.

Cards are numbered 0-11 everywhere in the engine: 0-3 the suit cards wolf, owl, lynx,
bat; 4-11 the rank cards 1-8 (card ``3 + rank``).
"""

from __future__ import annotations

from dataclasses import dataclass

from catzoo.games.base import OptionsError, check_choice, int_sequence, is_int, str_sequence

# The game's constants are defined once, in the compiled core, and re-exported here.
from catzoo.games.lunar.core import (  # noqa: F401
    DEAL_PER_TYPE,
    NUM_CARDS,
    NUM_RANKS,
    NUM_SUITS,
    PASS_PER_TYPE,
    RANK_COPIES,
    SKY_PER_TYPE,
    SUIT_COPIES,
    TRICKS_PER_ROUND,
)

GAME = "lunar"

SUITS = ("wolf", "owl", "lynx", "bat")

# [D] stars beside trick-track positions 0-12: the store text names winning 1-3 or 7-8
# of the 12 tricks as the good results (docs/rules/lunar.md, "Trick track").
DEFAULT_TRACK_STARS = (0, 3, 3, 3, 0, 0, 0, 4, 4, 0, 0, 0, 0)
# [D] which cards carry a star: every copy of the rank cards 1 and 8, one star each.
DEFAULT_STAR_RANKS = (1, 8)
DEFAULT_STAR_SUITS: tuple[str, ...] = ()


def rank_card(rank: int) -> int:
    return NUM_SUITS - 1 + rank


def card_name(card: int) -> str:
    return SUITS[card] if card < NUM_SUITS else f"rank {card - NUM_SUITS + 1}"


@dataclass(frozen=True)
class LunarOptions:
    """``num_players`` 2 (the sky game) or 4 (two partnerships, partners opposite);
    ``rounds`` "full" (play until a team has more than ``target`` points and the teams
    are not tied, the published game) or "single" (one round per episode, for faster
    training); ``target`` the score a team must pass (30); ``track_stars`` the stars
    printed beside trick-track positions 0-12 (13 numbers); ``star_ranks`` the ranks
    1-8 whose cards carry a star and ``star_suits`` the suits whose cards do (every copy,
    one star each); ``max_rounds`` a safety cap on the game's length: a game still tied
    after that many rounds ends as a shared result."""

    num_players: int = 4
    rounds: str = "full"
    target: int = 30
    track_stars: tuple[int, ...] = DEFAULT_TRACK_STARS
    star_ranks: tuple[int, ...] = DEFAULT_STAR_RANKS
    star_suits: tuple[str, ...] = DEFAULT_STAR_SUITS
    max_rounds: int = 100

    def __post_init__(self):
        if not is_int(self.num_players) or self.num_players not in (2, 4):
            raise OptionsError(
                f"{GAME}: num_players={self.num_players!r} is not allowed; choose 2 or 4"
            )
        check_choice(GAME, "rounds", self.rounds, ("full", "single"))
        for name in ("target", "max_rounds"):
            value = getattr(self, name)
            if not is_int(value) or value < 1:
                raise OptionsError(f"{GAME}: option {name}={value!r} must be a positive integer")
        track = int_sequence(GAME, "track_stars", self.track_stars)
        if len(track) != TRICKS_PER_ROUND + 1 or not all(v >= 0 for v in track):
            raise OptionsError(
                f"{GAME}: track_stars={self.track_stars!r} must be 13 non-negative integers "
                "(stars beside trick-track positions 0-12)"
            )
        ranks = tuple(sorted(set(int_sequence(GAME, "star_ranks", self.star_ranks))))
        if not all(1 <= r <= NUM_RANKS for r in ranks):
            raise OptionsError(f"{GAME}: star_ranks={self.star_ranks!r} must be ranks 1-8")
        suits = str_sequence(GAME, "star_suits", self.star_suits)
        bad = [s for s in suits if s not in SUITS]
        if bad:
            raise OptionsError(
                f"{GAME}: star_suits names unknown suit(s) {bad!r}; suits are {', '.join(SUITS)}"
            )
        suits = tuple(s for s in SUITS if s in suits)
        object.__setattr__(self, "track_stars", track)
        object.__setattr__(self, "star_ranks", ranks)
        object.__setattr__(self, "star_suits", suits)

    @property
    def num_rounds(self) -> int | None:
        return 1 if self.rounds == "single" else None

    @property
    def card_stars(self) -> tuple[int, ...]:
        """Stars on each card identity 0-11."""
        stars = [1 if SUITS[s] in self.star_suits else 0 for s in range(NUM_SUITS)]
        stars += [1 if r in self.star_ranks else 0 for r in range(1, NUM_RANKS + 1)]
        return tuple(stars)
