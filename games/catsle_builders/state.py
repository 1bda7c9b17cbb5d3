"""CATsle Builders rules engine: deals, tricks, taking cards into board columns, scoring.

The game is played by the compiled core (``core.pyx``: the rules, the deal from the
seed, the observation and the legal moves, in C, shared with the batched engine); this
state owns one ``Core`` and keeps what is not per step: the options, the chance record
and the action history (the JSON log), the re-sampling of hidden cards for the search
bots, action names and rendering. Sources are tagged as in
docs/rules/catsle_builders.md: [R] publisher text (via rules-notes), [S] seed text, [D] a
documented project decision.

Cards are ``suit * 12 + value - 1`` (suits Walls 0, Gables 1, Gates 2, Bridges 3,
Moats 4). Actions (one flat space of 125):

* ``0-59``    play card ``a`` (phase "play");
* ``60-119``  take card ``a - 60`` from the finished trick (phase "take");
* ``120-124`` put the card just taken into column ``a - 120`` (phase "column"): the
  limited columns in option order, then the 0 column at 4-5 players.

[D] Choices with a single option are made by the engine, not asked: a card whose suit
already has a column goes there, a card with a single empty column goes there, and a
player who must take every card left in the trick takes them (in play order).
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.catsle_builders.core import (  # noqa: F401  (the game's constants, re-exported)
    COLUMN,
    COLUMN_BASE,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_SUITS,
    PLAY,
    PLAY_BASE,
    TAKE,
    TAKE_BASE,
    VALUES,
)
from catzoo.games.catsle_builders.options import SUIT_LETTERS, CatsleBuildersOptions
from catzoo.games.compiled import CompiledState

PHASES = ("play", "take", "column")
CARD_SUIT = tuple(c // VALUES for c in range(NUM_CARDS))


def card_name(c: int) -> str:
    return f"{SUIT_LETTERS[c // VALUES]}{c % VALUES + 1}"


def bits_of(cards) -> int:
    out = 0
    for c in cards:
        out |= 1 << c
    return out


def cards_of(bits: int) -> list[int]:
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


class CatsleBuildersState(CompiledState):
    game_name = "catsle_builders"
    env_version = 0
    options_cls = CatsleBuildersOptions

    # --- set-up ------------------------------------------------------------------------
    def _record_chance(self) -> None:
        if not self.chance:
            # [S] the first player of the first round is random: the first chance
            # outcome, drawn (or pinned) before the first deal.
            pinned = self._pinned_chance
            self.chance.append(pinned[0] if pinned else self._core.round_start)
        super()._record_chance()

    def legal_mask(self) -> np.ndarray:
        return self._core.mask()

    # --- the game, read from the core (each field's docstring is the core reader's) -------
    core_fields = ("phase", "leader", "led", "pending", "remaining", "take_rank", "need",
                   "round_start", "round_index", "tricks_done", "hands", "voids", "empty_cols",
                   "trick", "rating", "last_trick", "played_by", "col_suit", "suit_col",
                   "round_scores", "total_scores", "round_perfect")
    writable_fields = ("total_scores", "round_perfect")

    @property
    def undealt(self) -> tuple:
        """This round's undealt cards, as its chance outcome holds them."""
        if len(self.chance) > 1:  # the latest chance outcome is this round's deal
            return tuple(self.chance[-1][1])
        return self._core.deal[1]  # a state around a batch slot's game, without a record

    @property
    def col_cards(self) -> list[list[list[int]]]:
        """This round's boards: per player, per column, the cards in the order placed
        (once the game is over, the last round's)."""
        core = self._core
        return core.boards(min(core.round_index, self.options.num_rounds - 1))

    @property
    def round_boards(self) -> list[list[list[list[int]]]]:
        core = self._core
        return [core.boards(r) for r in range(core.scored)]

    def board_counts(self, player: int) -> list[int]:
        return self._core.board_counts(player)

    # --- determinization ---------------------------------------------------------------------
    def resample(self, player: int, rng: random.Random, attempts: int = 200) -> CatsleBuildersState:
        """Re-deal the cards hidden from ``player`` (the other hands and the undealt
        cards) at random, consistently with what ``player`` saw: each other hand keeps
        its size, and a player who did not follow a led suit this round gets no card of
        it. The cards already played stay where they are."""
        c = self._copy(seed=rng.getrandbits(64))  # later deals must not be foreseeable
        if self.is_terminal():
            return c
        n = self.num_players
        hands, undealt, voids = self.hands, self.undealt, self.voids
        others = [q for q in range(n) if q != player]
        # Sorted, so that the re-deal depends on the cards the player has not seen and
        # not on who holds them: the same re-deal of any game the player cannot tell apart.
        pool = sorted([card for q in others for card in cards_of(hands[q])] + list(undealt))
        capacity = {q: hands[q].bit_count() for q in others}
        capacity[-1] = len(undealt)  # -1: the undealt cards, unconstrained
        eligible = [[q for q in others if not (voids[q] >> s) & 1] + [-1]
                    for s in range(NUM_SUITS)]
        for _ in range(attempts):
            deal = _constrained_deal(pool, capacity, eligible, rng)
            if deal is not None:
                break
        else:
            return c  # [D] nothing found: the true deal is always consistent
        c._core.set_hands({q: bits_of(deal[q]) for q in others})
        c._legal = c._core.legal  # the player to act may hold a new hand
        # Rewrite this round's recorded deal so the action log still replays exactly.
        old_hands, _ = self.chance[-1]
        played_by = self.played_by
        dealt = tuple(
            old_hands[q] if q == player else tuple(sorted(deal[q] + played_by[q]))
            for q in range(n)
        )
        c.chance[-1] = (dealt, tuple(sorted(deal[-1])))
        return c

    # --- text -----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < TAKE_BASE:
            return f"play {card_name(action)}"
        if action < COLUMN_BASE:
            return f"take {card_name(action - TAKE_BASE)}"
        k = action - COLUMN_BASE
        limits = self.options.limits
        limit = limits[k] if k < len(limits) else "?"
        return f"column {k} (limit {limit})"



def _constrained_deal(pool, capacity, eligible, rng: random.Random):
    """One random assignment of ``pool`` to holders within ``capacity``, each card to a
    holder in ``eligible[suit]``; None if this try gets stuck. Cards of the most
    constrained suits are placed first; each goes to an eligible holder with room,
    chosen in proportion to the room left."""
    cards = list(pool)
    rng.shuffle(cards)
    cards.sort(key=lambda card: len(eligible[CARD_SUIT[card]]))
    room = dict(capacity)
    out = {q: [] for q in capacity}
    for card in cards:
        holders = [q for q in eligible[CARD_SUIT[card]] if room[q] > 0]
        if not holders:
            return None
        total = sum(room[q] for q in holders)
        pick = rng.randrange(total)
        for q in holders:
            pick -= room[q]
            if pick < 0:
                break
        out[q].append(card)
        room[q] -= 1
    return out
