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

import copy
import random
from functools import cache

import numpy as np

from catzoo.games.base import GameState
from catzoo.games.catsle_builders.core import (  # noqa: F401  (the game's constants, re-exported)
    COLUMN,
    COLUMN_BASE,
    DEALT,
    NUM_ACTIONS,
    NUM_CARDS,
    NUM_SUITS,
    PLAY,
    PLAY_BASE,
    TAKE,
    TAKE_BASE,
    VALUES,
    Core,
    make_config,
)
from catzoo.games.catsle_builders.layout import layout_for
from catzoo.games.catsle_builders.options import SUIT_LETTERS, CatsleBuildersOptions

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


@cache
def _config(options: CatsleBuildersOptions):
    return make_config(options)


class CatsleBuildersState(GameState):
    game_name = "catsle_builders"
    env_version = 0
    options_cls = CatsleBuildersOptions
    num_actions = NUM_ACTIONS

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = o.num_players
        self.layout = layout_for(o.num_players)
        self.observation_size = self.layout.obs_size
        core = Core(_config(o))
        start, deals = _check_pinned(self._pinned_chance, o)
        core.pin(start, [[bits_of(hand) for hand in hands] for hands, _ in deals])
        generator = self.__dict__.pop("_rng_at_new", None)
        if type(self.seed) is int or generator is None:
            core.seed(self.seed or 0)  # random.Random(seed) for an int seed
        else:
            core.set_rng_state(generator.getstate())  # unseeded, or a seed of another type
        core.start()
        self._core = core
        # [S] the first player of the first round is random; then the first deal.
        self.chance.append(self._pinned_chance[0] if start is not None else core.round_start)
        self._record_deal()
        self.current_player = core.current_player
        self._legal = core.legal

    def _record_deal(self) -> None:
        index, pinned = len(self.chance), self._pinned_chance
        self.chance.append(pinned[index] if index < len(pinned) else self._core.deal_record())

    # The generator lives in the core (it deals the later rounds). Setting ``rng`` (as
    # ``GameState.new`` and the search bots do) hands its state to the core; reading it
    # gives a copy in the core's state (drawing from the copy deals nothing).
    @property
    def rng(self) -> random.Random:
        generator = random.Random()
        generator.setstate(self._core.rng_state())
        return generator

    @rng.setter
    def rng(self, generator: random.Random) -> None:
        if "_core" in self.__dict__:
            self._core.set_rng_state(generator.getstate())
        else:  # GameState.new, before _setup
            self.__dict__["_rng_at_new"] = generator

    # --- applying actions ----------------------------------------------------------------
    def apply_unchecked(self, action: int) -> None:
        core = self._core
        if core.apply(action) & DEALT:
            self._record_deal()
        self.history.append(action)
        self.current_player = core.current_player
        self._legal = core.legal

    def legal_mask(self) -> np.ndarray:
        return self._core.mask()

    # --- reading the game ------------------------------------------------------------------
    phase = property(lambda self: self._core.phase)
    leader = property(lambda self: self._core.leader)
    led = property(lambda self: self._core.led)
    pending = property(lambda self: self._core.pending)
    remaining = property(lambda self: self._core.remaining)
    take_rank = property(lambda self: self._core.take_rank)
    need = property(lambda self: self._core.need)
    round_start = property(lambda self: self._core.round_start)
    round_index = property(lambda self: self._core.round_index)
    tricks_done = property(lambda self: self._core.tricks_done)
    hands = property(lambda self: self._core.hands(), doc="each hand as a bit set of cards")
    voids = property(lambda self: self._core.voids(),
                     doc="per player, the bit set of suits it failed to follow this round")
    empty_cols = property(lambda self: self._core.empty_cols())
    trick = property(lambda self: self._core.trick(), doc="(player, card) in play order")
    rating = property(lambda self: self._core.rating(),
                      doc="the seats by rating, strongest first, once the trick is complete")
    last_trick = property(lambda self: self._core.last_trick(),
                          doc="(trick, rating) of the last finished trick, or None")
    played_by = property(lambda self: self._core.played_by(),
                         doc="the cards each player played this round, in order")
    col_suit = property(lambda self: self._core.col_suit())
    suit_col = property(lambda self: self._core.suit_col())
    round_scores = property(lambda self: self._core.round_scores())

    @property
    def undealt(self) -> tuple:
        return tuple(self.chance[-1][1])  # the latest chance outcome is this round's deal

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

    @property
    def total_scores(self) -> list[int]:
        return self._core.scores()

    @total_scores.setter
    def total_scores(self, scores) -> None:
        self._core.set_total_scores(scores)

    @property
    def round_perfect(self) -> list[list[int]]:
        return self._core.round_perfect()

    @round_perfect.setter
    def round_perfect(self, rows) -> None:
        self._core.set_round_perfect(rows)

    def board_counts(self, player: int) -> list[int]:
        return self._core.board_counts(player)

    # --- results ------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return self._core.scores()

    def standing_keys(self) -> list[tuple]:
        # [S] tie-break: most perfect columns in the last round's scoring (in the core).
        return self._core.standing_keys()

    def returns(self) -> np.ndarray:
        return self._core.returns()

    # --- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self._core.observe(player)

    def state_vector(self) -> np.ndarray:
        return self._core.master()

    # --- copies and determinization -----------------------------------------------------------
    def clone(self) -> CatsleBuildersState:
        c = copy.copy(self)
        c._core = self._core.copy()  # the generator included: a clone deals as this game
        c.chance = list(self.chance)
        c.history = list(self.history)
        return c

    def resample(self, player: int, rng: random.Random, attempts: int = 200) -> CatsleBuildersState:
        """Re-deal the cards hidden from ``player`` (the other hands and the undealt
        cards) at random, consistently with what ``player`` saw: each other hand keeps
        its size, and a player who did not follow a led suit this round gets no card of
        it. The cards already played stay where they are."""
        c = self.clone()
        c._core.seed(rng.getrandbits(64))  # later deals must not be foreseeable
        if self.is_terminal():
            return c
        n = self.num_players
        hands, undealt, voids = self.hands, self.undealt, self.voids
        others = [q for q in range(n) if q != player]
        pool = [card for q in others for card in cards_of(hands[q])] + list(undealt)
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

    def render(self) -> str:
        from catzoo.games.catsle_builders.render import render_text

        return render_text(self)


def _check_pinned(pinned: list, o: CatsleBuildersOptions):
    """The pinned chance outcomes (``GameState.new(chance=...)``), checked before they
    reach the core: ``[first player, (hands, undealt) of round 1, ...]``, each deal a
    hand of ``o.hands`` distinct cards per player and the rest of the deck undealt.
    Returns (first player or None, the deals)."""
    if not pinned:
        return None, []
    n, rounds = o.num_players, o.num_rounds
    if len(pinned) > 1 + rounds:
        raise ValueError(f"catsle_builders: {len(pinned)} pinned chance outcomes; a game of "
                         f"{rounds} round(s) has {1 + rounds} (the first player, then a deal "
                         "per round)")
    start = pinned[0]
    if isinstance(start, (bool, np.bool_)) or not isinstance(start, (int, np.integer)) \
            or not 0 <= start < n:
        raise ValueError(f"catsle_builders: pinned first player {start!r} must be an int in "
                         f"0..{n - 1}")
    deck = set(range(o.deck_size))
    for r, outcome in enumerate(pinned[1:]):
        try:
            hands, undealt = outcome
            hands = [list(hand) for hand in hands]
            undealt = list(undealt)
        except (TypeError, ValueError):
            raise ValueError(f"catsle_builders: pinned deal {r + 1} must be (hands, undealt), "
                             f"got {outcome!r}") from None
        if len(hands) != n or any(len(hand) != o.hands for hand in hands):
            raise ValueError(f"catsle_builders: pinned deal {r + 1} must give {n} hands of "
                             f"{o.hands} cards, got sizes {[len(h) for h in hands]}")
        cards = [c for hand in hands for c in hand] + undealt
        if any(isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer))
               for c in cards) or sorted(cards) != sorted(deck):
            raise ValueError(f"catsle_builders: pinned deal {r + 1}: the hands and the "
                             f"undealt cards must hold each card of 0..{o.deck_size - 1} once")
    return int(start), [(tuple(tuple(int(c) for c in hand) for hand in hands), undealt)
                        for hands, undealt in pinned[1:]]


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
