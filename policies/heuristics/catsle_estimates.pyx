# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The CATsle Builders heuristic's estimates (``catsle_builders.estimates``), row by row in C.

The bot's reasoning is written once, in ``policies/heuristics/catsle_builders.py``'s
docstring and comments; this is its arithmetic. It runs at every step of a search's
rollouts (the networks that `best` searches over read these estimates as input features,
``catzoo.policies.features``) and of the batched trainer's games, where numpy's per-call
cost on batches of tens of rows made the estimates half of a move's CPU at CATsle Builders
(3 players, ``pimc:playouts=4``); a loop over a row's 60 cards costs microseconds.

Cython rather than numba or the like: the rules cores are Cython already (one toolchain,
built at install, nothing compiled at run time). tests/test_catsle_estimates.py holds it to
the vectorised formulas of the bot's description on random legal play.
"""

from libc.math cimport pow, rint
from libc.stdint cimport int64_t

import numpy as np

include "../../games/catsle_builders/constants.pxi"  # NUM_CARDS, VALUES, the layout's sizes


cdef inline double _pow(double x, long k) noexcept nogil:
    # numpy's ``x ** k`` squares for k == 2; the rest go through pow as numpy's do
    if k == 0:
        return 1.0
    if k == 1:
        return x
    if k == 2:
        return x * x
    return pow(x, <double>k)


cdef void _suit_values(const float[:, :] board, double perfect_step, double* out) noexcept nogil:
    """``board`` (5 columns, 8): the own board; ``out`` (5,) the value of one more card
    of each suit."""
    cdef int c, s, column
    cdef bint free_limited = False, empty, held
    cdef double cnt, lim
    for c in range(MAX_COLUMNS):
        empty = True
        for s in range(NUM_SUITS):
            if board[c, s] > 0:
                empty = False
        if empty and rint(<double>board[c, F_LIMIT] * 5) > 0:
            free_limited = True
    for s in range(NUM_SUITS):
        held, column = False, 0
        for c in range(MAX_COLUMNS):
            if board[c, s] > 0:
                held, column = True, c
                break
        if not held:
            out[s] = 1.0 if free_limited else -1.0
            continue
        cnt = rint(<double>board[column, F_COUNT] * 5)
        lim = rint(<double>board[column, F_LIMIT] * 5)
        if cnt < lim:
            out[s] = 1.0 + (perfect_step if cnt + 1 == lim else 0.0)
        elif cnt == lim and lim > 0:
            out[s] = -(lim + 1.0 + perfect_step)
        else:
            out[s] = -1.0


def suit_values(board, double perfect_step):
    """(B, 5) float64: the value of one more card of each suit for own boards
    ``(B, 5 columns, 8)``; a column made exactly full earns ``perfect_step`` more."""
    cdef const float[:, :, :] b = np.ascontiguousarray(board, dtype=np.float32)
    out = np.empty((b.shape[0], NUM_SUITS))
    cdef double[:, :] o = out
    cdef Py_ssize_t r
    for r in range(b.shape[0]):
        _suit_values(b[r], perfect_step, &o[r, 0])
    return out


def estimates(const float[:, :, :] board, const float[:, :] hand, const float[:, :] seen,
              const float[:, :, :] trick, const float[:, :] led, const float[:, :] leader,
              const float[:] tricks_left, const unsigned char[:] play_rows, int n,
              int num_suits, tuple takes, const int64_t[:, :, :] key, const double[:, :] comb,
              double perfect_step, double shed):
    """The bot's estimates of every row: ``(suit_value (B, 5), beat (B, 60), play (B, 60),
    unknown (B,))``, ``play`` only for rows flagged in ``play_rows`` (0 elsewhere).

    ``board`` is the own board (B, 5, 8); ``trick`` the trick cards of the seats after the
    viewer (B, n-1, 17); ``leader`` the leader one-hot over seats (B, n); ``key`` the
    core's trick rating ``card_key(card, led, position)`` as a table; ``comb[m, k]`` m
    choose k; ``perfect_step`` and ``shed`` the bot's constants (``catsle_builders``)."""
    cdef Py_ssize_t B = board.shape[0], r
    suit_out = np.zeros((B, NUM_SUITS))
    beat_out = np.zeros((B, NUM_CARDS))
    play_out = np.zeros((B, NUM_CARDS))
    unknown_out = np.zeros(B)
    cdef double[:, :] sv = suit_out, bt = beat_out, pl = play_out
    cdef double[:] uk = unknown_out
    cdef int take_count[MAX_PLAYERS]
    cdef int ranks = len(takes), i
    for i in range(ranks):
        take_count[i] = takes[i]
    cdef bint unseen[NUM_CARDS]
    cdef double values[NUM_SUITS]
    cdef double p_led[NUM_SUITS][VALUES]
    cdef double p_off[NUM_SUITS][VALUES]
    cdef double by_suit[NUM_SUITS][VALUES]
    cdef double at_least_suit[NUM_SUITS][VALUES + 1]
    cdef double at_least_all[VALUES]
    cdef double suit_total[NUM_SUITS]
    cdef double has_led[NUM_SUITS]
    cdef int lead[NUM_CARDS]
    cdef bint played[MAX_PLAYERS]
    cdef int other[MAX_PLAYERS]
    cdef int other_pos[MAX_PLAYERS]
    cdef double pool[MAX_PLAYERS]
    cdef double outcome[NUM_SUITS][MAX_PLAYERS]
    cdef int s, v, c, j, a, best_j, position, later, led_suit, lead_leader, stronger, extra
    cdef int before, rank, cs
    cdef double total, unknown, safe_total, hand_size, off, x, opt, pess, prob, beat, miss, best
    cdef double expected, term
    cdef float hs
    cdef int64_t mine
    with nogil:
        for r in range(B):
            _suit_values(board[r], perfect_step, values)
            for s in range(NUM_SUITS):
                sv[r, s] = values[s]
            total, unknown = 0.0, 0.0
            for c in range(NUM_CARDS):
                unseen[c] = c < num_suits * VALUES and hand[r, c] <= 0 and seen[r, c] <= 0
                if unseen[c]:
                    total += 1
                    unknown += values[c // VALUES]
            unknown = unknown / (total if total > 1 else 1.0) if total > 0 else 0.0
            uk[r] = unknown
            # The trick so far: the later seats' cards and where each sits in the play order.
            later = n - 1
            for j in range(n - 1):
                played[j] = False
                for a in range(CARD_FEATURES):
                    if trick[r, j, a] != 0:
                        played[j] = True
                if played[j]:
                    later -= 1
            # the led suit (the first largest of its one-hot), -1 before a card is led
            led_suit, best = -1, 0.0
            for s in range(NUM_SUITS):
                if led[r, s] != 0 and (led_suit < 0 or led[r, s] > best):
                    led_suit, best = s, led[r, s]
            for c in range(NUM_CARDS):
                lead[c] = led_suit if led_suit >= 0 else c // VALUES
            # The chance that one later player's card beats each card (``beat`` in the
            # docstring of catsle_builders.estimates).
            for s in range(NUM_SUITS):
                suit_total[s] = 0.0
                at_least_suit[s][VALUES] = 0.0
                for v in range(VALUES):
                    by_suit[s][v] = 1.0 if unseen[s * VALUES + v] else 0.0
                    suit_total[s] += by_suit[s][v]
                for v in range(VALUES - 1, -1, -1):
                    at_least_suit[s][v] = at_least_suit[s][v + 1] + by_suit[s][v]
            for v in range(VALUES):
                at_least_all[v] = 0.0
                for s in range(NUM_SUITS):
                    at_least_all[v] += at_least_suit[s][v]
            safe_total = total if total > 1 else 1.0
            hs = tricks_left[r] * <float>16.0
            hand_size = <double>hs if hs > 1 else 1.0
            for s in range(NUM_SUITS):
                has_led[s] = 1.0 - pow(1.0 - suit_total[s] / safe_total, hand_size)
                off = total - suit_total[s]
                for v in range(VALUES):
                    x = ((at_least_suit[s][v] - by_suit[s][v])
                         / (suit_total[s] if suit_total[s] > 1 else 1.0)
                         if suit_total[s] > 0 else 0.0)
                    p_led[s][v] = has_led[s] * x
                    x = ((at_least_all[v] - at_least_suit[s][v]) / (off if off > 1 else 1.0)
                         if off > 0 else 0.0)
                    p_off[s][v] = has_led[s] + (1.0 - has_led[s]) * x
            for c in range(NUM_CARDS):
                if total <= 0 or later <= 0:
                    bt[r, c] = 0.0
                elif c // VALUES == lead[c]:
                    bt[r, c] = p_led[lead[c]][c % VALUES]
                else:
                    bt[r, c] = p_off[lead[c]][c % VALUES]
            if not play_rows[r]:
                continue
            # The expected value taken after playing each card (``play`` there).
            lead_leader, best = 0, leader[r, 0]
            for j in range(1, n):
                if leader[r, j] > best:
                    lead_leader, best = j, leader[r, j]
            position = 0
            for j in range(n - 1):
                best_j, best = 0, trick[r, j, 0]
                for a in range(1, NUM_SUITS):
                    if trick[r, j, a] > best:
                        best_j, best = a, trick[r, j, a]
                s = best_j
                best_j, best = 0, trick[r, j, F_VALUE]
                for a in range(1, VALUES):
                    if trick[r, j, F_VALUE + a] > best:
                        best_j, best = a, trick[r, j, F_VALUE + a]
                other[j] = s * VALUES + best_j
                other_pos[j] = ((j + 1 - lead_leader) % n + n) % n
                if played[j]:
                    position += 1
            for s in range(NUM_SUITS):
                # the trick's values, own card first, sorted high to low (insertion sort)
                pool[0] = values[s]
                for j in range(n - 1):
                    x = values[other[j] // VALUES] if played[j] else unknown
                    i = j + 1
                    while i > 0 and pool[i - 1] < x:
                        pool[i] = pool[i - 1]
                        i -= 1
                    pool[i] = x
                before = 0
                for rank in range(n):
                    outcome[s][rank] = 0.0
                for rank in range(ranks):
                    if take_count[rank]:
                        opt, pess = 0.0, 0.0
                        for i in range(take_count[rank]):
                            opt = opt + pool[i]
                            pess = pess + pool[before + i]
                        outcome[s][rank] = 0.5 * (opt + pess)
                    before += take_count[rank]
            for c in range(NUM_CARDS):
                cs = c // VALUES
                mine = key[c, lead[c], position]
                stronger = 0
                for j in range(n - 1):
                    if played[j] and key[other[j], lead[c], other_pos[j]] > mine:
                        stronger += 1
                beat = bt[r, c]
                miss = 1.0 - beat
                expected = 0.0
                for extra in range(later + 1):
                    prob = comb[later, extra] * _pow(beat, extra) * _pow(miss, later - extra)
                    rank = stronger + extra
                    if rank > n - 1:
                        rank = n - 1
                    term = prob * outcome[cs][rank]
                    expected = expected + (0.0 if prob < 1e-6 else term)
                pl[r, c] = expected + shed * (c % VALUES)
    return suit_out, beat_out, play_out, unknown_out
