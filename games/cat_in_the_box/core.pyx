# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Cat in the Box, the whole game in C: deal, set-aside, predictions, tricks, paradox,
round scoring, game end, standing, observation encoding and legal moves.

One core serves the AEC env (``state.py``'s ``CatInTheBoxState`` owns a ``Core``) and the
batched engine (``BatchCore``, from games/batch.pxi, steps N ``Game`` structs), so the rules
exist once. It follows the core contract of docs/vector.md; its Python classes derive from
games/core_binding.pxi's. Sources are tagged as in docs/rules/cat_in_the_box.md: [R]
published rulebook (via rules-notes), [S] seed text, [D] a documented project decision.

Each game keeps its observation features in a "master" float vector, updated in place as
actions are applied (the layout of ``layout.py``: one block per feature, per seat where it
is per seat); a player's observation is that vector gathered through runs of consecutive
indices computed once per player count (``Config.run_*``).

Bit sets of research-board spaces use bit ``colour * 9 + (number - 1)``, colours blue 0,
yellow 1, green 2, red 3. A round's deal is the sorted deck shuffled by
``chance.shuffle(deck, random.Random(seed))``'s algorithm, drawn from CPython's MT19937 in C
(games/mt19937.pxi), so a seed deals the same game here and in ``random.Random``.
"""

import array

from libc.stdint cimport int8_t, int32_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

include "../mt19937.pxi"
include "../core_common.pxi"

cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil


# --- constants: defined here once, exported to Python ---------------------------------------
cpdef enum Phase:
    ASIDE = 0
    PREDICT = 1
    PLAY = 2

cpdef enum Action:
    ASIDE_BASE = 0      # 0-8: set aside a card numbered 1-9
    PREDICT_BASE = 9    # 9-13: predict 0-4 tricks
    PLAY_BASE = 14      # 14-49: play number k + 1 as colour c: 14 + c * 9 + k
    NUM_ACTIONS = 50

cpdef enum Board:
    NUMBERS = 9         # the board's columns (cards numbered 1-9)
    NUM_COLOURS = 4     # its rows: blue, yellow, green, red
    SPACES = 36
    RED = 3
    MAX_PREDICTION = 4

cdef enum:
    MAX_PLAYERS = 5
    MAX_ACTIONS = 50
    MAX_ROUNDS = 5
    MAX_TRICKS = 8      # tricks per round: hand size 10 less the set-aside and the last card
    MAX_DECK = 45
    MAX_MASTER = 464    # 457 at 5 players
    MAX_OBS = 400       # 385 at 5 players
    MAX_RUNS = 48       # runs of a view (see make_config)
    NOBODY = -1
    TRICK_FEATURES = 13  # trick_card block per seat: number one-hot (9), colour one-hot (4)

cdef uint64_t ONE = 1
cdef uint64_t ALL_NUMBERS = (ONE << NUMBERS) - 1
cdef uint64_t ALL_SPACES = (ONE << SPACES) - 1
cdef uint64_t NONRED = (ONE << (RED * NUMBERS)) - 1  # the blue, yellow and green rows
cdef uint64_t NOT_FIRST_COLUMN = 0, NOT_LAST_COLUMN = 0
# REPEAT[h]: a 9-bit set of numbers repeated in each of the 4 colour rows.
cdef uint64_t REPEAT[1 << NUMBERS]
cdef uint64_t COLOUR_ROW[NUM_COLOURS]
# The 8 mask bytes (0/1) of each byte of a legal bit set, lowest bit first.
cdef uint64_t BYTE_MASK[256]
cdef int _i, _j
for _i in range(1 << NUMBERS):
    REPEAT[_i] = (<uint64_t>_i) * (ONE | ONE << 9 | ONE << 18 | ONE << 27)
for _i in range(NUM_COLOURS):
    COLOUR_ROW[_i] = ALL_NUMBERS << (_i * NUMBERS)
    NOT_FIRST_COLUMN |= (ALL_NUMBERS & ~ONE) << (_i * NUMBERS)
    NOT_LAST_COLUMN |= (ALL_NUMBERS >> 1) << (_i * NUMBERS)
for _i in range(256):
    BYTE_MASK[_i] = 0
    for _j in range(8):
        if _i >> _j & 1:
            BYTE_MASK[_i] |= ONE << (8 * _j)


# --- the options in C ---------------------------------------------------------------------
ctypedef struct Config:
    int num_players, num_actions, hand_size, max_number, copies, deck_size
    int tricks_per_round, num_rounds
    int bonus_max_tricks    # [R] 2 players: the bonus for this many tricks or fewer
    uint64_t predict_bits   # the legal prediction actions, as action bits
    uint64_t base_blocked   # [R] the spaces of numbers outside the deck
    int rows[NUM_COLOURS]   # each colour's row from the top of the printed board
    double copies_f
    # the master vector's block starts (layout.py), its size and the observation size
    int o_hand, o_aside, o_board, o_blocked, o_markers, o_prediction, o_tricks, o_trick_card
    int o_led, o_score, o_round, o_phase, o_round_start, o_leader, o_played
    int master_size, obs_size
    # player p's observation: nruns[p] runs of master[src : src + length] -> obs[dst:]
    int nruns[MAX_PLAYERS]
    int run_src[MAX_PLAYERS][MAX_RUNS]
    int run_dst[MAX_PLAYERS][MAX_RUNS]
    int run_len[MAX_PLAYERS][MAX_RUNS]


# --- one game -------------------------------------------------------------------------------
ctypedef struct Game:
    float m[MAX_MASTER]                 # the master feature vector
    # the round in progress
    int phase, current_player, round_start, leader, led, tricks_done, paradox_player
    int red_broken, trick_length, red_leads
    uint64_t empty_bits, legal, blocked
    uint64_t hand_bits[MAX_PLAYERS]
    uint64_t marker_bits[MAX_PLAYERS]
    uint64_t tokens[MAX_PLAYERS]
    int counts[MAX_PLAYERS][NUMBERS]
    int aside[MAX_PLAYERS]
    int predictions[MAX_PLAYERS]
    int tricks[MAX_PLAYERS]
    int played[NUMBERS]
    int trick_player[MAX_PLAYERS]
    int trick_colour[MAX_PLAYERS]
    int trick_number[MAX_PLAYERS]
    # Exceptional red leads this round: who led, and the numbers it could have declared
    # in another colour (none in hand, which re-sampling must respect).
    int red_lead_player[MAX_TRICKS]
    int red_lead_numbers[MAX_TRICKS]
    # the last finished trick (read by the views; length -1: none yet; winner -1: a paradox)
    int last_length, last_winner
    int last_player[MAX_PLAYERS]
    int last_colour[MAX_PLAYERS]
    int last_number[MAX_PLAYERS]
    # the game
    int round_index, rounds_scored
    int total[MAX_PLAYERS]
    int round_scores[MAX_ROUNDS][MAX_PLAYERS]
    # what each finished round was scored from (the Python state's round_records)
    int rec_start[MAX_ROUNDS]
    int rec_tricks_done[MAX_ROUNDS]
    int rec_paradox[MAX_ROUNDS]
    int rec_predictions[MAX_ROUNDS][MAX_PLAYERS]
    int rec_tricks[MAX_ROUNDS][MAX_PLAYERS]
    uint64_t rec_tokens[MAX_ROUNDS][MAX_PLAYERS]
    # the round's deal: hands one after the other in seat order, then the leftover cards
    int deck[MAX_DECK]
    # pinned deals (GameState.new(chance=...)): decks of deck_size ints, used in order
    # before the generator (core_binding.pxi sets them)
    const char* pinned
    Py_ssize_t pinned_size
    MT mt


cdef int game_current_player(const Game* g) noexcept nogil:
    return g.current_player


cdef bint game_is_legal(const Game* g, const Config* c, int action) noexcept nogil:
    return 0 <= action < NUM_ACTIONS and (g.legal >> action) & 1


cdef void game_mask(const Game* g, const Config* c, int8_t* out) noexcept nogil:
    cdef int i
    cdef uint64_t bits = g.legal
    for i in range(6):  # 48 of the 50 bytes, eight at a time
        memcpy(out + 8 * i, &BYTE_MASK[(bits >> (8 * i)) & 0xFF], 8)
    out[48] = (bits >> 48) & 1
    out[49] = (bits >> 49) & 1


cdef void game_observe(const Game* g, const Config* c, int player, float* out) noexcept nogil:
    cdef int r
    for r in range(c.nruns[player]):
        memcpy(out + c.run_dst[player][r], g.m + c.run_src[player][r],
               c.run_len[player][r] * sizeof(float))


cdef void game_scores(const Game* g, const Config* c, double* out) noexcept nogil:
    cdef int p
    for p in range(c.num_players):
        out[p] = g.total[p]


cdef void game_standing_keys(const Game* g, const Config* c, double* keys) noexcept nogil:
    """[R] tie-break: the highest score in the final round; still tied, a shared win."""
    cdef int p
    for p in range(c.num_players):
        keys[2 * p] = g.total[p]
        keys[2 * p + 1] = g.round_scores[g.rounds_scored - 1][p] if g.rounds_scored else 0


cdef void game_returns(const Game* g, const Config* c, double* out) noexcept nogil:
    cdef double keys[2 * MAX_PLAYERS]
    game_standing_keys(g, c, keys)
    standing_returns(keys, 2, c.num_players, out)


# --- rules ----------------------------------------------------------------------------------
cdef inline int numbers_in(uint64_t spaces) noexcept nogil:
    """The 9-bit set of numbers having a space in any colour row of ``spaces``."""
    return <int>((spaces | spaces >> 9 | spaces >> 18 | spaces >> 27) & ALL_NUMBERS)


cdef int winner_of(int length, const int* players, const int* colours, const int* numbers,
                   int led) noexcept nogil:
    """[R] The highest red wins if any red was declared, else the highest of the led
    colour (no two cards of a trick share a colour and a number)."""
    cdef int i, best = NOBODY, best_number = -1
    for i in range(length):
        if colours[i] == RED and numbers[i] > best_number:
            best, best_number = players[i], numbers[i]
    if best == NOBODY:
        for i in range(length):
            if colours[i] == led and numbers[i] > best_number:
                best, best_number = players[i], numbers[i]
    return best


cdef int largest_group(uint64_t bits, const int* rows) noexcept nogil:
    """[R] Size of the largest orthogonally connected group among the spaces in ``bits``,
    on the board as printed: colour c's spaces lie in row ``rows[c]`` from the top."""
    cdef uint64_t left = 0, linked, group, grown
    cdef int colour, best
    for colour in range(NUM_COLOURS):
        left |= ((bits >> (colour * NUMBERS)) & ALL_NUMBERS) << (rows[colour] * NUMBERS)
    # Tokens with no neighbour are groups of one: set apart at once, they would each cost
    # a flood fill, and scattered tokens are the common case.
    linked = left & (((left << 1) & NOT_FIRST_COLUMN) | ((left >> 1) & NOT_LAST_COLUMN)
                     | (left << NUMBERS) | (left >> NUMBERS))
    best = 1 if left else 0
    left = linked
    while left:
        group = left & (~left + 1)
        while True:
            grown = (group | ((group << 1) & NOT_FIRST_COLUMN) | ((group >> 1) & NOT_LAST_COLUMN)
                     | (group << NUMBERS) | (group >> NUMBERS)) & left
            if grown == group:
                break
            group = grown
        if __builtin_popcountll(group) > best:
            best = __builtin_popcountll(group)
        left &= ~group
    return best


cdef void score_round(int n, const uint64_t* tokens, const int* tricks, const int* predictions,
                      int paradox_player, const int* rows, int bonus_max_tricks,
                      int* out) noexcept nogil:
    """[R] +1 per trick; the bonus (largest connected group of own tokens) for an exact
    prediction, or with 2 players for ``bonus_max_tricks`` tricks or fewer; the paradox
    player instead loses 1 per trick and gets no bonus."""
    cdef int p
    cdef bint earns
    for p in range(n):
        if p == paradox_player:
            out[p] = -tricks[p]
            continue
        earns = tricks[p] <= bonus_max_tricks if n == 2 else tricks[p] == predictions[p]
        out[p] = tricks[p] + (largest_group(tokens[p], rows) if earns else 0)


cdef inline float score_feature(int total) noexcept nogil:
    cdef double v = total / 50.0
    return <float>(4.0 if v > 4.0 else (-4.0 if v < -4.0 else v))


cdef void write_master(Game* g, const Config* c) noexcept nogil:
    """The whole master vector from the game's state (every round start, and ``load``);
    the steps keep it up to date incrementally."""
    cdef int p, k, s, i, n = c.num_players
    cdef float* m = g.m
    memset(m, 0, c.master_size * sizeof(float))
    for p in range(n):
        for k in range(NUMBERS):
            m[c.o_hand + p * NUMBERS + k] = g.counts[p][k] / c.copies_f
        if g.aside[p] >= 0:
            m[c.o_aside + p * NUMBERS + g.aside[p]] = 1.0
        for s in range(SPACES):
            if g.tokens[p] >> s & 1:
                m[c.o_board + p * SPACES + s] = 1.0
        for k in range(NUM_COLOURS):
            if g.marker_bits[p] & COLOUR_ROW[k]:
                m[c.o_markers + p * NUM_COLOURS + k] = 1.0
        if g.predictions[p] >= 0:
            m[c.o_prediction + p * (MAX_PREDICTION + 1) + g.predictions[p]] = 1.0
        m[c.o_tricks + p] = g.tricks[p] / 8.0
        m[c.o_score + p] = score_feature(g.total[p])
    for s in range(SPACES):
        if g.blocked >> s & 1:
            m[c.o_blocked + s] = 1.0
    for i in range(g.trick_length):
        m[c.o_trick_card + g.trick_player[i] * TRICK_FEATURES + g.trick_number[i]] = 1.0
        m[c.o_trick_card + g.trick_player[i] * TRICK_FEATURES + NUMBERS + g.trick_colour[i]] = 1.0
    if g.led >= 0:
        m[c.o_led + g.led] = 1.0
    m[c.o_round + (g.round_index if g.round_index < c.num_rounds else c.num_rounds - 1)] = 1.0
    m[c.o_phase + g.phase] = 1.0
    m[c.o_round_start + g.round_start] = 1.0
    m[c.o_leader + g.leader] = 1.0
    for k in range(NUMBERS):
        m[c.o_played + k] = g.played[k] / c.copies_f


cdef void count_hands(Game* g, const Config* c) noexcept nogil:
    """Counts and hand bits of every seat from the deal in ``deck``."""
    cdef int p, i, k, h = c.hand_size
    for p in range(c.num_players):
        for k in range(NUMBERS):
            g.counts[p][k] = 0
        for i in range(h):
            g.counts[p][g.deck[p * h + i]] += 1
        g.hand_bits[p] = 0
        for k in range(NUMBERS):
            if g.counts[p][k]:
                g.hand_bits[p] |= ONE << k


cdef uint64_t revealed_blocks(const int* revealed) noexcept nogil:
    """[R] 2 players: 3 of the 5 leftover cards are revealed; each revealed number blocks
    its green space, a second copy its yellow, a third its blue."""
    cdef int i, k
    cdef int seen[NUMBERS]
    cdef uint64_t blocked = 0
    memset(seen, 0, sizeof(seen))
    for i in range(3):
        k = revealed[i]
        blocked |= ONE << ((2 - seen[k]) * NUMBERS + k)
        seen[k] += 1
    return blocked


cdef int deal_round(Game* g, const Config* c) noexcept nogil:
    """This round's deal into ``deck`` (a pinned one, else shuffled from the generator
    exactly as ``chance.shuffle`` shuffles the sorted deck); returns the DEALT event."""
    cdef int i, k
    cdef Py_ssize_t size = c.deck_size * sizeof(int)
    if (g.round_index + 1) * size <= g.pinned_size:
        memcpy(g.deck, g.pinned + g.round_index * size, size)
    else:
        for k in range(c.max_number):
            for i in range(c.copies):
                g.deck[k * c.copies + i] = k
        mt_shuffle_ints_by_float(&g.mt, g.deck, c.deck_size)
    return DEALT


cdef void begin_round(Game* g, const Config* c) noexcept nogil:
    """Start the round just dealt: hands, board, markers; the start player sets aside."""
    cdef int p, k, n = c.num_players
    count_hands(g, c)
    g.blocked = c.base_blocked
    if n == 2:
        g.blocked |= revealed_blocks(g.deck + n * c.hand_size)
    for p in range(n):
        g.marker_bits[p] = COLOUR_ROW[0] | COLOUR_ROW[1] | COLOUR_ROW[2] | COLOUR_ROW[3]
        g.tokens[p] = 0
        g.aside[p] = g.predictions[p] = -1
        g.tricks[p] = 0
    for k in range(NUMBERS):
        g.played[k] = 0
    g.empty_bits = ALL_SPACES & ~g.blocked
    g.leader = g.current_player = g.round_start
    g.led = -1
    g.red_broken = 0
    g.tricks_done = g.trick_length = g.red_leads = 0
    g.paradox_player = NOBODY
    g.phase = ASIDE
    g.legal = compute_legal(g, c)
    write_master(g, c)


cdef void game_begin(Game* g, const Config* c) noexcept nogil:
    memset(g, 0, <size_t>(<char*>&g.pinned - <char*>g))  # all but the pins and generator
    g.last_length = -1
    # [D] seat 0 starts the first round; the env's seeding makes deals random, and a
    # full game gives every seat one round as start player.
    g.round_start = 0
    deal_round(g, c)
    begin_round(g, c)


cdef uint64_t compute_legal(const Game* g, const Config* c) noexcept nogil:
    cdef int p = g.current_player
    cdef uint64_t ok
    if p == NOBODY:
        return 0
    if g.phase == ASIDE:
        return g.hand_bits[p] << ASIDE_BASE
    if g.phase == PREDICT:
        return c.predict_bits
    # Spaces p may declare: empty, of a number in hand, of a colour whose marker is held.
    ok = g.empty_bits & REPEAT[g.hand_bits[p]] & g.marker_bits[p]
    # [R] the leader declares blue, yellow or green only, unless red is broken or no
    # other colour can be declared with any card in hand.
    if g.trick_length == 0 and not g.red_broken and ok & NONRED:
        ok &= NONRED
    return ok << PLAY_BASE


cdef inline void take_from_hand(Game* g, const Config* c, int p, int k) noexcept nogil:
    cdef int left = g.counts[p][k] - 1
    g.counts[p][k] = left
    if not left:
        g.hand_bits[p] &= ~(ONE << k)
    g.m[c.o_hand + p * NUMBERS + k] = left / c.copies_f


cdef inline void set_phase(Game* g, const Config* c, int phase) noexcept nogil:
    g.m[c.o_phase + g.phase] = 0.0
    g.m[c.o_phase + phase] = 1.0
    g.phase = phase


cdef inline void next_player(Game* g, const Config* c, int p, int phase_after) noexcept nogil:
    cdef int nxt = (p + 1) % c.num_players
    if nxt == g.round_start:
        set_phase(g, c, phase_after)
    g.current_player = nxt


cdef void clear_trick(Game* g, const Config* c) noexcept nogil:
    # Only the features the trick set are cleared: cheaper than zeroing the block.
    cdef int i, start
    for i in range(g.trick_length):
        start = c.o_trick_card + g.trick_player[i] * TRICK_FEATURES
        g.m[start + g.trick_number[i]] = 0.0
        g.m[start + NUMBERS + g.trick_colour[i]] = 0.0
    if g.led >= 0:
        g.m[c.o_led + g.led] = 0.0
    g.trick_length = 0
    g.led = -1


cdef void keep_last_trick(Game* g, int winner) noexcept nogil:
    cdef int i
    g.last_length = g.trick_length
    g.last_winner = winner
    for i in range(g.trick_length):
        g.last_player[i] = g.trick_player[i]
        g.last_colour[i] = g.trick_colour[i]
        g.last_number[i] = g.trick_number[i]


cdef void paradox(Game* g, const Config* c) noexcept nogil:
    # [R] the player to act cannot play: the round ends at once, the trick in progress
    # is won by nobody, the tokens stay.
    g.paradox_player = g.current_player
    if g.trick_length:
        keep_last_trick(g, NOBODY)
    clear_trick(g, c)


cdef bint play(Game* g, const Config* c, int p, int colour, int k) noexcept nogil:
    """Play a card; True when the round ended. When a follower is next, its legal moves
    are set here (the common case, written out because it runs most steps)."""
    cdef int led, space, q, winner, t, n = c.num_players
    cdef uint64_t ok
    cdef float* m = g.m
    if g.trick_length == 0:
        if colour == RED and not g.red_broken:
            # Record what this exceptional red lead revealed, for re-sampling.
            g.red_lead_player[g.red_leads] = p
            g.red_lead_numbers[g.red_leads] = numbers_in(g.empty_bits & g.marker_bits[p] & NONRED)
            g.red_leads += 1
        g.led = led = colour
        m[c.o_led + colour] = 1.0
    else:
        led = g.led
        if colour != led and g.marker_bits[p] & COLOUR_ROW[led]:
            # [R] a follower declaring another colour loses the led colour's X marker.
            g.marker_bits[p] &= ~COLOUR_ROW[led]
            m[c.o_markers + p * NUM_COLOURS + led] = 0.0
    take_from_hand(g, c, p, k)
    # [R] the declared space gets the player's token.
    space = colour * NUMBERS + k
    g.tokens[p] |= ONE << space
    g.empty_bits &= ~(ONE << space)
    m[c.o_board + p * SPACES + space] = 1.0
    g.played[k] += 1
    m[c.o_played + k] = g.played[k] / c.copies_f
    if colour == RED:
        g.red_broken = 1
    t = g.trick_length
    g.trick_player[t], g.trick_colour[t], g.trick_number[t] = p, colour, k
    g.trick_length = t + 1
    m[c.o_trick_card + p * TRICK_FEATURES + k] = 1.0
    m[c.o_trick_card + p * TRICK_FEATURES + NUMBERS + colour] = 1.0
    if t + 1 < n:
        g.current_player = q = (p + 1) % n
        # A follower: no red-lead restriction, so the moves are the playable spaces.
        ok = g.empty_bits & REPEAT[g.hand_bits[q]] & g.marker_bits[q]
        g.legal = ok << PLAY_BASE
        if not ok:
            paradox(g, c)
            return True
        return False
    winner = winner_of(n, g.trick_player, g.trick_colour, g.trick_number, led)
    keep_last_trick(g, winner)
    g.tricks[winner] += 1
    m[c.o_tricks + winner] = g.tricks[winner] / 8.0
    clear_trick(g, c)
    g.tricks_done += 1
    # [R] the last card in hand is never played: the round ends after its tricks.
    if g.tricks_done == c.tricks_per_round:
        return True
    # [R] the trick's winner leads the next.
    m[c.o_leader + g.leader] = 0.0
    g.leader = winner
    m[c.o_leader + winner] = 1.0
    g.current_player = winner
    return False


cdef int end_round(Game* g, const Config* c) noexcept nogil:
    """Score the round just ended, then deal the next or end the game; returns events."""
    cdef int p, r = g.round_index, n = c.num_players
    cdef int scores[MAX_PLAYERS]
    score_round(n, g.tokens, g.tricks, g.predictions, g.paradox_player, c.rows,
                c.bonus_max_tricks, scores)
    g.rec_start[r] = g.round_start
    g.rec_tricks_done[r] = g.tricks_done
    g.rec_paradox[r] = g.paradox_player
    for p in range(n):
        g.rec_predictions[r][p] = g.predictions[p]
        g.rec_tricks[r][p] = g.tricks[p]
        g.rec_tokens[r][p] = g.tokens[p]
        g.round_scores[r][p] = scores[p]
        g.total[p] += scores[p]
    g.rounds_scored = r + 1
    g.round_index = r + 1
    if g.round_index == c.num_rounds:
        g.current_player = NOBODY
        g.legal = 0
        for p in range(n):
            g.m[c.o_score + p] = score_feature(g.total[p])
        return GAME_OVER
    # [R] the round start player passes left each round.
    g.round_start = (g.round_start + 1) % n
    deal_round(g, c)
    begin_round(g, c)
    return DEALT


cdef int game_apply(Game* g, const Config* c, int action) noexcept nogil:
    cdef int p = g.current_player, k
    if action >= PLAY_BASE:
        if play(g, c, p, (action - PLAY_BASE) // NUMBERS, (action - PLAY_BASE) % NUMBERS):
            return end_round(g, c)
        if g.trick_length:
            return 0  # a follower to play: play() set the moves
    elif action >= PREDICT_BASE:
        g.predictions[p] = action - PREDICT_BASE
        g.m[c.o_prediction + p * (MAX_PREDICTION + 1) + action - PREDICT_BASE] = 1.0
        next_player(g, c, p, PLAY)
    else:
        # [R] each player sets one card aside, face down, in turn from the start player.
        k = action - ASIDE_BASE
        take_from_hand(g, c, p, k)
        g.aside[p] = k
        g.m[c.o_aside + p * NUMBERS + k] = 1.0
        # [R] 2 players do not predict.
        next_player(g, c, p, PLAY if c.num_players == 2 else PREDICT)
    g.legal = compute_legal(g, c)
    if not g.legal and g.phase == PLAY:
        paradox(g, c)
        return end_round(g, c)
    return 0


# --- Python: the binding every core shares, then this game's own ---------------------------
include "../core_binding.pxi"


cdef float* game_features(Game* g, const Config* c, Py_ssize_t* count) noexcept nogil:
    count[0] = c.master_size
    return g.m


cdef bytes pack_chance(const Config* c, pinned):
    """Pinned deals (hands, leftover) as decks in seat order, C ints one after the other."""
    decks = array.array("i")
    for index, outcome in enumerate(pinned):
        decks.extend(_checked_deal(c, index, outcome))
    return decks.tobytes()


cdef class CoreConfig(ConfigBinding):
    """The options in C form (``Config``), built once per options by ``make_config``."""

    @property
    def deck_size(self):
        return self.c.deck_size


def make_config(options) -> CoreConfig:
    """The ``Config`` of a ``CatInTheBoxOptions`` (with its observation layout)."""
    from catzoo.games.cat_in_the_box.layout import layout_for
    from catzoo.games.cat_in_the_box.options import COPIES, TWO_PLAYER_BONUS_MAX_TRICKS
    from catzoo.games.cat_in_the_box.scoring import row_positions

    cdef CoreConfig cfg = CoreConfig.__new__(CoreConfig)
    cdef Config* c = &cfg.c
    cdef int p, r, v
    n = options.num_players
    if not 2 <= n <= MAX_PLAYERS or options.num_rounds > MAX_ROUNDS:
        raise ValueError(f"cat_in_the_box core: {n} players, {options.num_rounds} rounds")
    cfg.options = options
    c.num_players = n
    c.num_actions = NUM_ACTIONS
    c.hand_size = options.hand_size
    c.max_number = options.max_number
    c.copies = COPIES
    c.copies_f = COPIES
    c.deck_size = c.max_number * c.copies
    c.tricks_per_round = options.tricks_per_round
    c.num_rounds = options.num_rounds
    c.bonus_max_tricks = TWO_PLAYER_BONUS_MAX_TRICKS
    if c.deck_size > MAX_DECK or c.tricks_per_round > MAX_TRICKS or c.max_number > NUMBERS:
        raise ValueError("cat_in_the_box core: a deck beyond the core's bounds")
    c.predict_bits = 0
    for v in options.allowed_predictions:
        c.predict_bits |= ONE << (PREDICT_BASE + v)
    c.base_blocked = REPEAT[ALL_NUMBERS & ~((ONE << c.max_number) - 1)]
    for colour, row in enumerate(row_positions(tuple(options.row_order))):
        c.rows[colour] = row
    layout = layout_for(n)
    at = layout.base
    (c.o_hand, c.o_aside, c.o_board, c.o_blocked, c.o_markers, c.o_prediction, c.o_tricks,
     c.o_trick_card, c.o_led, c.o_score, c.o_round, c.o_phase, c.o_round_start, c.o_leader,
     c.o_played) = [at[name] for name in ("hand", "aside", "board", "blocked", "markers",
                                          "prediction", "tricks", "trick_card", "led", "score",
                                          "round", "phase", "round_start", "leader", "played")]
    c.master_size = layout.master_size
    c.obs_size = layout.obs_size
    if c.master_size > MAX_MASTER or c.obs_size > MAX_OBS:
        raise ValueError("cat_in_the_box core: a layout beyond the core's bounds")
    # A view is a gather of the master vector; runs of consecutive indices copy in loops
    # the compiler vectorises, where an index per float would cost a load each.
    for p in range(n):
        runs = []
        for dst, src in enumerate(layout.view_index[p].tolist()):
            if runs and runs[len(runs) - 1][0] + runs[len(runs) - 1][2] == src:
                runs[len(runs) - 1][2] += 1
            else:
                runs.append([src, dst, 1])
        if len(runs) > MAX_RUNS:
            raise ValueError("cat_in_the_box core: a view of too many runs")
        c.nruns[p] = len(runs)
        for r, (src, dst, length) in enumerate(runs):
            c.run_src[p][r], c.run_dst[p][r], c.run_len[p][r] = src, dst, length
    return cfg


# --- Python: one game -----------------------------------------------------------------------------
# Field names of ``fields()`` / ``load()``: the whole game but its generator.
SCALARS = ("num_players", "tricks_per_round", "predict_bits", "phase", "current_player",
           "round_start", "leader", "led", "red_broken", "tricks_done", "paradox_player",
           "empty_bits", "legal", "blocked", "round_index")
ROWS = ("hand_bits", "marker_bits", "tokens", "aside", "predictions", "tricks")


cdef list _row(const int* values, int n):
    return [values[i] for i in range(n)]


cdef class Core(CoreBinding):
    """One game of Cat in the Box for the Python state (``CatInTheBoxState._core``): the
    binding of core_binding.pxi, and this game's readers and setters. The master feature
    vector is this object's buffer."""

    # --- playing -------------------------------------------------------------------------
    def refresh_legal(self):
        """Recompute the legal moves (after ``set_hand`` or ``load``)."""
        self.g.legal = compute_legal(&self.g, &self.config.c)

    def scores(self):
        return _row(self.g.total, self.config.c.num_players)

    def standing_keys(self):
        cdef double keys[2 * MAX_PLAYERS]
        cdef int p
        game_standing_keys(&self.g, &self.config.c, keys)
        return [(int(keys[2 * p]), int(keys[2 * p + 1])) for p in range(self.config.c.num_players)]

    def can_play(self, int p, int numbers):
        """Whether p could declare some space with a hand of these numbers (a 9-bit set):
        an empty space of its number in a colour whose marker p holds."""
        check(p, self.config.c.num_players, "player")
        return bool(self.g.empty_bits & REPEAT[numbers & ALL_NUMBERS] & self.g.marker_bits[p])

    def rebuilt_master(self) -> bytes:
        """The master vector written afresh from the game's state (tests compare it with
        the incrementally kept one)."""
        cdef Game copy = self.g
        write_master(&copy, &self.config.c)
        return (<char*>copy.m)[:self.config.c.master_size * sizeof(float)]

    # --- reading the game ----------------------------------------------------------------
    @property
    def tricks_per_round(self):
        return self.config.c.tricks_per_round
    @property
    def predict_bits(self):
        return self.config.c.predict_bits
    @property
    def phase(self):
        """ASIDE, PREDICT or PLAY."""
        return self.g.phase
    @property
    def round_start(self):
        """The round's start player (it sets aside and leads first)."""
        return self.g.round_start
    @property
    def leader(self):
        """The player who leads the trick in progress (the last trick's winner)."""
        return self.g.leader
    @property
    def led(self):
        """The led colour, or -1."""
        return self.g.led
    @property
    def red_broken(self):
        """Whether red was declared this round (leading red is then allowed)."""
        return bool(self.g.red_broken)
    @property
    def tricks_done(self):
        """Tricks finished this round."""
        return self.g.tricks_done
    @property
    def paradox_player(self):
        """Who caused a paradox this round (-1: nobody)."""
        return self.g.paradox_player
    @property
    def empty_bits(self):
        return self.g.empty_bits
    @property
    def legal(self):
        return self.g.legal
    @property
    def blocked(self):
        """Spaces no one may take: numbers outside the deck, 2-player neutral tokens (a
        bit set)."""
        return self.g.blocked
    @property
    def round_index(self):
        """Rounds finished (the round in progress, from 0)."""
        return self.g.round_index

    @property
    def counts(self):
        """Cards in hand: ``counts[p][k]`` of number k + 1 (a copy)."""
        return [_row(self.g.counts[p], NUMBERS) for p in range(self.config.c.num_players)]

    @property
    def hand_bits(self):
        return [self.g.hand_bits[p] for p in range(self.config.c.num_players)]

    @property
    def marker_bits(self):
        """Per player, the spaces of the colours whose X marker is still held."""
        return [self.g.marker_bits[p] for p in range(self.config.c.num_players)]

    @property
    def markers(self):
        """X markers still held: ``markers[p][colour]``."""
        cdef int p, k
        return [[bool(self.g.marker_bits[p] & COLOUR_ROW[k]) for k in range(4)]
                for p in range(self.config.c.num_players)]

    @property
    def tokens(self):
        """Each player's research-board spaces, as bit sets."""
        return [self.g.tokens[p] for p in range(self.config.c.num_players)]

    @property
    def aside(self):
        """Set-aside number - 1 per player, or -1."""
        return _row(self.g.aside, self.config.c.num_players)

    @property
    def predictions(self):
        """Prediction per player, or -1 before it is made."""
        return _row(self.g.predictions, self.config.c.num_players)

    @property
    def tricks(self):
        """Tricks won this round per player."""
        return _row(self.g.tricks, self.config.c.num_players)

    @property
    def played(self):
        """Cards of each number played this round."""
        return _row(self.g.played, NUMBERS)

    @property
    def trick(self):
        """The trick in progress: (player, colour, number - 1) per card, in play order."""
        return tuple([(self.g.trick_player[i], self.g.trick_colour[i], self.g.trick_number[i])
                      for i in range(self.g.trick_length)])

    @property
    def last_trick(self):
        """The last finished trick's cards and winner (None: a paradox), or None before
        the first."""
        if self.g.last_length < 0:
            return None
        cards = tuple([(self.g.last_player[i], self.g.last_colour[i], self.g.last_number[i])
                       for i in range(self.g.last_length)])
        return (cards, self.g.last_winner if self.g.last_winner != NOBODY else None)

    @property
    def red_lead_exceptions(self):
        """This round's red leads before red was broken: (leader, numbers it could have
        declared in another colour), which proves none of them was in hand."""
        return [(self.g.red_lead_player[i], self.g.red_lead_numbers[i])
                for i in range(self.g.red_leads)]

    @property
    def total_scores(self):
        """Each player's total score (a copy: assign a new list to change it)."""
        return _row(self.g.total, self.config.c.num_players)

    @total_scores.setter
    def total_scores(self, totals):
        self.set_scores(totals=totals)

    @property
    def round_scores(self):
        """Each finished round's scores (a copy: assign a new list to change them)."""
        return [_row(self.g.round_scores[r], self.config.c.num_players)
                for r in range(self.g.rounds_scored)]

    @round_scores.setter
    def round_scores(self, rounds):
        self.set_scores(rounds=rounds)

    @property
    def round_records(self):
        """What each finished round was scored from (copies)."""
        cdef int r, n = self.config.c.num_players
        return [{"start_player": self.g.rec_start[r],
                 "predictions": _row(self.g.rec_predictions[r], n),
                 "tricks": _row(self.g.rec_tricks[r], n),
                 "tricks_played": self.g.rec_tricks_done[r],
                 "paradox_player": self.g.rec_paradox[r],
                 "tokens": [self.g.rec_tokens[r][p] for p in range(n)],
                 "scores": _row(self.g.round_scores[r], n)}
                for r in range(min(self.g.round_index, self.g.rounds_scored))]

    @property
    def deal(self):
        """The round's deal as a chance outcome: (sorted hands, leftover cards)."""
        cdef Config* c = &self.config.c
        deck = _row(self.g.deck, c.deck_size)
        h, n = c.hand_size, c.num_players
        hands = tuple([tuple(sorted(deck[p * h:(p + 1) * h])) for p in range(n)])
        return (hands, tuple(deck[n * h:]))

    @property
    def leftover(self):
        """The round's cards dealt to no one (2 players: the first 3 revealed)."""
        cdef Config* c = &self.config.c
        return tuple(_row(self.g.deck + c.num_players * c.hand_size,
                          c.deck_size - c.num_players * c.hand_size))

    @leftover.setter
    def leftover(self, cards):
        self.set_leftover(cards)

    # --- changing the game from outside (re-sampling, scenarios) ----------------------------
    def set_hand(self, int p, counts):
        """Give p these counts per number (re-sampling hidden hands), features included."""
        cdef int k
        check(p, self.config.c.num_players, "player")
        if len(counts) != NUMBERS:
            raise ValueError(f"cat_in_the_box core: {len(counts)} counts, expected {NUMBERS}")
        checked = [check(v, self.config.c.copies + 1, "count") for v in counts]
        for k in range(NUMBERS):
            self.g.counts[p][k] = checked[k]
        self.g.hand_bits[p] = 0
        for k in range(NUMBERS):
            if self.g.counts[p][k]:
                self.g.hand_bits[p] |= ONE << k
            self.g.m[self.config.c.o_hand + p * NUMBERS + k] = self.g.counts[p][k] / self.config.c.copies_f

    def set_aside_card(self, int p, int k):
        """Make k p's set-aside card (re-sampling), features included."""
        check(p, self.config.c.num_players, "player")
        check(k, NUMBERS, "card")
        if self.g.aside[p] >= 0:
            self.g.m[self.config.c.o_aside + p * NUMBERS + self.g.aside[p]] = 0.0
        self.g.aside[p] = k
        self.g.m[self.config.c.o_aside + p * NUMBERS + k] = 1.0

    def set_leftover(self, leftover):
        """Rewrite the round's leftover cards (re-sampling the unseen ones)."""
        cdef Config* c = &self.config.c
        cdef int i, start = c.num_players * c.hand_size
        if len(leftover) != c.deck_size - start:
            raise ValueError(f"cat_in_the_box core: {len(leftover)} leftover cards, "
                             f"expected {c.deck_size - start}")
        checked = [check(k, c.max_number, "card") for k in leftover]
        for i in range(len(checked)):
            self.g.deck[start + i] = checked[i]

    def set_scores(self, totals=None, rounds=None):
        """Set the total scores and/or the finished rounds' scores (scenarios)."""
        cdef int p, r, n = self.config.c.num_players
        if totals is not None:
            if len(totals) != n:
                raise ValueError(f"cat_in_the_box core: {len(totals)} totals for {n} players")
        if rounds is not None:
            if len(rounds) > MAX_ROUNDS or any(len(row) != n for row in rounds):
                raise ValueError(f"cat_in_the_box core: at most {MAX_ROUNDS} rounds of {n} scores")
        if totals is not None:
            for p in range(n):
                self.g.total[p] = totals[p]
                self.g.m[self.config.c.o_score + p] = score_feature(self.g.total[p])
        if rounds is not None:
            for r, row in enumerate(rounds):
                for p in range(n):
                    self.g.round_scores[r][p] = row[p]
            self.g.rounds_scored = len(rounds)

    def fields(self) -> dict:
        """The whole game but its generator, as plain Python values (``load`` takes
        them back)."""
        out = {name: getattr(self, name) for name in SCALARS}
        out.update({name: getattr(self, name) for name in ROWS})
        out.update(counts=self.counts, played=self.played, trick=self.trick,
                   red_lead_exceptions=self.red_lead_exceptions, last_trick=self.last_trick,
                   total_scores=self.total_scores, round_scores=self.round_scores,
                   round_records=self.round_records, deck=_row(self.g.deck, self.config.c.deck_size))
        return out

    def load(self, fields: dict) -> None:
        """Set the game from ``fields`` (as ``fields()`` returns them), every value range
        checked first; the legal moves and the master vector follow from them."""
        cdef Game g = self.g  # a scratch copy: nothing changes unless all of it loads
        cdef Config* c = &self.config.c
        cdef int p, k, i, r, n = c.num_players
        if fields["num_players"] != n:
            raise ValueError(f"cat_in_the_box core: fields of {fields['num_players']} players, "
                             f"this game has {n}")
        if fields["tricks_per_round"] != c.tricks_per_round or fields["predict_bits"] != c.predict_bits:
            raise ValueError("cat_in_the_box core: fields of other options")
        if len(fields["trick"]) > n or len(fields["red_lead_exceptions"]) > c.tricks_per_round:
            raise ValueError("cat_in_the_box core: too many cards in the trick or red leads")
        g.phase = check(fields["phase"], 3, "phase")
        g.current_player = fields["current_player"]
        g.round_start = check(fields["round_start"], n, "player")
        g.leader = check(fields["leader"], n, "player")
        g.led = check_or_none(fields["led"], NUM_COLOURS, "colour")
        g.red_broken = bool(fields["red_broken"])
        g.tricks_done = check(fields["tricks_done"], c.tricks_per_round + 1, "tricks done")
        g.paradox_player = fields["paradox_player"]
        for p in (g.current_player, g.paradox_player):
            if p != NOBODY:
                check(p, n, "player")
        g.empty_bits = fields["empty_bits"] & ALL_SPACES
        g.blocked = fields["blocked"] & ALL_SPACES
        g.round_index = check(fields["round_index"], c.num_rounds + 1, "round")
        for p in range(n):
            counts = fields["counts"][p]
            if len(counts) != NUMBERS:
                raise ValueError(f"cat_in_the_box core: {len(counts)} counts, expected {NUMBERS}")
            g.hand_bits[p] = 0
            for k in range(NUMBERS):
                g.counts[p][k] = check(counts[k], c.copies + 1, "count")
                if g.counts[p][k]:
                    g.hand_bits[p] |= ONE << k
            g.marker_bits[p] = fields["marker_bits"][p] & ALL_SPACES
            g.tokens[p] = fields["tokens"][p] & ALL_SPACES
            g.aside[p] = check_or_none(fields["aside"][p], NUMBERS, "card")
            g.predictions[p] = check_or_none(fields["predictions"][p], MAX_PREDICTION + 1, "prediction")
            g.tricks[p] = check(fields["tricks"][p], c.tricks_per_round + 1, "tricks")
        for k in range(NUMBERS):
            g.played[k] = check(fields["played"][k], c.copies + 1, "count")
        g.trick_length = 0
        for p, colour, k in fields["trick"]:
            i = g.trick_length
            g.trick_player[i] = check(p, n, "player")
            g.trick_colour[i] = check(colour, NUM_COLOURS, "colour")
            g.trick_number[i] = check(k, NUMBERS, "card")
            g.trick_length += 1
        g.red_leads = 0
        for p, k in fields["red_lead_exceptions"]:
            g.red_lead_player[g.red_leads] = check(p, n, "player")
            g.red_lead_numbers[g.red_leads] = k & ALL_NUMBERS
            g.red_leads += 1
        last = fields["last_trick"]
        g.last_length = -1
        if last is not None:
            cards, winner = last
            if len(cards) > n:
                raise ValueError("cat_in_the_box core: too many cards in the last trick")
            g.last_winner = NOBODY if winner is None else check(winner, n, "player")
            for i, (p, colour, k) in enumerate(cards):
                g.last_player[i] = check(p, n, "player")
                g.last_colour[i] = check(colour, NUM_COLOURS, "colour")
                g.last_number[i] = check(k, NUMBERS, "card")
            g.last_length = len(cards)
        totals, rounds = fields["total_scores"], fields["round_scores"]
        if len(totals) != n or len(rounds) > c.num_rounds or any(len(row) != n for row in rounds):
            raise ValueError("cat_in_the_box core: scores of the wrong shape")
        for p in range(n):
            g.total[p] = totals[p]
        for r, row in enumerate(rounds):
            for p in range(n):
                g.round_scores[r][p] = row[p]
        g.rounds_scored = len(rounds)
        records = fields["round_records"]
        if len(records) > c.num_rounds:
            raise ValueError("cat_in_the_box core: too many round records")
        for r, record in enumerate(records):
            g.rec_start[r] = check(record["start_player"], n, "player")
            g.rec_tricks_done[r] = check(record["tricks_played"], c.tricks_per_round + 1, "tricks")
            g.rec_paradox[r] = record["paradox_player"]
            if g.rec_paradox[r] != NOBODY:
                check(g.rec_paradox[r], n, "player")
            for p in range(n):
                g.rec_predictions[r][p] = record["predictions"][p]
                g.rec_tricks[r][p] = record["tricks"][p]
                g.rec_tokens[r][p] = record["tokens"][p] & ALL_SPACES
        deck = fields["deck"]
        if len(deck) != c.deck_size:
            raise ValueError(f"cat_in_the_box core: a deck of {len(deck)} cards, expected {c.deck_size}")
        for i, k in enumerate(deck):
            g.deck[i] = check(k, c.max_number, "card")
        g.legal = compute_legal(&g, c)
        write_master(&g, c)
        self.g = g


cdef list _checked_deal(const Config* c, int index, outcome):
    """A pinned deal (hands, leftover) as a deck in seat order. The rules of a deal (its
    deck's composition too) are log_check.py's, which ``CompiledState.new`` applies first;
    this guards the C arrays (sizes and card ranges) for any other caller."""
    cdef int n = c.num_players, h = c.hand_size
    hands, leftover = pinned_hands(outcome, n, h, index, "leftover")
    if len(leftover) != c.deck_size - n * h:
        raise ValueError(f"cat_in_the_box: pinned deal {index} must leave "
                         f"{c.deck_size - n * h} cards over, got {len(leftover)}")
    deck = [k for hand in hands for k in hand] + leftover
    for k in deck:
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < c.max_number:
            raise ValueError(f"cat_in_the_box: pinned deal {index}: card {k!r} is not a "
                             f"number - 1 in 0..{c.max_number - 1}")
    return deck


# --- Python: the rules the scoring module and tests call directly ---------------------------------
def trick_winner(trick, int led) -> int:
    """The winner of ``trick``, a sequence of (player, colour, number - 1), led in ``led``."""
    cdef int players[MAX_PLAYERS]
    cdef int colours[MAX_PLAYERS]
    cdef int numbers[MAX_PLAYERS]
    cdef int length = 0
    if len(trick) > MAX_PLAYERS:
        raise ValueError(f"a trick has at most {MAX_PLAYERS} cards, got {len(trick)}")
    for p, colour, k in trick:
        players[length], colours[length], numbers[length] = p, colour, k
        length += 1
    return winner_of(length, players, colours, numbers, led)


cdef void _rows_of(rows, int* out) except *:
    cdef int colour
    if sorted(rows) != [0, 1, 2, 3]:
        raise ValueError(f"rows must be a permutation of 0-3, got {rows!r}")
    for colour in range(NUM_COLOURS):
        out[colour] = rows[colour]


cdef uint64_t _spaces(bits) except? 0:
    if not 0 <= bits <= ALL_SPACES:
        raise ValueError(f"a set of board spaces is a 36-bit int, got {bits!r}")
    return bits


def largest_group_of(bits, rows) -> int:
    """[R] Size of the largest orthogonally connected group among the spaces in ``bits``,
    colour c lying in row ``rows[c]`` of the printed board."""
    cdef int r[NUM_COLOURS]
    _rows_of(rows, r)
    return largest_group(_spaces(bits), r)


def round_scores_of(tokens, tricks, predictions, int paradox_player, rows,
                    int bonus_max_tricks) -> list:
    """[R] One round's scores (``score_round``); see ``scoring.round_scores``."""
    cdef int n = len(tricks), p
    cdef int r[NUM_COLOURS]
    cdef uint64_t tok[MAX_PLAYERS]
    cdef int tr[MAX_PLAYERS]
    cdef int pr[MAX_PLAYERS]
    cdef int out[MAX_PLAYERS]
    if not 0 < n <= MAX_PLAYERS or len(tokens) != n or len(predictions) != n:
        raise ValueError(f"round scores of 1-{MAX_PLAYERS} players, as many tokens, tricks "
                         f"and predictions; got {len(tokens)}, {n}, {len(predictions)}")
    _rows_of(rows, r)
    for p in range(n):
        tok[p], tr[p], pr[p] = _spaces(tokens[p]), tricks[p], predictions[p]
    score_round(n, tok, tr, pr, paradox_player, r, bonus_max_tricks, out)
    return [out[p] for p in range(n)]


include "../batch.pxi"
