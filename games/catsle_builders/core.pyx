# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The whole game of CATsle Builders in C: deals, tricks, taking, columns, scoring.

One ``Game`` struct holds a game (plain C data, copied with ``memcpy``) and the C
functions below play it: the deal from Python's own generator (``mt19937.pxi``, so a
seed deals what ``random.Random(seed)`` deals), every phase, the round ends and the
game end, the legal moves, the observation (kept up to date in a float "master" vector
laid out as ``layout.py`` documents, and copied out per viewer) and the standing. The
Python state (``state.py``) owns a ``Core`` (the Python-facing class at the end, on
games/core_binding.pxi's binding) and the batched engine (``batch.pxi``) steps arrays of
``Game``: both run these functions, so the rules exist once. The core contract is in
docs/vector.md.

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

import array

from libc.stdint cimport int8_t, int16_t
from libc.string cimport memcpy, memset

include "../mt19937.pxi"
include "../core_common.pxi"  # CoreEvent (GAME_OVER, DEALT), standing_returns
include "constants.pxi"  # the game's constants, exported to Python too

cdef enum:
    MAX_ACTIONS = 125
    MAX_OBS = 484           # layout_for(5).obs_size (make_config checks the layout fits)
    MAX_MASTER = 724        # layout_for(5).master_size
    MAX_HAND = 20           # hand_size * players <= 60, at least 3 players
    MAX_RUNS = 40           # contiguous runs of a view in the master vector
    NOBODY = -1

cdef uint64_t ONE = 1
cdef uint64_t SUIT_BITS = (ONE << VALUES) - 1

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil
    int __builtin_clzll(unsigned long long) nogil


ctypedef struct Config:
    int num_players, num_actions, num_suits, deck_size, hand, ncol, num_rounds, leader_rank
    int limits[MAX_COLUMNS]
    int takes[MAX_PLAYERS]
    int bonus[MAX_COLUMNS]
    int obs_size, master_size
    # block starts in the master vector (layout.py)
    int o_hand, o_board, o_trick_card, o_trick_rank, o_to_take, o_led, o_seen, o_score
    int o_last_perfect, o_round, o_phase, o_pending, o_leader, o_round_start, o_tricks_left
    int trick_span_start, trick_span_len   # trick_card .. led: cleared after each trick
    int8_t holder[NUM_CARDS]               # whose hand a place of the shuffled deck is, or -1
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
    int chance_index                       # chance outcomes drawn or pinned so far
    float m[MAX_MASTER]
    # pinned chance (GameState.new(chance=...)), used in order instead of drawing: 64-bit
    # words, the first player, then each round's hands as bit sets (core_binding.pxi sets
    # them)
    const char* pinned
    Py_ssize_t pinned_size
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


cdef inline int pinned_outcomes(const Game* g, const Config* c) noexcept nogil:
    """The pinned chance outcomes: the first player, then as many deals as were pinned."""
    if not g.pinned_size:
        return 0
    return 1 + <int>((g.pinned_size // sizeof(uint64_t) - 1) // c.num_players)


cdef void deal_round(Game* g, const Config* c) noexcept nogil:
    """This round's hands: pinned, or ``sorted(range(deck_size), key=lambda _: rnd())``
    dealt in slices of ``hand``, ``rnd`` the game's ``random.Random().random``: one
    ``random()`` key per card in index order, a stable sort of the indices by key.

    A ``random()`` is the 53-bit integer of two draws over 2**53, so the integer orders
    as the float does; with the card's index below it, ties go to the lower index as a
    stable sort's do. The keys are uniform: a counting sort on their top 6 bits, then
    comparisons within each bucket (about one key each), places every card in the sorted
    deck in a few hundred operations, where a comparison sort mispredicts its branches."""
    cdef int i, j, k, bucket, place, deck = c.deck_size
    cdef uint64_t keys[NUM_CARDS]
    cdef uint64_t key, a, b
    cdef int start[65]
    cdef int order[NUM_CARDS]
    cdef int8_t holder
    for i in range(c.num_players):
        g.dealt[i] = 0
    if g.chance_index < pinned_outcomes(g, c):
        for i in range(c.num_players):
            g.dealt[i] = (<const uint64_t*>g.pinned)[1 + g.round_index * c.num_players + i]
        g.chance_index += 1
        return
    memset(start, 0, sizeof(start))
    for i in range(deck):
        a = mt_next32(&g.mt) >> 5
        b = mt_next32(&g.mt) >> 6
        keys[i] = (((a << 26) | b) << 6) | <uint64_t>i   # 59 bits
        start[(keys[i] >> 53) + 1] += 1
    for k in range(64):
        start[k + 1] += start[k]
    for i in range(deck):  # the cards bucket by bucket (stable: by index within one)
        bucket = <int>(keys[i] >> 53)
        order[start[bucket]] = i
        start[bucket] += 1
    # start[k] is now the end of bucket k: bucket k is order[start[k - 1]:start[k]].
    j = 0
    for k in range(64):
        for place in range(j, start[k]):
            key = keys[order[place]]
            i = j
            for bucket in range(j, start[k]):
                i += keys[order[bucket]] < key
            holder = c.holder[i]  # whose hand that place of the deck is, or -1: undealt
            if holder >= 0:
                g.dealt[holder] |= ONE << order[place]
        j = start[k]
    g.chance_index += 1


cdef void start_round(Game* g, const Config* c) noexcept nogil:
    cdef int p, k, r = g.round_index, n = c.num_players
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


cdef void game_begin(Game* g, const Config* c) noexcept nogil:
    """The first deal, the generator seeded and the pinned chance set."""
    cdef int p
    g.round_index = g.scored = 0
    for p in range(MAX_PLAYERS):
        g.total[p] = 0
    g.last_len = 0
    g.chance_index = 0
    # [S] the first player of the first round is random (``rng.randrange(n)``).
    if g.pinned_size:
        g.round_start = <int>(<const uint64_t*>g.pinned)[0]
    else:
        g.round_start = <int>mt_randbelow(&g.mt, <uint64_t>c.num_players)
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
    cdef int p, s, perfect, n = c.num_players, r = g.round_index
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
    cdef int i, taker, card = 0, n = c.num_players
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
    cdef int i, r, key, rank, seat, tc, tr = c.o_trick_rank, n = c.num_players
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


# --- the interface of every core (games/batch.pxi; the contract is in docs/vector.md) --------

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
    cdef int i, length
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
    for p in range(c.num_players):
        out[p] = g.total[p]


cdef inline int last_perfect(const Game* g, int p) noexcept nogil:
    return g.round_perfect[g.scored - 1][p] if g.scored else 0


cdef void game_standing_keys(const Game* g, const Config* c, double* keys) noexcept nogil:
    """Per player (total score, perfect columns in the last round scored): [S] the
    tie-break is the most perfect columns in the last round's scoring."""
    cdef int p
    for p in range(c.num_players):
        keys[2 * p] = g.total[p]
        keys[2 * p + 1] = last_perfect(g, p)


cdef void game_returns(const Game* g, const Config* c, double* out) noexcept nogil:
    cdef double keys[2 * MAX_PLAYERS]
    game_standing_keys(g, c, keys)
    standing_returns(keys, 2, c.num_players, out)


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


# --- Python: the binding every core shares, then this game's own ---------------------------
include "../core_binding.pxi"


cdef float* game_features(Game* g, const Config* c, Py_ssize_t* count) noexcept nogil:
    count[0] = c.master_size
    return g.m


cdef bytes pack_chance(const Config* c, pinned):
    """The pinned chance outcomes checked fully before any reaches the C arrays (the first
    player an int in range, each deal ``n`` hands of ``hand_size`` cards and the undealt
    cards, together each card of the deck once), as ``Game.pinned``'s words."""
    cdef int r, n = c.num_players
    pinned = tuple(pinned)
    if not pinned:
        return b""
    if len(pinned) > 1 + c.num_rounds:
        raise ValueError(f"catsle_builders: {len(pinned)} pinned chance outcomes; a game of "
                         f"{c.num_rounds} round(s) has {1 + c.num_rounds} (the first "
                         "player, then a deal per round)")
    words = array.array("Q", [_check_int(pinned[0], n, "the pinned first player")])
    deck = list(range(c.deck_size))
    for r in range(len(pinned) - 1):
        hands, undealt = pinned_hands(pinned[1 + r], n, c.hand, r + 1, "undealt")
        cards = [_check_int(k, c.deck_size, f"pinned deal {r + 1}: card")
                 for k in [k for hand in hands for k in hand] + undealt]
        if sorted(cards) != deck:
            raise ValueError(f"catsle_builders: pinned deal {r + 1}: the hands and the "
                             f"undealt cards must hold each card of 0..{c.deck_size - 1} "
                             "once")
        words.extend([sum(1 << int(k) for k in hand) for hand in hands])
    return words.tobytes()


cdef class CoreConfig(ConfigBinding):
    """One options' ``Config`` (built by ``make_config``), shared read-only by every game
    of those options."""


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
    c.num_players, c.num_suits, c.deck_size, c.hand = n, options.num_suits, deck, hand
    c.num_actions = NUM_ACTIONS
    c.ncol, c.num_rounds, c.leader_rank = len(limits), options.num_rounds, options.leader_rank
    for k in range(NUM_CARDS):
        c.holder[k] = k // hand if k < n * hand else -1
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
    return cfg


# --- Python: one game ------------------------------------------------------------------------

cdef _check_int(value, int limit, str what):
    if isinstance(value, bool) or not hasattr(value, "__index__") or not 0 <= value < limit:
        raise ValueError(f"catsle_builders: {what} {value!r} must be an int in 0..{limit - 1}")
    return value.__index__()


cdef class Core(CoreBinding):
    """One game of CATsle Builders for the Python state (``CatsleBuildersState._core``):
    the binding of core_binding.pxi, and this game's readers and setters. The master
    feature vector is this object's buffer.
    """

    @property
    def legal(self):
        """The legal actions as a Python int bit set (bit a: action a)."""
        if self.g.legal_base:
            return <object>self.g.legal_bits << self.g.legal_base
        return self.g.legal_bits

    def refresh_legal(self) -> None:
        """Recompute the legal moves (after a setter)."""
        set_legal(&self.g)

    # --- results ----------------------------------------------------------------------------
    def scores(self) -> list:
        return [self.g.total[p] for p in range(self.config.c.num_players)]

    def standing_keys(self) -> list:
        cdef double keys[2 * MAX_PLAYERS]
        cdef int p
        game_standing_keys(&self.g, &self.config.c, keys)
        return [(int(keys[2 * p]), int(keys[2 * p + 1])) for p in range(self.config.c.num_players)]

    # --- reading the game back --------------------------------------------------------------
    @property
    def phase(self):
        """PLAY, TAKE or COLUMN."""
        return self.g.phase
    @property
    def leader(self):
        """The player who leads the trick in progress."""
        return self.g.leader
    @property
    def led(self):
        """The led suit, or -1 before the trick's first card."""
        return self.g.led
    @property
    def pending(self):
        """The card just taken, waiting for its column (phase COLUMN), or -1."""
        return self.g.pending
    @property
    def remaining(self):
        """The finished trick's cards not taken yet (a bit set of cards)."""
        return self.g.remaining
    @property
    def take_rank(self):
        """The rating rank (0: strongest) of the player taking now."""
        return self.g.take_rank
    @property
    def need(self):
        """How many cards the player taking now has still to take."""
        return self.g.need
    @property
    def round_start(self):
        """The round's start player (it leads the first trick)."""
        return self.g.round_start
    @property
    def round_index(self):
        """The round in progress, from 0 (the number of rounds once the game is over)."""
        return self.g.round_index
    @property
    def tricks_done(self):
        """Tricks finished this round."""
        return self.g.tricks_done
    @property
    def scored(self):
        """Rounds scored so far (rows of ``round_scores``)."""
        return self.g.scored

    @property
    def hands(self):
        """Each hand as a bit set of cards."""
        return [self.g.hands[p] for p in range(self.config.c.num_players)]

    @property
    def voids(self):
        """Per player, the bit set of suits it failed to follow this round."""
        return [self.g.voids[p] for p in range(self.config.c.num_players)]

    @property
    def empty_cols(self):
        """Per player, the bit set of its columns still empty."""
        return [self.g.empty_cols[p] for p in range(self.config.c.num_players)]

    @property
    def trick(self):
        """(player, card) in play order."""
        return [(self.g.trick_seat[i], self.g.trick_card[i]) for i in range(self.g.trick_len)]

    @property
    def rating(self):
        """The seats by rating, strongest first, once the trick is complete."""
        return [self.g.rating[i] for i in range(self.g.rating_len)]

    @property
    def last_trick(self):
        """(trick, rating) of the last finished trick, or None."""
        cdef int i, k = self.g.last_len
        if not k:
            return None
        return ([(self.g.last_seat[i], self.g.last_card[i]) for i in range(k)],
                [self.g.last_rating[i] for i in range(k)])

    @property
    def played_by(self):
        """The cards each player played this round, in order."""
        return [[self.g.played_by[p][i] for i in range(self.g.nplayed[p])]
                for p in range(self.config.c.num_players)]

    @property
    def col_suit(self):
        """``col_suit[p][k]``: the suit of p's column k, or -1 while it is empty."""
        cdef int p, k
        return [[self.g.col_suit[p][k] for k in range(self.config.c.ncol)]
                for p in range(self.config.c.num_players)]

    @property
    def suit_col(self):
        """``suit_col[p][s]``: p's column holding suit s, or -1."""
        cdef int p, s
        return [[self.g.suit_col[p][s] for s in range(NUM_SUITS)] for p in range(self.config.c.num_players)]

    def boards(self, int r) -> list:
        """The columns' cards (in the order placed) of round ``r``'s boards."""
        cdef int p, k, i
        check(r, self.config.c.num_rounds, "round")
        return [[[self.g.cols[r][p][k][i] for i in range(self.g.colcnt[r][p][k])]
                 for k in range(self.config.c.ncol)] for p in range(self.config.c.num_players)]

    def board_counts(self, int player) -> list:
        """This round's column counts of ``player`` (the last round's once the game is over)."""
        cdef int k, r = self.g.round_index
        check(player, self.config.c.num_players, "player")
        if r == self.config.c.num_rounds:
            r -= 1
        return [self.g.colcnt[r][player][k] for k in range(self.config.c.ncol)]

    @property
    def round_scores(self):
        """Each scored round's scores."""
        return [[self.g.round_scores[r][p] for p in range(self.config.c.num_players)]
                for r in range(self.g.scored)]

    @property
    def total_scores(self):
        """Each player's total score (a copy: assign a new list to change it)."""
        return self.scores()

    @total_scores.setter
    def total_scores(self, totals):
        self.set_scores(totals=totals)

    @property
    def round_perfect(self):
        """Each scored round's perfect columns per player (the last row is the tie-break;
        assign new rows to change them)."""
        return [[self.g.round_perfect[r][p] for p in range(self.config.c.num_players)]
                for r in range(self.g.scored)]

    @round_perfect.setter
    def round_perfect(self, rows):
        self.set_scores(perfect=rows)

    @property
    def deal(self):
        """This round's deal as the chance record holds it: (sorted hands, sorted undealt)."""
        cdef int p
        cdef uint64_t dealt = 0
        hands = []
        for p in range(self.config.c.num_players):
            hands.append(tuple(_cards(self.g.dealt[p])))
            dealt |= self.g.dealt[p]
        return tuple(hands), tuple(_cards(((ONE << self.config.c.deck_size) - 1) & ~dealt))

    # --- changing the game from outside (re-sampling, scenarios) ----------------------------
    def set_hands(self, hands) -> None:
        """New hands (bit sets) for the players in ``hands`` (a dict), their features
        rewritten; then ``refresh_legal`` (the player to act may hold a new hand)."""
        cdef Config* c = &self.config.c
        cdef int p, base
        cdef uint64_t bits
        cdef uint64_t deck = (ONE << c.deck_size) - 1
        for p, bits in hands.items():
            check(p, c.num_players, "player")
            if bits & ~deck:
                raise ValueError(f"catsle_builders core: hand {bits:#x} holds cards beyond the deck")
        for p, bits in hands.items():
            self.g.hands[p] = bits
            base = c.o_hand + p * NUM_CARDS
            memset(self.g.m + base, 0, NUM_CARDS * sizeof(float))
            while bits:
                self.g.m[base + __builtin_ctzll(bits)] = 1.0
                bits &= bits - 1
        set_legal(&self.g)

    def set_scores(self, totals=None, perfect=None) -> None:
        """Set the total scores and/or the rounds' perfect columns (scenarios: the last
        row is the tie-break; the rows are the rounds scored so far)."""
        cdef int p, r, n = self.config.c.num_players
        if totals is not None:
            if len(totals) != n:
                raise ValueError(f"catsle_builders core: {len(totals)} scores for {n} players")
            for p in range(n):
                self.g.total[p] = totals[p]
        if perfect is not None:
            if len(perfect) > self.config.c.num_rounds or any(len(row) != n for row in perfect):
                raise ValueError(f"catsle_builders core: round_perfect {perfect!r} must hold at "
                                 f"most {self.config.c.num_rounds} rows of {n} counts")
            for r, row in enumerate(perfect):
                for p in range(n):
                    self.g.round_perfect[r][p] = row[p]
            self.g.scored = len(perfect)


cdef list _cards(uint64_t bits):
    out = []
    while bits:
        out.append(__builtin_ctzll(bits))
        bits &= bits - 1
    return out


include "../batch.pxi"
