"""CATsle Builders rules engine: deals, tricks, taking cards into board columns, scoring.

Sources are tagged as in docs/rules/catsle_builders.md: [R] publisher text (via
rules-notes), [S] seed text, [D] a documented project decision.

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

from catzoo.games.base import TERMINAL, GameState
from catzoo.games.catsle_builders.layout import (
    BOARD_FEATURES,
    CARD_FEATURES,
    COLUMN_FEATURES,
    layout_for,
    offsets_for,
)
from catzoo.games.catsle_builders.options import (
    NUM_CARDS,
    SUIT_LETTERS,
    SUITS,
    VALUES,
    CatsleBuildersOptions,
)
from catzoo.games.catsle_builders.scoring import board_score

PLAY, TAKE, COLUMN = 0, 1, 2
PHASES = ("play", "take", "column")
PLAY_BASE, TAKE_BASE, COLUMN_BASE = 0, 60, 120
NUM_ACTIONS = 125
SUIT_MASK = tuple(((1 << VALUES) - 1) << (VALUES * s) for s in range(len(SUITS)))
CARD_SUIT = tuple(c // VALUES for c in range(NUM_CARDS))
CARD_VALUE = tuple(c % VALUES for c in range(NUM_CARDS))


def _rows(bit_sets) -> tuple[np.ndarray, ...]:
    out = []
    for bits in bit_sets:
        row = np.zeros(NUM_ACTIONS, dtype=np.int8)
        row[[a for a in range(NUM_ACTIONS) if (bits >> a) & 1]] = 1
        row.flags.writeable = False
        out.append(row)
    return tuple(out)


# Action-mask rows: the play actions of each suit; each set of empty columns.
SUIT_ROWS = _rows(SUIT_MASK)
COLUMN_ROWS = _rows(bits << COLUMN_BASE for bits in range(1 << 5))


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


class CatsleBuildersState(GameState):
    game_name = "catsle_builders"
    env_version = 0
    options_cls = CatsleBuildersOptions
    num_actions = NUM_ACTIONS

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = n = o.num_players
        self._use_layout(layout_for(n))
        self._o = offsets_for(n)
        self._view_index = self.layout.view_index
        # Action-mask rows kept up to date: each hand's play actions, then (row n) the
        # take actions of the cards left in the trick.
        self._rows = np.zeros((n + 1, NUM_ACTIONS), dtype=np.int8)
        self._views()
        self._limits = o.limits
        self._takes = o.takes
        self._leader_rank = o.leader_rank
        self._hand_size = o.hands
        self.total_scores = [0] * n
        self.round_scores: list[list[int]] = []
        self.round_perfect: list[list[int]] = []
        self.round_boards: list[list[list[list[int]]]] = []
        self.round_index = 0
        # [S] the first player of the first round is random.
        self.round_start = self._draw_chance(lambda rng: rng.randrange(n))
        self.last_trick: tuple | None = None
        self._start_round()

    def _deal(self, rng: random.Random):
        o = self.options
        # [S] 3 players: the Moats (the last suit) are out. Sorting by random keys is a
        # uniform shuffle, about twice as fast as random.shuffle in pure Python.
        rnd = rng.random
        deck = sorted(range(o.deck_size), key=lambda _: rnd())
        h = o.hands
        hands = tuple(tuple(sorted(deck[i * h : (i + 1) * h])) for i in range(o.num_players))
        return (hands, tuple(sorted(deck[o.num_players * h :])))

    def _start_round(self) -> None:
        n, L, m = self.num_players, self.layout, self.master
        hands, undealt = self._draw_chance(self._deal)
        self.undealt = tuple(undealt)
        ncol = len(self._limits)
        self.col_cards = [[[] for _ in range(ncol)] for _ in range(n)]
        self.col_suit = [[-1] * ncol for _ in range(n)]
        self.suit_col = [[-1] * len(SUITS) for _ in range(n)]
        self.empty_cols = [(1 << ncol) - 1] * n
        self.played_by: list[list[int]] = [[] for _ in range(n)]
        self.voids = [0] * n
        self.trick: list[tuple[int, int]] = []
        self.led = -1
        self.phase = PLAY
        self.leader = self.round_start
        self.current_player = self.round_start
        self.tricks_done = 0
        self.rating: list[int] = []
        self.remaining = 0
        self.take_rank = 0
        self.need = 0
        self.pending = -1
        self._keys: list[int] = []
        self._ranks: list[int] = []

        m[:] = _board_template(n, self._limits)
        self._rows[:] = 0
        mv, rows_mv, hb = self._mv, self._rows_mv, self._o.hand
        self.hands = []
        for p, hand in enumerate(hands):
            bits, at_m, at_row = 0, hb + p * NUM_CARDS, p * NUM_ACTIONS
            for c in hand:
                bits |= 1 << c
                mv[at_m + c] = 1.0
                rows_mv[at_row + c] = 1
            self.hands.append(bits)
        m[L.span("score")] = [self._score_feature(p) for p in range(n)]
        if self.round_perfect:
            m[L.span("last_perfect")] = [v / 4.0 for v in self.round_perfect[-1]]
        m[L.base["round"] + self.round_index] = 1.0
        m[L.base["phase"] + PLAY] = 1.0
        m[L.base["leader"] + self.leader] = 1.0
        m[L.base["round_start"] + self.round_start] = 1.0
        m[L.base["tricks_left"]] = self._hand_size / 16.0
        self._legal = self._compute_legal()

    def _score_feature(self, p: int) -> float:
        return min(4.0, max(-4.0, self.total_scores[p] / 50.0))

    # --- legal moves ---------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        # The env's hot path: built from int8 rows kept up to date as cards move (each
        # hand, the trick), one numpy call instead of unpacking the bit set.
        p = self.current_player
        if p == TERMINAL:
            return np.zeros(NUM_ACTIONS, dtype=np.int8)
        phase = self.phase
        if phase == PLAY:
            row = self._row_list[p]
            if self._legal != self.hands[p]:
                return row * SUIT_ROWS[self.led]
            return row.copy()
        if phase == TAKE:
            return self._row_list[-1].copy()
        return COLUMN_ROWS[self._legal >> COLUMN_BASE].copy()

    def _compute_legal(self) -> int:
        p = self.current_player
        if p == TERMINAL:
            return 0
        phase = self.phase
        if phase == PLAY:
            hand = self.hands[p]
            if self.trick:
                # [S] follow the led suit if possible.
                follow = hand & SUIT_MASK[self.led]
                if follow:
                    return follow
            return hand
        if phase == TAKE:
            return self.remaining << TAKE_BASE
        return self.empty_cols[p] << COLUMN_BASE

    # --- applying actions ----------------------------------------------------------------
    def _apply(self, action: int) -> None:
        if action < TAKE_BASE:
            if self._play(self.current_player, action):
                return  # the next player's legal plays are already set
        elif action < COLUMN_BASE:
            if self._take(self.current_player, action - TAKE_BASE):
                self._continue_taking()
        else:
            self._place(self.current_player, self.pending, action - COLUMN_BASE)
            self.pending = -1
            self.master[self._o.pending_span] = 0.0
            self._continue_taking()
        self._legal = self._compute_legal()

    def _set_phase(self, phase: int) -> None:
        start, m = self._o.phase, self._mv
        m[start + self.phase] = 0.0
        m[start + phase] = 1.0
        self.phase = phase

    def _play(self, p: int, c: int) -> bool:
        """Play ``c``; True when the trick goes on (and ``_legal`` is set for the next
        player), False when it was the trick's last card."""
        o, m, trick = self._o, self._mv, self.trick
        self.hands[p] &= ~(1 << c)
        self._rows_mv[p * NUM_ACTIONS + c] = 0
        m[o.hand + p * NUM_CARDS + c] = 0.0
        suit = CARD_SUIT[c]
        value = CARD_VALUE[c]
        pos = len(trick)
        if not pos:
            self.led = suit
            m[o.led + suit] = 1.0
        elif suit != self.led:
            self.voids[p] |= 1 << self.led
        trick.append((p, c))
        self.played_by[p].append(c)
        m[o.seen + c] = 1.0
        tc = o.trick_card + p * CARD_FEATURES
        m[tc + suit] = 1.0
        m[tc + 5 + value] = 1.0
        # [S] the led suit beats the others, higher values beat lower ones, and among
        # equal values of non-led suits the later card is stronger.
        key = 1000 + value * 10 if suit == self.led else value * 10 + pos
        keys, ranks, tr = self._keys, self._ranks, o.trick_rank
        rank = 0
        for other in keys:
            if other > key:
                rank += 1
        for i in range(pos):
            r = ranks[i]
            if r >= rank:
                seat = trick[i][0]
                m[tr + seat * 5 + r] = 0.0
                m[tr + seat * 5 + r + 1] = 1.0
                ranks[i] = r + 1
        keys.append(key)
        ranks.append(rank)
        m[tr + p * 5 + rank] = 1.0
        n = self.num_players
        if pos + 1 < n:
            nxt = p + 1 if p + 1 < n else 0
            self.current_player = nxt
            hand = self.hands[nxt]
            self._legal = (hand & SUIT_MASK[self.led]) or hand  # [S] follow suit if able
            return True
        # [R] by rating, the strongest takes first, then the next, and so on.
        rating = [0] * n
        remaining = 0
        rows_mv, tb = self._rows_mv, n * NUM_ACTIONS + TAKE_BASE
        for i in range(n):
            seat, card = trick[i]
            rating[ranks[i]] = seat
            remaining |= 1 << card
            rows_mv[tb + card] = 1
        self.rating = rating
        self.remaining = remaining
        takes, tt = self._takes, o.to_take
        for r in range(n):
            m[tt + rating[r]] = takes[r] / 2.0
        self.take_rank = 0
        self.need = takes[0]
        self._continue_taking()
        return False

    def _continue_taking(self) -> None:
        """Hand out the trick's cards rating by rating, asking only for real choices."""
        takes, rating, n = self._takes, self.rating, self.num_players
        while True:
            if self.need == 0:
                self.take_rank += 1
                if self.take_rank >= n:
                    self._finish_trick()
                    return
                self.need = takes[self.take_rank]
                continue
            taker = rating[self.take_rank]
            left = self.remaining
            if left.bit_count() > self.need:
                if self.phase != TAKE:
                    self._set_phase(TAKE)
                self.current_player = taker
                return
            # [D] every card left goes to this taker: no choice to ask for.
            for _, c in self.trick:
                if (left >> c) & 1:
                    break
            if not self._take(taker, c):
                return

    def _take(self, p: int, c: int) -> bool:
        """Take card ``c`` for ``p``; False when ``p`` must now choose its column."""
        o, m = self._o, self._mv
        self.remaining &= ~(1 << c)
        self._rows_mv[self.num_players * NUM_ACTIONS + TAKE_BASE + c] = 0
        self.need -= 1
        m[o.to_take + p] = self.need / 2.0
        for seat, card in self.trick:
            if card == c:
                tc = o.trick_card + seat * CARD_FEATURES
                m[tc + CARD_SUIT[c]] = 0.0
                m[tc + 5 + CARD_VALUE[c]] = 0.0
                break
        k = self.suit_col[p][CARD_SUIT[c]]
        if k < 0:
            empty = self.empty_cols[p]
            if empty & (empty - 1):
                # [S] a suit without a column goes to an empty column of the taker's choice.
                self.pending = c
                m[o.pending + CARD_SUIT[c]] = 1.0
                m[o.pending + 5 + CARD_VALUE[c]] = 1.0
                self._set_phase(COLUMN)
                self.current_player = p
                return False
            # Options guarantee a column for every suit, so ``empty`` is never 0 here.
            k = empty.bit_length() - 1
        self._place(p, c, k)
        return True

    def _place(self, p: int, c: int, k: int) -> None:
        m = self._mv
        cards = self.col_cards[p][k]
        off = self._o.board + p * BOARD_FEATURES + k * COLUMN_FEATURES
        if not cards:
            suit = CARD_SUIT[c]
            self.col_suit[p][k] = suit
            self.suit_col[p][suit] = k
            self.empty_cols[p] &= ~(1 << k)
            m[off + suit] = 1.0
        cards.append(c)
        count = len(cards)
        m[off + 5] = count / 5.0
        m[off + 6] = (self._limits[k] - count) / 5.0  # [S] beyond the limit: sideways

    def _finish_trick(self) -> None:
        o, m = self._o, self._mv
        self.last_trick = (self.trick, self.rating)  # both lists are replaced, not reused
        # [R] the player who took two cards leads the next trick.
        leader = self.rating[self._leader_rank]
        self.rating = []
        self.trick = []
        self._keys = []
        self._ranks = []
        self.led = -1
        self.master[o.trick_span] = 0.0
        self.tricks_done += 1
        if self.tricks_done == self._hand_size:
            self._end_round()
            return
        m[o.tricks_left] = (self._hand_size - self.tricks_done) / 16.0
        m[o.leader + self.leader] = 0.0
        m[o.leader + leader] = 1.0
        self.leader = leader
        self._set_phase(PLAY)
        self.current_player = leader

    def _end_round(self) -> None:
        o, n = self.options, self.num_players
        scores, perfect = [], []
        for p in range(n):
            counts = [len(cards) for cards in self.col_cards[p]]
            s, k = board_score(counts, self._limits, o.perfect_bonus)
            scores.append(s)
            perfect.append(k)
            self.total_scores[p] += s
        self.round_scores.append(scores)
        self.round_perfect.append(perfect)
        self.round_boards.append(self.col_cards)
        self.round_index += 1
        if self.round_index == o.num_rounds:
            self.current_player = TERMINAL
            self.phase = PLAY
            m, L = self.master, self.layout
            m[L.span("score")] = [self._score_feature(p) for p in range(n)]
            m[L.span("last_perfect")] = [v / 4.0 for v in perfect]
            m[L.span("phase")] = 0.0
            m[L.base["tricks_left"]] = 0.0
            return
        # [S] each later round starts with the player after the previous round's first.
        self.round_start = (self.round_start + 1) % n
        self._start_round()

    # --- results ------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return list(self.total_scores)

    def standing_keys(self) -> list[tuple]:
        # [S] tie-break: most perfect columns in the last round's scoring.
        last = self.round_perfect[-1] if self.round_perfect else [0] * self.num_players
        return [(self.total_scores[p], last[p]) for p in range(self.num_players)]

    def board_counts(self, player: int) -> list[int]:
        return [len(cards) for cards in self.col_cards[player]]

    # --- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self.master[self._view_index[player]]

    def state_vector(self) -> np.ndarray:
        return self.master.copy()

    # --- copies and determinization -----------------------------------------------------------
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        for name in ("_mv", "_rows_mv", "_row_list"):  # views, rebuilt on unpickling
            del state[name]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._views()

    def _views(self) -> None:
        # Scalar writes through a memoryview cost about half a numpy item assignment.
        self._mv = memoryview(self.master)
        self._rows_mv = memoryview(self._rows.reshape(-1))
        self._row_list = list(self._rows)

    def clone(self) -> CatsleBuildersState:
        c = copy.copy(self)
        c.master = self.master.copy()
        c._rows = self._rows.copy()
        c._views()
        for name in ("hands", "trick", "rating", "total_scores", "chance", "history",
                     "empty_cols", "voids", "_keys", "_ranks"):
            setattr(c, name, list(getattr(self, name)))
        for name in ("col_suit", "suit_col", "played_by", "round_scores", "round_perfect"):
            setattr(c, name, [list(row) for row in getattr(self, name)])
        c.col_cards = [[list(col) for col in board] for board in self.col_cards]
        c.round_boards = list(self.round_boards)
        c.rng = self._rng_copy()
        return c

    def resample(self, player: int, rng: random.Random, attempts: int = 200) -> CatsleBuildersState:
        """Re-deal the cards hidden from ``player`` (the other hands and the undealt
        cards) at random, consistently with what ``player`` saw: each other hand keeps
        its size, and a player who did not follow a led suit this round gets no card of
        it. The cards already played stay where they are."""
        c = self.clone()
        c.rng = random.Random(rng.getrandbits(64))  # later deals must not be foreseeable
        if self.is_terminal():
            return c
        n = self.num_players
        others = [q for q in range(n) if q != player]
        pool = [card for q in others for card in cards_of(self.hands[q])] + list(self.undealt)
        capacity = {q: self.hands[q].bit_count() for q in others}
        capacity[-1] = len(self.undealt)  # -1: the undealt cards, unconstrained
        eligible = [
            [q for q in others if not (self.voids[q] >> s) & 1] + [-1] for s in range(len(SUITS))
        ]
        for _ in range(attempts):
            deal = _constrained_deal(pool, capacity, eligible, rng)
            if deal is not None:
                break
        else:
            return c  # [D] nothing found: the true deal is always consistent
        L = c.layout
        hb = L.base["hand"]
        for q in others:
            c.hands[q] = bits_of(deal[q])
            c.master[L.span("hand", q)] = 0.0
            c._rows[q] = 0
            for card in deal[q]:
                c.master[hb + q * NUM_CARDS + card] = 1.0
                c._rows[q, card] = 1
        c.undealt = tuple(sorted(deal[-1]))
        c._legal = c._compute_legal()  # the player to act may hold a new hand
        # Rewrite this round's recorded deal so the action log still replays exactly.
        old_hands, _ = self.chance[-1]
        dealt = tuple(
            old_hands[q] if q == player else tuple(sorted(deal[q] + self.played_by[q]))
            for q in range(n)
        )
        c.chance[-1] = (dealt, c.undealt)
        return c

    # --- text -----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < TAKE_BASE:
            return f"play {card_name(action)}"
        if action < COLUMN_BASE:
            return f"take {card_name(action - TAKE_BASE)}"
        k = action - COLUMN_BASE
        limits = self._limits
        limit = limits[k] if k < len(limits) else "?"
        return f"column {k} (limit {limit})"

    def render(self) -> str:
        from catzoo.games.catsle_builders.render import render_text

        return render_text(self)


@cache
def _board_template(num_players: int, limits: tuple[int, ...]) -> np.ndarray:
    """The master vector of a fresh round before the deal: empty boards with their
    limits and room written, everything else zero."""
    L = layout_for(num_players)
    m = np.zeros(L.master_size, dtype=np.float32)
    for p in range(num_players):
        for k, limit in enumerate(limits):
            off = L.base["board"] + p * BOARD_FEATURES + k * COLUMN_FEATURES
            m[off + 6] = m[off + 7] = limit / 5.0
    m.flags.writeable = False
    return m


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
