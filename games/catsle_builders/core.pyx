# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The whole game of CATsle Builders in C: deals, tricks, taking, columns, scoring.

One ``Game`` struct holds a game (plain C data, copied with ``memcpy``) and the C
functions below play it: the deal from Python's own generator (``mt19937.pxi``, so a
seed deals what ``random.Random(seed)`` dealt), every phase, the round ends and the
game end, the legal moves, the observation (kept up to date in a float "master" vector
laid out as ``layout.py`` documents, and copied out per viewer) and the standing. The
Python state (``state.py``) owns a ``Core`` (the Python-facing class at the end) and
the batched engine (``batch.pxi``) steps arrays of ``Game``: both run these functions,
so the rules exist once.

Sources are tagged as in docs/rules/catsle_builders.md: [R] publisher text (via
rules-notes), [S] seed text, [D] a documented project decision.

Cards are ``suit * 12 + value - 1`` (suits Walls 0, Gables 1, Gates 2, Bridges 3,
Moats 4); bit sets of cards use bit ``card``. Actions: ``0-59`` play card ``a``;
``60-119`` take card ``a - 60`` from the finished trick; ``120-124`` put the card just
taken into column ``a - 120`` (the limited columns in option order, then the 0 column).

[D] Choices with a single option are made here, not asked: a card whose suit already
has a column goes there, a card with a single empty column goes there, and a player who
must take every card left in the trick takes them (in play order).
"""

from libc.stdint cimport int8_t, int16_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy, memset

from cpython.buffer cimport PyBUF_WRITABLE, PyBuffer_Release, PyObject_GetBuffer

import numpy as np

include "../mt19937.pxi"


# The game's constants, exported to Python (state.py, layout.py, options.py, the
# heuristic and the views import them from here).
cpdef enum:
    NUM_SUITS = 5
    VALUES = 12
    NUM_CARDS = 60
    NUM_ROUNDS = 3          # [S] the full game; "single" plays one
    MIN_PLAYERS = 3
    MAX_PLAYERS = 5
    # phases
    PLAY = 0
    TAKE = 1
    COLUMN = 2
    NUM_PHASES = 3
    # the flat action space
    PLAY_BASE = 0
    TAKE_BASE = 60
    COLUMN_BASE = 120
    NUM_ACTIONS = 125
    MAX_COLUMNS = 5         # 4 limited columns at most, then the 0 column
    # observation blocks (layout.py): a column is suit one-hot, cards / 5, room / 5,
    # limit / 5; a card is suit one-hot then value one-hot; a rating is one-hot
    COLUMN_FEATURES = 8
    BOARD_FEATURES = 40
    CARD_FEATURES = 17
    RANK_FEATURES = 5
    # events of game_apply
    GAME_OVER = 1
    DEALT = 2

cdef enum:
    MAX_ACTIONS = 125
    MAX_OBS = 484           # layout_for(5).obs_size (make_config checks the layout fits)
    MAX_MASTER = 724        # layout_for(5).master_size
    MAX_HAND = 20           # hand_size * players <= 60, at least 3 players
    MAX_RUNS = 40           # contiguous runs of a view in the master vector
    NOBODY = -1
    F_COUNT = NUM_SUITS     # offsets inside a column's features
    F_ROOM = NUM_SUITS + 1
    F_LIMIT = NUM_SUITS + 2
    F_VALUE = NUM_SUITS     # offset of the value one-hot inside a card's features

cdef uint64_t ONE = 1
# A fresh numpy array per observation and mask, filled in C through the buffer protocol
# (cheaper than a typed memoryview's set-up, which would cost more than the filling).
cdef object _empty = np.empty
cdef object _INT8 = np.dtype(np.int8)
cdef object _FLOAT32 = np.dtype(np.float32)
cdef uint64_t SUIT_BITS = (ONE << VALUES) - 1

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


ctypedef struct Config:
    int n, num_suits, deck_size, hand, ncol, num_rounds, leader_rank
    int limits[MAX_COLUMNS]
    int takes[MAX_PLAYERS]
    int bonus[MAX_COLUMNS]
    int obs_size, master_size
    # block starts in the master vector (layout.py)
    int o_hand, o_board, o_trick_card, o_trick_rank, o_to_take, o_led, o_seen, o_score
    int o_last_perfect, o_round, o_phase, o_pending, o_leader, o_round_start, o_tricks_left
    int trick_span_start, trick_span_len   # trick_card .. led: cleared after each trick
    # each viewer's observation: contiguous runs of the master vector, in order
    int nruns[MAX_PLAYERS]
    int16_t run_src[MAX_PLAYERS][MAX_RUNS]
    int16_t run_len[MAX_PLAYERS][MAX_RUNS]
    float template[MAX_MASTER]             # a round's master vector before the deal


ctypedef struct Game:
    # what a step touches comes first
    int phase, current, leader, led, trick_len, take_rank, need, pending, events
    int legal_base
    uint64_t legal_bits                    # the legal actions, shifted down by legal_base
    uint64_t remaining                     # cards of the finished trick not taken yet
    uint64_t hands[MAX_PLAYERS]
    int trick_seat[MAX_PLAYERS]
    int trick_card[MAX_PLAYERS]
    int keys[MAX_PLAYERS]                  # strength keys of the trick's cards (card_key)
    int ranks[MAX_PLAYERS]                 # their rating so far, 0 = strongest
    int rating[MAX_PLAYERS]                # seats by rating, once the trick is complete
    int rating_len
    int voids[MAX_PLAYERS]                 # suits a player failed to follow this round
    int col_suit[MAX_PLAYERS][MAX_COLUMNS]
    int suit_col[MAX_PLAYERS][NUM_SUITS]
    int empty_cols[MAX_PLAYERS]
    int round_start, round_index, tricks_done, scored
    int total[MAX_PLAYERS]
    int round_scores[NUM_ROUNDS][MAX_PLAYERS]
    int round_perfect[NUM_ROUNDS][MAX_PLAYERS]
    int last_len                           # the last finished trick (0: none yet)
    int last_seat[MAX_PLAYERS]
    int last_card[MAX_PLAYERS]
    int last_rating[MAX_PLAYERS]
    int8_t nplayed[MAX_PLAYERS]
    int8_t played_by[MAX_PLAYERS][MAX_HAND]
    int8_t colcnt[NUM_ROUNDS][MAX_PLAYERS][MAX_COLUMNS]
    int8_t cols[NUM_ROUNDS][MAX_PLAYERS][MAX_COLUMNS][VALUES]   # one suit per column
    uint64_t dealt[MAX_PLAYERS]            # this round's deal
    # pinned chance (GameState.new(chance=...)): used in order instead of drawing
    int n_pinned, chance_index, pinned_start
    uint64_t pinned_hands[NUM_ROUNDS][MAX_PLAYERS]
    float m[MAX_MASTER]
    MT mt


# --- the rules --------------------------------------------------------------------------

cdef inline int card_key_c(int card, int led, int position) noexcept nogil:
    """[S] The led suit beats the others, higher values beat lower ones, and among equal
    values of non-led suits the later card is stronger: a larger key is stronger."""
    cdef int value = card % VALUES
    if card // VALUES == led:
        return 1000 + value * 10
    return value * 10 + position


cdef inline int column_score_c(int cards, int limit) noexcept nogil:
    """[S] Within the limit a column scores its card count; above it, minus the number of
    sideways cards (those beyond the limit)."""
    return cards if cards <= limit else limit - cards


cdef int board_score_c(const int8_t* counts, const int* limits, int ncol, const int* bonus,
                       int* perfect_out) noexcept nogil:
    """[S] The round score of a board, never negative, and its perfect columns (exactly at
    their limit, the 0 column never counting), which index the perfect bonus."""
    cdef int k, total = 0, perfect = 0
    for k in range(ncol):
        total += column_score_c(counts[k], limits[k])
        if limits[k] and counts[k] == limits[k]:
            perfect += 1
    total += bonus[perfect]
    perfect_out[0] = perfect
    return total if total > 0 else 0


cdef inline float score_feature(int total) noexcept nogil:
    cdef double x = total / 50.0
    if x > 4.0:
        x = 4.0
    elif x < -4.0:
        x = -4.0
    return <float>x


cdef inline void set_phase(Game* g, const Config* c, int phase) noexcept nogil:
    g.m[c.o_phase + g.phase] = 0.0
    g.m[c.o_phase + phase] = 1.0
    g.phase = phase


cdef void set_legal(Game* g) noexcept nogil:
    cdef int p = g.current
    cdef uint64_t hand, follow
    if p == NOBODY:
        g.legal_bits = 0
        g.legal_base = 0
    elif g.phase == PLAY:
        hand = g.hands[p]
        if g.trick_len:
            follow = hand & (SUIT_BITS << (VALUES * g.led))  # [S] follow suit if able
            if follow:
                hand = follow
        g.legal_bits = hand
        g.legal_base = PLAY_BASE
    elif g.phase == TAKE:
        g.legal_bits = g.remaining
        g.legal_base = TAKE_BASE
    else:
        g.legal_bits = <uint64_t>g.empty_cols[p]
        g.legal_base = COLUMN_BASE


cdef void deal_round(Game* g, const Config* c) noexcept nogil:
    """This round's hands: pinned, or ``sorted(range(deck_size), key=lambda _: rnd())``
    dealt in slices of ``hand`` (one ``random()`` key per card in index order, a stable
    sort of the indices by key), as the Python engine dealt."""
    cdef int i, j, p, h = c.hand, deck = c.deck_size
    cdef double keys[NUM_CARDS]
    cdef int order[NUM_CARDS]
    cdef double key
    cdef uint64_t bits
    if g.chance_index < g.n_pinned:
        for p in range(c.n):
            g.dealt[p] = g.pinned_hands[g.round_index][p]
    else:
        for i in range(deck):
            keys[i] = mt_random(&g.mt)
        for i in range(deck):  # insertion sort: stable, and 60 items
            key = keys[i]
            j = i
            while j > 0 and keys[order[j - 1]] > key:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        for p in range(c.n):
            bits = 0
            for i in range(p * h, (p + 1) * h):
                bits |= ONE << order[i]
            g.dealt[p] = bits
    g.chance_index += 1


cdef void start_round(Game* g, const Config* c) noexcept nogil:
    cdef int p, k, r = g.round_index, n = c.n
    cdef uint64_t bits
    cdef float* m = g.m
    deal_round(g, c)
    for p in range(n):
        g.hands[p] = g.dealt[p]
        for k in range(MAX_COLUMNS):
            g.col_suit[p][k] = NOBODY
            g.colcnt[r][p][k] = 0
        for k in range(NUM_SUITS):
            g.suit_col[p][k] = NOBODY
        g.empty_cols[p] = (1 << c.ncol) - 1
        g.voids[p] = 0
        g.nplayed[p] = 0
    g.trick_len = g.rating_len = 0
    g.led = NOBODY
    g.phase = PLAY
    g.leader = g.current = g.round_start
    g.tricks_done = g.take_rank = g.need = 0
    g.remaining = 0
    g.pending = NOBODY
    memcpy(m, c.template, c.master_size * sizeof(float))
    for p in range(n):
        bits = g.hands[p]
        while bits:
            m[c.o_hand + p * NUM_CARDS + __builtin_ctzll(bits)] = 1.0
            bits &= bits - 1
        m[c.o_score + p] = score_feature(g.total[p])
        if g.scored:
            m[c.o_last_perfect + p] = <float>(g.round_perfect[g.scored - 1][p] / 4.0)
    m[c.o_round + r] = 1.0
    m[c.o_phase + PLAY] = 1.0
    m[c.o_leader + g.leader] = 1.0
    m[c.o_round_start + g.round_start] = 1.0
    m[c.o_tricks_left] = <float>(c.hand / 16.0)


cdef void game_start(Game* g, const Config* c) noexcept nogil:
    """The first deal, once the generator is seeded and pinned chance set."""
    cdef int p
    g.round_index = g.scored = 0
    for p in range(MAX_PLAYERS):
        g.total[p] = 0
    g.last_len = 0
    g.chance_index = 0
    # [S] the first player of the first round is random (``rng.randrange(n)``).
    if g.n_pinned > 0:
        g.round_start = g.pinned_start
    else:
        g.round_start = <int>mt_randbelow(&g.mt, <uint64_t>c.n)
    g.chance_index = 1
    start_round(g, c)
    set_legal(g)


cdef void place(Game* g, const Config* c, int p, int card, int k) noexcept nogil:
    cdef int suit = card // VALUES, r = g.round_index
    cdef int count = g.colcnt[r][p][k]
    cdef int off = c.o_board + p * BOARD_FEATURES + k * COLUMN_FEATURES
    cdef float* m = g.m
    if not count:
        g.col_suit[p][k] = suit
        g.suit_col[p][suit] = k
        g.empty_cols[p] &= ~(1 << k)
        m[off + suit] = 1.0
    g.cols[r][p][k][count] = <int8_t>card
    count += 1
    g.colcnt[r][p][k] = <int8_t>count
    m[off + F_COUNT] = <float>(count / 5.0)
    m[off + F_ROOM] = <float>((c.limits[k] - count) / 5.0)  # [S] beyond the limit: sideways


cdef bint take_card(Game* g, const Config* c, int p, int card) noexcept nogil:
    """Take ``card`` for ``p``; False when ``p`` must now choose its column."""
    cdef int i, k, tc, suit = card // VALUES, value = card % VALUES
    cdef int empty
    cdef float* m = g.m
    g.remaining &= ~(ONE << card)
    g.need -= 1
    m[c.o_to_take + p] = <float>(g.need / 2.0)
    for i in range(g.trick_len):
        if g.trick_card[i] == card:
            tc = c.o_trick_card + g.trick_seat[i] * CARD_FEATURES
            m[tc + suit] = 0.0
            m[tc + F_VALUE + value] = 0.0
            break
    k = g.suit_col[p][suit]
    if k < 0:
        empty = g.empty_cols[p]
        if empty & (empty - 1):
            # [S] a suit without a column goes to an empty column of the taker's choice.
            g.pending = card
            m[c.o_pending + suit] = 1.0
            m[c.o_pending + F_VALUE + value] = 1.0
            set_phase(g, c, COLUMN)
            g.current = p
            return False
        # Options guarantee a column for every suit, so ``empty`` is never 0 here.
        k = 63 - __builtin_clzll(<uint64_t>empty)
    place(g, c, p, card, k)
    return True


cdef void end_round(Game* g, const Config* c) noexcept nogil:
    cdef int p, s, perfect, n = c.n, r = g.round_index
    cdef float* m = g.m
    for p in range(n):
        s = board_score_c(g.colcnt[r][p], c.limits, c.ncol, c.bonus, &perfect)
        g.round_scores[r][p] = s
        g.round_perfect[r][p] = perfect
        g.total[p] += s
    g.scored = r + 1
    g.round_index = r + 1
    if g.round_index == c.num_rounds:
        g.current = NOBODY
        g.phase = PLAY
        for p in range(n):
            m[c.o_score + p] = score_feature(g.total[p])
            m[c.o_last_perfect + p] = <float>(g.round_perfect[r][p] / 4.0)
        memset(m + c.o_phase, 0, NUM_PHASES * sizeof(float))
        m[c.o_tricks_left] = 0.0
        g.events |= GAME_OVER
        return
    # [S] each later round starts with the player after the previous round's first.
    g.round_start = (g.round_start + 1) % n
    start_round(g, c)
    g.events |= DEALT


cdef void finish_trick(Game* g, const Config* c) noexcept nogil:
    cdef int i, leader
    cdef float* m = g.m
    g.last_len = g.trick_len
    for i in range(g.trick_len):
        g.last_seat[i] = g.trick_seat[i]
        g.last_card[i] = g.trick_card[i]
        g.last_rating[i] = g.rating[i]
    # [R] the player who took two cards leads the next trick.
    leader = g.rating[c.leader_rank]
    g.rating_len = g.trick_len = 0
    g.led = NOBODY
    memset(m + c.trick_span_start, 0, c.trick_span_len * sizeof(float))
    g.tricks_done += 1
    if g.tricks_done == c.hand:
        end_round(g, c)
        return
    m[c.o_tricks_left] = <float>((c.hand - g.tricks_done) / 16.0)
    m[c.o_leader + g.leader] = 0.0
    m[c.o_leader + leader] = 1.0
    g.leader = leader
    set_phase(g, c, PLAY)
    g.current = leader


cdef void continue_taking(Game* g, const Config* c) noexcept nogil:
    """Hand out the trick's cards rating by rating, asking only for real choices."""
    cdef int i, taker, card = 0, n = c.n
    cdef uint64_t left
    while True:
        if g.need == 0:
            g.take_rank += 1
            if g.take_rank >= n:
                finish_trick(g, c)
                return
            g.need = c.takes[g.take_rank]
            continue
        taker = g.rating[g.take_rank]
        left = g.remaining
        if __builtin_popcountll(left) > g.need:
            if g.phase != TAKE:
                set_phase(g, c, TAKE)
            g.current = taker
            return
        # [D] every card left goes to this taker: no choice to ask for.
        for i in range(g.trick_len):
            card = g.trick_card[i]
            if (left >> card) & 1:
                break
        if not take_card(g, c, taker, card):
            return


cdef void play_card(Game* g, const Config* c, int p, int card) noexcept nogil:
    cdef int suit = card // VALUES, value = card % VALUES, pos = g.trick_len
    cdef int i, r, key, rank, seat, tc, tr = c.o_trick_rank, n = c.n
    cdef float* m = g.m
    g.hands[p] &= ~(ONE << card)
    m[c.o_hand + p * NUM_CARDS + card] = 0.0
    if not pos:
        g.led = suit
        m[c.o_led + suit] = 1.0
    elif suit != g.led:
        g.voids[p] |= 1 << g.led
    g.trick_seat[pos] = p
    g.trick_card[pos] = card
    g.trick_len = pos + 1
    g.played_by[p][g.nplayed[p]] = <int8_t>card
    g.nplayed[p] += 1
    m[c.o_seen + card] = 1.0
    tc = c.o_trick_card + p * CARD_FEATURES
    m[tc + suit] = 1.0
    m[tc + F_VALUE + value] = 1.0
    key = card_key_c(card, g.led, pos)
    rank = 0
    for i in range(pos):
        if g.keys[i] > key:
            rank += 1
    for i in range(pos):
        r = g.ranks[i]
        if r >= rank:
            seat = g.trick_seat[i]
            m[tr + seat * RANK_FEATURES + r] = 0.0
            m[tr + seat * RANK_FEATURES + r + 1] = 1.0
            g.ranks[i] = r + 1
    g.keys[pos] = key
    g.ranks[pos] = rank
    m[tr + p * RANK_FEATURES + rank] = 1.0
    if pos + 1 < n:
        g.current = p + 1 if p + 1 < n else 0
        return
    # [R] by rating, the strongest takes first, then the next, and so on.
    g.remaining = 0
    for i in range(n):
        g.rating[g.ranks[i]] = g.trick_seat[i]
        g.remaining |= ONE << g.trick_card[i]
    g.rating_len = n
    for r in range(n):
        m[c.o_to_take + g.rating[r]] = <float>(c.takes[r] / 2.0)
    g.take_rank = 0
    g.need = c.takes[0]
    continue_taking(g, c)


# --- the interface of every core (see CORE_CONTRACT / batch.pxi) ----------------------------

cdef int game_num_players(const Config* c) noexcept nogil:
    return c.n


cdef int game_num_actions(const Config* c) noexcept nogil:
    return NUM_ACTIONS


cdef int game_obs_size(const Config* c) noexcept nogil:
    return c.obs_size


cdef void game_new(Game* g, const Config* c, const uint32_t* key, int keylen) noexcept nogil:
    g.n_pinned = 0
    mt_seed_words(&g.mt, key, keylen)
    game_start(g, c)


cdef int game_apply(Game* g, const Config* c, int action) noexcept nogil:
    g.events = 0
    if action < TAKE_BASE:
        play_card(g, c, g.current, action)
    elif action < COLUMN_BASE:
        if take_card(g, c, g.current, action - TAKE_BASE):
            continue_taking(g, c)
    else:
        place(g, c, g.current, g.pending, action - COLUMN_BASE)
        g.pending = NOBODY
        memset(g.m + c.o_pending, 0, CARD_FEATURES * sizeof(float))
        continue_taking(g, c)
    set_legal(g)
    return g.events


cdef int game_current_player(const Game* g) noexcept nogil:
    return g.current


cdef bint game_is_legal(const Game* g, const Config* c, int action) noexcept nogil:
    cdef int k = action - g.legal_base
    return 0 <= k < 64 and (g.legal_bits >> k) & 1


cdef void game_mask(const Game* g, const Config* c, int8_t* out) noexcept nogil:
    cdef uint64_t bits = g.legal_bits
    cdef int8_t* at = out + g.legal_base
    memset(out, 0, NUM_ACTIONS)
    while bits:
        at[__builtin_ctzll(bits)] = 1
        bits &= bits - 1


cdef void game_observe(const Game* g, const Config* c, int player, float* out) noexcept nogil:
    cdef int i, j, length
    cdef const int16_t* src = c.run_src[player]
    cdef const int16_t* lengths = c.run_len[player]
    cdef const float* m
    for i in range(c.nruns[player]):
        length = lengths[i]
        m = g.m + src[i]
        memcpy(out, m, length * sizeof(float))
        out += length


cdef void game_scores(const Game* g, const Config* c, double* out) noexcept nogil:
    cdef int p
    for p in range(c.n):
        out[p] = g.total[p]


cdef inline int last_perfect(const Game* g, int p) noexcept nogil:
    return g.round_perfect[g.scored - 1][p] if g.scored else 0


cdef void game_returns(const Game* g, const Config* c, double* out) noexcept nogil:
    """``GameState.returns``: per player the mean over the others of +1 / 0 / -1 for
    finishing ahead / tied / behind, the standing keys compared in order."""
    cdef int i, j, s, n = c.n
    cdef int a0, a1, b0, b1
    for i in range(n):
        s = 0
        a0, a1 = g.total[i], last_perfect(g, i)
        for j in range(n):
            if j == i:
                continue
            b0, b1 = g.total[j], last_perfect(g, j)
            # [S] tie-break: most perfect columns in the last round's scoring.
            if a0 > b0 or (a0 == b0 and a1 > b1):
                s += 1
            elif a0 < b0 or (a0 == b0 and a1 < b1):
                s -= 1
        out[i] = s / <double>(n - 1 if n > 1 else 1)


# --- Python: the rule helpers tests, the heuristic and the views call ----------------------

def card_key(int card, int led, int position) -> int:
    """The strength key of ``card`` at ``position`` in a trick led in suit ``led``
    (larger is stronger; see ``scoring.rating``)."""
    return card_key_c(card, led, position)


def column_score(int cards, int limit) -> int:
    return column_score_c(cards, limit)


def board_score(counts, limits, bonus) -> tuple:
    """(round score, perfect columns) of a board whose columns hold ``counts`` cards
    with ``limits``, for the perfect ``bonus`` by number of perfect columns."""
    cdef int8_t c_counts[MAX_COLUMNS]
    cdef int c_limits[MAX_COLUMNS]
    cdef int c_bonus[MAX_COLUMNS + 1]  # indexed by up to MAX_COLUMNS perfect columns
    cdef int k, ncol, perfect, total
    pairs = list(zip(counts, limits))
    bonus = list(bonus)
    ncol = len(pairs)
    if ncol > MAX_COLUMNS or len(bonus) > MAX_COLUMNS + 1:
        raise ValueError(f"board_score: {ncol} columns and {len(bonus)} bonus entries; a "
                         f"board has at most {MAX_COLUMNS} columns")
    for k, (count, limit) in enumerate(pairs):
        if not 0 <= count <= VALUES or not 0 <= limit <= 1000:
            raise ValueError(f"board_score: column {k} holds {count!r} cards with limit {limit!r}")
        c_counts[k], c_limits[k] = count, limit
    memset(c_bonus, 0, sizeof(c_bonus))
    for k in range(len(bonus)):
        c_bonus[k] = bonus[k]
    total = board_score_c(c_counts, c_limits, ncol, c_bonus, &perfect)
    if perfect >= len(bonus):
        raise ValueError(f"board_score: {perfect} perfect columns, but perfect_bonus "
                         f"{bonus!r} stops at {len(bonus) - 1}")
    return total, perfect


# --- Python: the options in C form -----------------------------------------------------------

cdef class CoreConfig:
    """One options' ``Config`` (built by ``make_config``), shared read-only by every game
    of those options."""

    cdef Config c
    cdef readonly object options
    cdef readonly int num_players, obs_size, master_size

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS


def make_config(options) -> CoreConfig:
    """The C form of a ``CatsleBuildersOptions`` (and of its observation layout)."""
    from catzoo.games.catsle_builders.layout import layout_for

    cdef CoreConfig cfg = CoreConfig.__new__(CoreConfig)
    cdef Config* c = &cfg.c
    cdef int n = options.num_players, k, p, viewer, start, length
    limits, takes, bonus = tuple(options.limits), tuple(options.takes), tuple(options.perfect_bonus)
    hand, deck = options.hands, options.deck_size
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise ValueError(f"catsle_builders core: {n} players; {MIN_PLAYERS}-{MAX_PLAYERS} allowed")
    if not (0 < len(limits) <= MAX_COLUMNS and len(takes) == n and sum(takes) == n
            and len(bonus) <= MAX_COLUMNS and 0 < hand and hand * n <= deck <= NUM_CARDS
            and hand <= MAX_HAND and options.num_rounds <= NUM_ROUNDS):
        raise ValueError(f"catsle_builders core: options out of the core's range: {options!r}")
    memset(c, 0, sizeof(Config))
    c.n, c.num_suits, c.deck_size, c.hand = n, options.num_suits, deck, hand
    c.ncol, c.num_rounds, c.leader_rank = len(limits), options.num_rounds, options.leader_rank
    for k in range(len(limits)):
        c.limits[k] = limits[k]
    for k in range(n):
        c.takes[k] = takes[k]
    for k in range(len(bonus)):
        c.bonus[k] = bonus[k]
    L = layout_for(n)
    if L.master_size > MAX_MASTER or L.obs_size > MAX_OBS:
        raise ValueError("catsle_builders core: the layout outgrew MAX_MASTER / MAX_OBS")
    c.obs_size, c.master_size = L.obs_size, L.master_size
    b = L.base
    c.o_hand, c.o_board, c.o_trick_card = b["hand"], b["board"], b["trick_card"]
    c.o_trick_rank, c.o_to_take, c.o_led, c.o_seen = (b["trick_rank"], b["to_take"], b["led"],
                                                      b["seen"])
    c.o_score, c.o_last_perfect, c.o_round = b["score"], b["last_perfect"], b["round"]
    c.o_phase, c.o_pending, c.o_leader = b["phase"], b["pending"], b["leader"]
    c.o_round_start, c.o_tricks_left = b["round_start"], b["tricks_left"]
    # trick_card, trick_rank, to_take and led are consecutive: one span clears them.
    first, last = L.span("trick_card"), L.span("led")
    c.trick_span_start, c.trick_span_len = first.start, last.stop - first.start
    for viewer in range(n):
        index = [int(i) for i in L.view_index[viewer]]
        runs = []  # (no negative indices here: the module is compiled without wraparound)
        for i in index:
            if runs and runs[len(runs) - 1][0] + runs[len(runs) - 1][1] == i:
                runs[len(runs) - 1][1] += 1
            else:
                runs.append([i, 1])
        if len(runs) > MAX_RUNS:
            raise ValueError("catsle_builders core: a view has more runs than MAX_RUNS")
        c.nruns[viewer] = len(runs)
        for k, (start, length) in enumerate(runs):
            c.run_src[viewer][k], c.run_len[viewer][k] = start, length
    for p in range(n):
        for k in range(len(limits)):
            start = c.o_board + p * BOARD_FEATURES + k * COLUMN_FEATURES
            c.template[start + F_ROOM] = c.template[start + F_LIMIT] = <float>(limits[k] / 5.0)
    cfg.options = options
    cfg.num_players, cfg.obs_size, cfg.master_size = n, c.obs_size, c.master_size
    return cfg


# --- Python: one game ------------------------------------------------------------------------

cdef int check(int value, int limit, str what) except -1:
    if not 0 <= value < limit:
        raise ValueError(f"catsle_builders core: {what} {value} is out of range 0..{limit - 1}")
    return value


def _seed_words(seed) -> list:
    """The 32-bit words ``random.seed`` uses for an int seed: abs(seed)'s, least
    significant first (one word, 0, for 0)."""
    seed = abs(int(seed))
    words = []
    while True:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
        if not seed:
            return words


def _restore(options, bytes data):
    cdef Core core = Core(make_config(options))
    if len(data) != sizeof(Game):
        raise ValueError(f"catsle_builders core: a saved game of {len(data)} bytes, "
                         f"expected {sizeof(Game)}")
    memcpy(&core.g, <const char*>data, sizeof(Game))
    return core


cdef class Core:
    """One game, for the Python state: ``start`` deals (after ``seed`` or ``set_rng_state``
    and ``pin``), ``apply`` plays a legal action and returns the events (``GAME_OVER``,
    ``DEALT``), the properties read the game back, ``copy`` is a struct copy."""

    cdef Game g
    cdef readonly CoreConfig config
    cdef const Config* c

    def __init__(self, CoreConfig config):
        self.config = config
        self.c = &config.c
        memset(&self.g, 0, sizeof(Game))
        self.g.current = NOBODY

    def __reduce__(self):
        return _restore, (self.config.options, (<char*>&self.g)[:sizeof(Game)])

    cpdef Core copy(self):
        cdef Core other = Core.__new__(Core)
        other.config = self.config
        other.c = self.c
        memcpy(&other.g, &self.g, sizeof(Game))
        return other

    # --- chance ---------------------------------------------------------------------------
    def seed(self, seed) -> None:
        """Seed the generator as ``random.Random(seed)`` does for an int ``seed``."""
        words = _seed_words(seed)
        cdef uint32_t* key = <uint32_t*>malloc(len(words) * sizeof(uint32_t))
        if key == NULL:
            raise MemoryError()
        for i, w in enumerate(words):
            key[i] = w
        mt_seed_words(&self.g.mt, key, len(words))
        free(key)

    def set_rng_state(self, state) -> None:
        """Take over a ``random.Random``'s state (its ``getstate()``)."""
        version, internal, _ = state
        if version != 3 or len(internal) != MT_N + 1 or not 0 <= internal[MT_N] <= MT_N:
            raise ValueError("catsle_builders core: not a random.Random state")
        for i in range(MT_N):
            self.g.mt.state[i] = internal[i]
        self.g.mt.index = internal[MT_N]

    def rng_state(self) -> tuple:
        """The generator's state, for ``random.Random.setstate``."""
        return (3, tuple(self.g.mt.state[i] for i in range(MT_N)) + (self.g.mt.index,), None)

    def pin(self, start, deals) -> None:
        """Pinned chance, already checked by the caller: the first player (None: drawn)
        and the hands (bit sets) of the first rounds, used instead of drawing."""
        cdef int r, p, n = self.c.n
        if start is None:
            self.g.n_pinned = 0
            return
        if len(deals) > NUM_ROUNDS:
            raise ValueError(f"catsle_builders core: {len(deals)} pinned deals")
        self.g.pinned_start = check(start, n, "pinned first player")
        for r, hands in enumerate(deals):
            if len(hands) != n:
                raise ValueError(f"catsle_builders core: pinned deal {r} has {len(hands)} hands")
            for p in range(n):
                if not 0 <= hands[p] < (ONE << self.c.deck_size):
                    raise ValueError(f"catsle_builders core: pinned hand {hands[p]:#x}")
                self.g.pinned_hands[r][p] = hands[p]
        self.g.n_pinned = 1 + len(deals)

    def start(self) -> None:
        game_start(&self.g, self.c)

    def deal_record(self) -> tuple:
        """This round's deal as the chance record holds it: (hands, undealt), sorted."""
        cdef int p
        cdef uint64_t dealt = 0
        hands = []
        for p in range(self.c.n):
            hands.append(tuple(_cards(self.g.dealt[p])))
            dealt |= self.g.dealt[p]
        rest = ((ONE << self.c.deck_size) - 1) & ~dealt
        return tuple(hands), tuple(_cards(rest))

    # --- playing ----------------------------------------------------------------------------
    cpdef int apply(self, int action) except -1:
        """Apply a legal action (checked here too: C arrays are indexed by it); the events."""
        if not game_is_legal(&self.g, self.c, action) or self.g.current == NOBODY:
            raise ValueError(f"catsle_builders core: action {action} is not legal")
        return game_apply(&self.g, self.c, action)

    @property
    def legal(self):
        """The legal actions as a Python int bit set (bit a: action a)."""
        if self.g.legal_base:
            return <object>self.g.legal_bits << self.g.legal_base
        return self.g.legal_bits

    def is_legal(self, int action) -> bool:
        return game_is_legal(&self.g, self.c, action)

    def mask(self):
        out = _empty(NUM_ACTIONS, _INT8)
        cdef Py_buffer buf
        PyObject_GetBuffer(out, &buf, PyBUF_WRITABLE)
        game_mask(&self.g, self.c, <int8_t*>buf.buf)
        PyBuffer_Release(&buf)
        return out

    def observe(self, int player):
        check(player, self.c.n, "player")
        out = _empty(self.c.obs_size, _FLOAT32)
        cdef Py_buffer buf
        PyObject_GetBuffer(out, &buf, PyBUF_WRITABLE)
        game_observe(&self.g, self.c, player, <float*>buf.buf)
        PyBuffer_Release(&buf)
        return out

    def master(self):
        """A copy of the whole feature vector (every hand included)."""
        out = np.empty(self.c.master_size, dtype=np.float32)
        cdef float[::1] view = out
        memcpy(&view[0], self.g.m, self.c.master_size * sizeof(float))
        return out

    # --- results ----------------------------------------------------------------------------
    def scores(self) -> list:
        return [self.g.total[p] for p in range(self.c.n)]

    def standing_keys(self) -> list:
        # [S] tie-break: most perfect columns in the last round's scoring.
        return [(self.g.total[p], last_perfect(&self.g, p)) for p in range(self.c.n)]

    def returns(self):
        out = np.zeros(self.c.n, dtype=np.float64)
        cdef double[::1] view = out
        game_returns(&self.g, self.c, &view[0])
        return out

    # --- reading the game back --------------------------------------------------------------
    @property
    def current_player(self) -> int:
        return self.g.current

    @property
    def phase(self) -> int:
        return self.g.phase

    @property
    def leader(self) -> int:
        return self.g.leader

    @property
    def led(self) -> int:
        return self.g.led

    @property
    def pending(self) -> int:
        return self.g.pending

    @property
    def remaining(self):
        return self.g.remaining

    @property
    def take_rank(self) -> int:
        return self.g.take_rank

    @property
    def need(self) -> int:
        return self.g.need

    @property
    def round_start(self) -> int:
        return self.g.round_start

    @property
    def round_index(self) -> int:
        return self.g.round_index

    @property
    def tricks_done(self) -> int:
        return self.g.tricks_done

    def hand(self, int player):
        return self.g.hands[check(player, self.c.n, "player")]

    def hands(self) -> list:
        return [self.g.hands[p] for p in range(self.c.n)]

    def voids(self) -> list:
        return [self.g.voids[p] for p in range(self.c.n)]

    def empty_cols(self) -> list:
        return [self.g.empty_cols[p] for p in range(self.c.n)]

    def trick(self) -> list:
        return [(self.g.trick_seat[i], self.g.trick_card[i]) for i in range(self.g.trick_len)]

    def rating(self) -> list:
        return [self.g.rating[i] for i in range(self.g.rating_len)]

    def last_trick(self):
        cdef int i, k = self.g.last_len
        if not k:
            return None
        return ([(self.g.last_seat[i], self.g.last_card[i]) for i in range(k)],
                [self.g.last_rating[i] for i in range(k)])

    def played_by(self) -> list:
        return [[self.g.played_by[p][i] for i in range(self.g.nplayed[p])]
                for p in range(self.c.n)]

    def col_suit(self) -> list:
        return [[self.g.col_suit[p][k] for k in range(self.c.ncol)] for p in range(self.c.n)]

    def suit_col(self) -> list:
        return [[self.g.suit_col[p][s] for s in range(NUM_SUITS)] for p in range(self.c.n)]

    def boards(self, int r) -> list:
        """The columns' cards (in the order placed) of round ``r``'s boards."""
        cdef int p, k, i
        check(r, NUM_ROUNDS, "round")
        return [[[self.g.cols[r][p][k][i] for i in range(self.g.colcnt[r][p][k])]
                 for k in range(self.c.ncol)] for p in range(self.c.n)]

    def board_counts(self, int player) -> list:
        cdef int r = self.g.round_index
        check(player, self.c.n, "player")
        if r == self.c.num_rounds:  # the game is over: the last round's boards
            r -= 1
        return [self.g.colcnt[r][player][k] for k in range(self.c.ncol)]

    @property
    def scored(self) -> int:
        return self.g.scored

    def round_scores(self) -> list:
        return [[self.g.round_scores[r][p] for p in range(self.c.n)] for r in range(self.g.scored)]

    def round_perfect(self) -> list:
        return [[self.g.round_perfect[r][p] for p in range(self.c.n)] for r in range(self.g.scored)]

    # --- setting (re-sampling, scenarios) ---------------------------------------------------
    def set_hands(self, hands) -> None:
        """New hands (bit sets) for the players in ``hands`` (a dict), their features
        rewritten; the legal moves follow (the player to act may hold a new hand)."""
        cdef int p, base
        cdef uint64_t bits
        cdef uint64_t deck = (ONE << self.c.deck_size) - 1
        for p, bits in hands.items():
            check(p, self.c.n, "player")
            if bits & ~deck:
                raise ValueError(f"catsle_builders core: hand {bits:#x} holds cards beyond the deck")
        for p, bits in hands.items():
            self.g.hands[p] = bits
            base = self.c.o_hand + p * NUM_CARDS
            memset(self.g.m + base, 0, NUM_CARDS * sizeof(float))
            while bits:
                self.g.m[base + __builtin_ctzll(bits)] = 1.0
                bits &= bits - 1
        set_legal(&self.g)

    def set_total_scores(self, scores) -> None:
        if len(scores) != self.c.n:
            raise ValueError(f"catsle_builders core: {len(scores)} scores for {self.c.n} players")
        for p in range(self.c.n):
            self.g.total[p] = scores[p]

    def set_round_perfect(self, rows) -> None:
        """The perfect columns of the rounds scored so far (the last row is the tie-break)."""
        if len(rows) > NUM_ROUNDS or any(len(row) != self.c.n for row in rows):
            raise ValueError(f"catsle_builders core: round_perfect {rows!r} must hold at most "
                             f"{NUM_ROUNDS} rows of {self.c.n} counts")
        for r, row in enumerate(rows):
            for p in range(self.c.n):
                self.g.round_perfect[r][p] = row[p]
        self.g.scored = len(rows)


def _cards(uint64_t bits) -> list:
    out = []
    while bits:
        out.append(__builtin_ctzll(bits))
        bits &= bits - 1
    return out

