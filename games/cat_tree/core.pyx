# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Cat Tree, the whole game in C: the deal, keeps, reveal, placing order, placements,
what counts, the shared score, the observations and the legal moves.

This is the one source of the game's rules and constants (docs/rules/cat_tree.md; [S] seed
text, [D] a project decision). ``state.py`` (the AEC env's engine, the bots', the oracle's)
owns a ``Core`` and delegates every step to it; the batched engine (``catzoo.vector``)
steps arrays of ``Game`` through the same functions. The pure-Python rule helpers that
tools call directly (``placement.legal_classes``, ``scoring.points``, ``gain``,
``toy_points``, ``Rules.ball``...) are these functions, exported below. The core contract
is in docs/vector.md; the Python classes derive from games/core_binding.pxi's.

Cell sets are bit sets over the grid, bit ``row * width + column`` with row 0 the bottom
row, held in C as ``Cells`` (3 x 64 bits: grids up to 12 x 12) and in Python as ints.

Observations: ``Game.obs`` keeps both players' observations ready side by side (viewer 0's,
then viewer 1's: the layout of ``layout.py``, whose block positions ``CoreConfig`` reads),
every feature written where it changes, a public or seat feature in both halves, a private
one in its owner's; ``game_observe`` is one copy.
"""

from cpython.buffer cimport PyBuffer_FillInfo
from libc.stdint cimport int8_t, int16_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

include "../mt19937.pxi"
include "../core_common.pxi"  # CoreEvent: GAME_OVER, DEALT


cdef extern from *:
    int __builtin_popcountll(unsigned long long) nogil
    int __builtin_ctzll(unsigned long long) nogil

cdef extern from "Python.h":
    object _PyLong_FromByteArray(const unsigned char* data, size_t n, int little_endian,
                                 int is_signed)

# --- constants (exported to Python: options.py, placement.py, state.py import them) ---------
# [S] the 8 ranks used are 8 structures, in this order (the type index).
cpdef enum:
    PIPE = 0
    SCRATCHER = 1
    HAMMOCK = 2
    CATWALK = 3
    BOX = 4
    TOY = 5
    SHELF = 6
    NEST = 7
    NUM_TYPES = 8
    COPIES = 4  # [S] four suits
    DECK_SIZE = 32
    MAX_TURNS = 8  # [S] "repeat this step 7 more times": 8 turns deal out the 32 cards
    CARDS_PER_TURN = 4  # [S] 2 cards for each of the 2 players
    PIPE_SIDE_POINTS = 3  # [S] "+ 3 points by side attached"
    ALTITUDE_FACTOR = 2  # [S] the altitude bonus doubles a card's points
    # the legality classes (see RULE_OF_TYPE)
    ON_FLAT = 0
    BOTH_SIDES = 1
    FLAT_OR_SIDES = 2
    OFF_FLOOR = 3
    # phases and the flat action space
    KEEP = 0
    ORDER = 1
    PLACE = 2
    KEEP_BASE = 0
    ORDER_BASE = 2
    PLACE_BASE = 4
    ME_FIRST = 2
    PARTNER_FIRST = 3

cdef enum:
    TERMINAL = -1  # games/base.py's TERMINAL: the player to act once the game is over
    NUM_PLAYERS = 2
    MAX_PLAYERS = 2
    MAX_WIDTH = 12  # options.py allows 3..12 x 2..12
    MAX_CELLS = 144
    WORDS = 3  # 64-bit words of a cell set: 192 >= MAX_CELLS
    MAX_PIECES = 16  # 2 per turn
    MAX_ACTIONS = PLACE_BASE + MAX_CELLS + 1
    # the layout's size (11 * cells + 59, layout.py) on the largest grid; CoreConfig checks
    MAX_OBS = 11 * MAX_CELLS + 59

# [S] base points of each structure (pipe: before its attached sides).
cdef int BASE[8]
BASE[:] = [5, 5, 8, 8, 5, 5, 5, 5]
# Which legality class each type uses [S]/[D]: pipe, scratcher, toy on a flat surface;
# hammock, catwalk attached by both sides; box, nest either; shelf anywhere off the floor.
cdef int RULE[8]
RULE[:] = [ON_FLAT, ON_FLAT, BOTH_SIDES, BOTH_SIDES, FLAT_OR_SIDES, ON_FLAT, OFF_FLOOR,
           FLAT_OR_SIDES]
# [S] "You can build on top": scratcher, box, shelf, nest; "it can be used to hang on the
# sides": box, shelf, nest.
cdef bint IS_CARRIER[8]
IS_CARRIER[:] = [0, 1, 0, 0, 1, 0, 1, 1]
cdef bint IS_HANGER[8]
IS_HANGER[:] = [0, 0, 0, 0, 1, 0, 1, 1]
# the types whose points are their own only (no group), unless a pipe is beside them
cdef bint PLAIN[8]
PLAIN[:] = [0, 0, 1, 1, 1, 0, 1, 1]
# observation and final reward: score / 100, the score feature clipped at 4
cdef double SCORE_SCALE_C = 100.0
cdef double SCORE_CLIP = 4.0

BASE_POINTS = tuple([BASE[k] for k in range(NUM_TYPES)])
RULE_OF_TYPE = tuple([RULE[k] for k in range(NUM_TYPES)])
CARRIES = tuple([k for k in range(NUM_TYPES) if IS_CARRIER[k]])
HANGS = tuple([k for k in range(NUM_TYPES) if IS_HANGER[k]])
DECK = tuple([t for t in range(NUM_TYPES) for _ in range(COPIES)])
SCORE_SCALE = SCORE_SCALE_C
PHASES = ("keep", "order", "place")


# --- cell sets ------------------------------------------------------------------------------
ctypedef struct Cells:
    uint64_t w[WORDS]


cdef inline Cells c_zero() noexcept nogil:
    cdef Cells r
    r.w[0] = 0
    r.w[1] = 0
    r.w[2] = 0
    return r


cdef inline Cells c_bit(int i) noexcept nogil:
    cdef Cells r = c_zero()
    r.w[i >> 6] = (<uint64_t>1) << (i & 63)
    return r


cdef inline bint c_test(Cells a, int i) noexcept nogil:
    return (a.w[i >> 6] >> (i & 63)) & 1


cdef inline bint c_any(Cells a) noexcept nogil:
    return (a.w[0] | a.w[1] | a.w[2]) != 0


cdef inline bint c_eq(Cells a, Cells b) noexcept nogil:
    return a.w[0] == b.w[0] and a.w[1] == b.w[1] and a.w[2] == b.w[2]


cdef inline Cells c_or(Cells a, Cells b) noexcept nogil:
    a.w[0] |= b.w[0]
    a.w[1] |= b.w[1]
    a.w[2] |= b.w[2]
    return a


cdef inline Cells c_and(Cells a, Cells b) noexcept nogil:
    a.w[0] &= b.w[0]
    a.w[1] &= b.w[1]
    a.w[2] &= b.w[2]
    return a


cdef inline Cells c_xor(Cells a, Cells b) noexcept nogil:
    a.w[0] ^= b.w[0]
    a.w[1] ^= b.w[1]
    a.w[2] ^= b.w[2]
    return a


cdef inline Cells c_andnot(Cells a, Cells b) noexcept nogil:
    """a & ~b"""
    a.w[0] &= ~b.w[0]
    a.w[1] &= ~b.w[1]
    a.w[2] &= ~b.w[2]
    return a


cdef inline bint c_meets(Cells a, Cells b) noexcept nogil:
    """a & b is not empty"""
    return ((a.w[0] & b.w[0]) | (a.w[1] & b.w[1]) | (a.w[2] & b.w[2])) != 0


cdef inline int c_count(Cells a) noexcept nogil:
    return (__builtin_popcountll(a.w[0]) + __builtin_popcountll(a.w[1])
            + __builtin_popcountll(a.w[2]))


cdef inline Cells c_shl(Cells a, int k) noexcept nogil:
    """a << k for 0 < k < 64 (bits past the 192 dropped: past every grid)"""
    cdef Cells r
    r.w[2] = (a.w[2] << k) | (a.w[1] >> (64 - k))
    r.w[1] = (a.w[1] << k) | (a.w[0] >> (64 - k))
    r.w[0] = a.w[0] << k
    return r


cdef inline Cells c_shr(Cells a, int k) noexcept nogil:
    """a >> k for 0 < k < 64"""
    cdef Cells r
    r.w[0] = (a.w[0] >> k) | (a.w[1] << (64 - k))
    r.w[1] = (a.w[1] >> k) | (a.w[2] << (64 - k))
    r.w[2] = a.w[2] >> k
    return r


cdef inline Cells c_low(Cells a) noexcept nogil:
    """a & -a: the lowest cell of a (empty for an empty set)"""
    cdef Cells r = c_zero()
    if a.w[0]:
        r.w[0] = a.w[0] & (~a.w[0] + 1)
    elif a.w[1]:
        r.w[1] = a.w[1] & (~a.w[1] + 1)
    elif a.w[2]:
        r.w[2] = a.w[2] & (~a.w[2] + 1)
    return r


cdef inline int c_pop(Cells* a) noexcept nogil:
    """The index of the lowest cell of a non-empty set, removed from it."""
    cdef int i
    if a.w[0]:
        i = __builtin_ctzll(a.w[0])
        a.w[0] &= a.w[0] - 1
        return i
    if a.w[1]:
        i = __builtin_ctzll(a.w[1])
        a.w[1] &= a.w[1] - 1
        return 64 + i
    i = __builtin_ctzll(a.w[2])
    a.w[2] &= a.w[2] - 1
    return 128 + i


# --- the options in C ------------------------------------------------------------------------
ctypedef struct Config:
    int width, height, cells, turns
    bint choose  # placing_order "choose" (else "alternate")
    bint pipe_any  # pipe_sides "any" (else "hangers")
    int detach_steps  # detach_distance - 1: a part this near (or nearer) to the ground counts
    int toy_reach  # toy_distance - 1: toys this near (or nearer) are grouped
    int altitude_row  # the first row (0 = bottom) whose cards score double
    int num_players, num_actions, dismiss, obs_size, master_size
    Cells full, row0, not_col0, not_last, alt
    Cells near[MAX_CELLS]  # ball(cell, 1)
    Cells reach_of[MAX_CELLS]  # ball(cell, detach_steps)
    # where each block starts in one viewer's observation (a seat block: seat 0 = the viewer)
    int o_grid, o_counted, o_hand, o_picked, o_kept, o_legal, o_unseen, o_deck, o_turn
    int o_phase, o_leader, o_first, o_score


cdef inline Cells c_grow(Cells x, const Config* c) noexcept nogil:
    """x and its orthogonal neighbours (up and down not masked: bits above the grid only
    come back to cells already in)."""
    return c_or(c_or(c_or(x, c_shl(x, c.width)), c_shr(x, c.width)),
                c_or(c_and(c_shl(x, 1), c.not_col0), c_and(c_shr(x, 1), c.not_last)))


cdef inline Cells c_dilate(Cells x, const Config* c) noexcept nogil:
    return c_and(c_grow(x, c), c.full)


cdef inline Cells c_ball(Cells x, int radius, const Config* c) noexcept nogil:
    """The cells at Manhattan distance ``radius`` or less of x."""
    cdef int i
    for i in range(radius):
        x = c_grow(x, c)
    return c_and(x, c.full)


cdef inline Cells c_flood(Cells seed, Cells within, const Config* c) noexcept nogil:
    """The cells of ``within`` orthogonally connected to ``seed`` inside ``within``."""
    cdef Cells grown = c_and(seed, within), nxt
    while True:
        nxt = c_and(c_grow(grown, c), within)
        if c_eq(nxt, grown):
            return grown
        grown = nxt


# --- the rules of the grid (docs/rules/cat_tree.md, "Placing" and "Points") -----------------
cdef inline void classes_of(Cells occ, Cells carriers, Cells hangers, const Config* c,
                            Cells* out) noexcept nogil:
    """The empty cells legal for each legality class: [S] a flat surface is the floor or
    a carrier directly below; [D] both sides attached means a hanger directly left and
    right (not the grid's edge); a shelf goes anywhere off the bottom row."""
    cdef Cells empty = c_andnot(c.full, occ)
    cdef Cells flat = c_and(c_or(c.row0, c_shl(carriers, c.width)), empty)
    cdef Cells sides = c_and(c_and(c_and(c_shl(hangers, 1), c.not_col0),
                                   c_and(c_shr(hangers, 1), c.not_last)), empty)
    out[ON_FLAT] = flat
    out[BOTH_SIDES] = sides
    out[FLAT_OR_SIDES] = c_or(flat, sides)
    out[OFF_FLOOR] = c_andnot(empty, c.row0)


cdef inline Cells occupied_of(const Cells* boards) noexcept nogil:
    cdef Cells occ = c_zero()
    cdef int k
    for k in range(NUM_TYPES):
        occ = c_or(occ, boards[k])
    return occ


cdef inline Cells hangers_of(const Cells* boards) noexcept nogil:
    return c_or(c_or(boards[BOX], boards[SHELF]), boards[NEST])


cdef inline Cells carriers_of(const Cells* boards) noexcept nogil:
    return c_or(hangers_of(boards), boards[SCRATCHER])


cdef Cells counted_cells_of(const Cells* boards, const Config* c) noexcept nogil:
    """[D] What counts: the ground-connected structure (every piece orthogonally connected
    to one in the bottom row) and each other part with a cell closer than
    ``detach_distance`` to it; nothing when no piece stands on the floor."""
    cdef Cells occ = occupied_of(boards)
    cdef Cells ground = c_flood(c_and(occ, c.row0), occ, c)
    if not c_any(ground):
        return ground
    cdef Cells reach = c_ball(ground, c.detach_steps, c)
    cdef Cells floating = c_andnot(occ, ground)
    return c_or(ground, c_flood(c_and(floating, reach), floating, c))


cdef Cells counted_of_parts_c(const Cells* parts, int count, const Config* c) noexcept nogil:
    """The same from the grid's orthogonally connected parts."""
    cdef Cells ground = c_zero(), counted
    cdef int i
    for i in range(count):
        if c_meets(parts[i], c.row0):
            ground = c_or(ground, parts[i])
    if not c_any(ground):
        return ground
    cdef Cells reach = c_ball(ground, c.detach_steps, c)
    counted = ground
    for i in range(count):
        if c_meets(parts[i], reach):
            counted = c_or(counted, parts[i])
    return counted


cdef inline int doubled(Cells cells, const Config* c) noexcept nogil:
    """The cells counted once, and once more at altitude [S]."""
    return c_count(cells) + c_count(c_and(cells, c.alt))


cdef int toy_points_c(Cells toys, const Config* c) noexcept nogil:
    """[S] 5 per group of toys, [D] groups closed under "closer than toy_distance", a
    group doubled when any of its toys is at altitude."""
    cdef int total = 0
    cdef Cells group, grown
    while c_any(toys):
        group = c_low(toys)
        while True:
            grown = c_and(c_ball(group, c.toy_reach, c), toys)
            if c_eq(grown, group):
                break
            group = grown
        total += ALTITUDE_FACTOR * BASE[TOY] if c_meets(group, c.alt) else BASE[TOY]
        toys = c_andnot(toys, group)
    return total


cdef int points_c(const Cells* boards, Cells counted, const Config* c,
                  int* by_type) noexcept nogil:
    """The points of the pieces in ``counted`` [S]: pipe 5 + 3 per attached side;
    scratcher 5 per group (side by side in a row); hammock and catwalk 8; box, shelf,
    nest 5; toy 5 per group; doubled at altitude. ``by_type`` (or NULL) gets them by
    structure."""
    cdef int parts[8]
    cdef int kind, total = 0
    cdef Cells mine, holders, left, right, starts
    memset(parts, 0, sizeof(parts))
    if c_any(counted):
        for kind in range(NUM_TYPES):  # hammock, catwalk, box, shelf, nest: their own points
            if PLAIN[kind]:
                parts[kind] = BASE[kind] * doubled(c_and(boards[kind], counted), c)
        mine = c_and(boards[PIPE], counted)
        if c_any(mine):
            # [D] an attached side is a box, shelf or nest beside it (pipe_sides="any":
            # any piece)
            holders = occupied_of(boards) if c.pipe_any else hangers_of(boards)
            left = c_and(c_and(mine, c_shl(holders, 1)), c.not_col0)
            right = c_and(c_and(mine, c_shr(holders, 1)), c.not_last)
            parts[PIPE] = (BASE[PIPE] * doubled(mine, c)
                           + PIPE_SIDE_POINTS * (doubled(left, c) + doubled(right, c)))
        mine = c_and(boards[SCRATCHER], counted)
        if c_any(mine):  # a group is counted at its leftmost scratcher
            starts = c_andnot(mine, c_and(c_shl(mine, 1), c.not_col0))
            parts[SCRATCHER] = BASE[SCRATCHER] * doubled(starts, c)
        mine = c_and(boards[TOY], counted)
        if c_any(mine):
            parts[TOY] = toy_points_c(mine, c)
    for kind in range(NUM_TYPES):
        total += parts[kind]
    if by_type != NULL:
        memcpy(by_type, parts, sizeof(parts))
    return total


cdef int gain_c(const Cells* boards, int kind, Cells bit, Cells counted, Cells holders,
                int* toys, const Config* c) noexcept nogil:
    """The points added when a ``kind`` piece at ``bit`` joins the counted cells alone
    (``boards`` and ``counted`` already hold it; ``holders``: what attaches a pipe's side
    now; ``*toys``: the counted toys' points before, updated): ``points`` after minus
    before, from the piece's own points, the sides it gives the pipes beside it, the
    scratcher group it starts or extends and the toy groups it changes."""
    cdef int m = ALTITUDE_FACTOR if c_meets(bit, c.alt) else 1
    cdef int gained, sides, after
    cdef Cells mine, pipes
    if kind == TOY:
        after = toy_points_c(c_and(boards[TOY], counted), c)
        gained = after - toys[0]
        toys[0] = after
    elif kind == SCRATCHER:
        mine = c_and(boards[SCRATCHER], counted)
        # a new group unless a scratcher stands on its left; the group on its right (which
        # started there) now starts with it
        gained = 0 if c_meets(c_and(c_shl(mine, 1), bit), c.not_col0) else BASE[SCRATCHER] * m
        if c_meets(c_and(c_shl(bit, 1), mine), c.not_col0):
            gained -= BASE[SCRATCHER] * m
    elif kind == PIPE:
        sides = (c_meets(c_and(c_shl(holders, 1), bit), c.not_col0)
                 + c_meets(c_and(c_shr(holders, 1), bit), c.not_last))
        gained = (BASE[PIPE] + PIPE_SIDE_POINTS * sides) * m
    else:
        gained = BASE[kind] * m
    if c_meets(bit, holders):  # a side for the counted pipes beside it
        pipes = c_and(boards[PIPE], counted)
        if c_any(pipes):
            if c_meets(c_and(c_shl(bit, 1), pipes), c.not_col0):
                gained += PIPE_SIDE_POINTS * m
            if c_meets(c_and(c_shr(bit, 1), pipes), c.not_last):
                gained += PIPE_SIDE_POINTS * m
    return gained


# --- one game ----------------------------------------------------------------------------------
ctypedef struct Game:
    int turn, phase, current, leader, first
    int total, toy_points  # the shared score, and the points of its counted toys
    int num_parts, num_placed
    int8_t deck[DECK_SIZE]
    int8_t hands[2][2]  # this turn's deals, lower type first
    int8_t picked[2]  # 0 / 1 (lower / higher card), -1 before the pick
    int8_t kept[2]  # the kept types, -1 before the pick
    int8_t to_place[2]
    int8_t plane_rule[2]  # the legality class each kept_legal plane shows, -1 none
    int8_t seen[2][NUM_TYPES]  # cards of each type each player has seen
    int16_t placed[MAX_PIECES][4]  # (turn, player, type, cell or -1)
    int8_t grid[MAX_CELLS]  # the type at each cell, -1 empty
    Cells boards[NUM_TYPES]
    Cells parts[MAX_PIECES]  # the orthogonally connected groups of pieces (they only merge)
    Cells occ, carriers, hangers
    Cells ground, reach  # the ground-connected cells, and what is near enough to them
    Cells counted  # the cells whose pieces score
    Cells classes[4]  # the empty cells legal for each legality class
    float obs[2 * MAX_OBS]  # viewer 0's observation, then viewer 1's (obs_size each)
    # a pinned deck (GameState.new(chance=...)): DECK_SIZE bytes of card types, dealt
    # instead of a shuffled one (core_binding.pxi sets them)
    const char* pinned
    Py_ssize_t pinned_size
    MT mt  # the game's generator, seeded as random.Random(seed) (it deals the deck)


cdef inline void put(Game* g, const Config* c, int at, float value) noexcept nogil:
    """A public feature, in both halves."""
    g.obs[at] = value
    g.obs[at + c.obs_size] = value


cdef inline void put_seat(Game* g, const Config* c, int at, int size, int player, int i,
                          float value) noexcept nogil:
    """Feature i of ``player``'s part of a seat block, in both halves (seat 0 = viewer)."""
    g.obs[at + player * size + i] = value
    g.obs[c.obs_size + at + (player ^ 1) * size + i] = value


cdef inline void put_plane(Game* g, const Config* c, int player, Cells cells) noexcept nogil:
    """``player``'s kept_legal plane, in both halves, from all zeros."""
    cdef int i
    while c_any(cells):
        i = c_pop(&cells)
        put_seat(g, c, c.o_legal, c.cells, player, i, 1.0)


cdef inline float unseen(int seen) noexcept nogil:
    return <float>(1.0 - seen / <double>COPIES)


cdef inline void see(Game* g, const Config* c, int player, int kind) noexcept nogil:
    g.seen[player][kind] += 1
    g.obs[player * c.obs_size + c.o_unseen + kind] = unseen(g.seen[player][kind])


cdef inline void put_phase(Game* g, const Config* c, int phase) noexcept nogil:
    cdef int i
    for i in range(3):
        put(g, c, c.o_phase + i, 1.0 if i == phase else 0.0)


cdef void start_turn(Game* g, const Config* c) noexcept nogil:
    cdef int t = g.turn, p, v, a, b
    cdef int8_t* cards = &g.deck[CARDS_PER_TURN * t]
    cdef float* half
    for p in range(2):
        a, b = cards[2 * p], cards[2 * p + 1]
        if a <= b:
            g.hands[p][0], g.hands[p][1] = a, b
        else:
            g.hands[p][0], g.hands[p][1] = b, a
        g.picked[p] = -1
        g.kept[p] = -1
        g.to_place[p] = 0
    g.first = TERMINAL
    g.leader = t % 2  # [D] the leader alternates, player 0 on the first turn
    for v in range(2):
        half = &g.obs[v * c.obs_size]
        # the hand dealt, nothing picked or kept (the kept blocks are cleared at placement)
        memset(&half[c.o_hand], 0, 2 * NUM_TYPES * sizeof(float))
        half[c.o_hand + g.hands[v][0]] = 1.0
        half[c.o_hand + NUM_TYPES + g.hands[v][1]] = 1.0
        half[c.o_picked] = 0.0
        half[c.o_picked + 1] = 0.0
        # the turn's public features
        half[c.o_deck] = <float>((DECK_SIZE - CARDS_PER_TURN * (t + 1)) / <double>DECK_SIZE)
        memset(&half[c.o_turn], 0, MAX_TURNS * sizeof(float))
        half[c.o_turn + t] = 1.0
        half[c.o_leader + (g.leader ^ v)] = 1.0
        half[c.o_leader + (g.leader ^ v ^ 1)] = 0.0
        half[c.o_first] = 0.0
        half[c.o_first + 1] = 0.0
    put_phase(g, c, KEEP)
    for p in range(2):
        see(g, c, p, cards[2 * p])
        see(g, c, p, cards[2 * p + 1])
    g.phase = KEEP
    g.current = 0


cdef void start_game(Game* g, const Config* c, const int* deck) noexcept nogil:
    """A new game on ``deck`` (32 types, checked by the caller), its first turn dealt
    (the generator, ``g.mt``, left as it is)."""
    cdef int i, v
    memset(g, 0, <size_t>(<char*>&g.obs[0] - <char*>g))
    memset(g.obs, 0, 2 * c.obs_size * sizeof(float))
    for i in range(DECK_SIZE):
        g.deck[i] = <int8_t>deck[i]
    memset(g.grid, -1, sizeof(g.grid))
    g.plane_rule[0] = g.plane_rule[1] = -1
    classes_of(g.occ, g.carriers, g.hangers, c, g.classes)
    for v in range(2):
        for i in range(NUM_TYPES):
            g.obs[v * c.obs_size + c.o_unseen + i] = 1.0
    g.turn = 0
    start_turn(g, c)


cdef void shuffled_deck(MT* mt, int* deck) noexcept nogil:
    """[S] the 32 cards shuffled once: ``rng.shuffle(list(DECK))``."""
    cdef int i
    for i in range(DECK_SIZE):
        deck[i] = i // COPIES
    mt_shuffle_ints(mt, deck, DECK_SIZE)


cdef inline Cells legal_cells_now(const Game* g) noexcept nogil:
    """The cells where the player to act may place their kept card."""
    return g.classes[RULE[g.kept[g.current]]]


cdef void reveal(Game* g, const Config* c) noexcept nogil:
    cdef int p, k0 = g.kept[0], k1 = g.kept[1]
    g.to_place[0] = g.to_place[1] = 1
    for p in range(2):  # the kept blocks, one-hot, own seat first
        put_seat(g, c, c.o_kept, NUM_TYPES, p, g.kept[p], 1.0)
    see(g, c, 1, k0)
    see(g, c, 0, k1)
    for p in range(2):
        g.plane_rule[p] = RULE[g.kept[p]]
        put_plane(g, c, p, g.classes[g.plane_rule[p]])
    if c.choose:
        put_phase(g, c, ORDER)
        g.phase = ORDER
        g.current = g.leader
    else:
        set_order(g, c, g.leader)


cdef void set_order(Game* g, const Config* c, int first) noexcept nogil:
    g.first = first
    put_seat(g, c, c.o_first, 1, first, 0, 1.0)
    put_phase(g, c, PLACE)
    g.phase = PLACE
    g.current = first


cdef int placed(Game* g, const Config* c, int p, int cell) noexcept nogil:
    """After ``p`` placed (or dismissed, cell -1) their card: the other's placement, the
    next turn or the end."""
    cdef int kind = g.kept[p], v, other = 1 - p
    cdef int16_t* row = g.placed[g.num_placed]
    row[0], row[1], row[2], row[3] = g.turn, p, kind, cell
    g.num_placed += 1
    g.to_place[p] = 0
    put_seat(g, c, c.o_kept, NUM_TYPES, p, kind, 0.0)
    for v in range(2):
        memset(&g.obs[v * c.obs_size + c.o_legal + (p ^ v) * c.cells], 0,
               c.cells * sizeof(float))
    g.plane_rule[p] = -1
    if g.to_place[other]:
        g.current = other
        return 0
    g.turn += 1
    if g.turn == c.turns:
        g.current = TERMINAL
        return GAME_OVER
    start_turn(g, c)
    return 0


cdef int place(Game* g, const Config* c, int p, int cell) noexcept nogil:
    cdef int kind = g.kept[p], i, j, other, rule
    cdef Cells bit = c_bit(cell), near = c.near[cell], joined = bit, lifted, before, counted
    cdef Cells diff, old, holders
    g.boards[kind] = c_or(g.boards[kind], bit)
    g.grid[cell] = kind
    # the new piece joins every part it touches (parts only ever merge)
    j = 0
    for i in range(g.num_parts):
        if c_meets(g.parts[i], near):
            joined = c_or(joined, g.parts[i])
        else:
            g.parts[j] = g.parts[i]
            j += 1
    g.parts[j] = joined
    g.num_parts = j + 1
    put(g, c, c.o_grid + kind * c.cells + cell, 1.0)

    # what counts: the ground-connected structure, and the parts within reach of it
    before = counted = g.counted
    if c_meets(joined, c.row0):  # the piece stands on the ground structure (or the floor)
        lifted = c_andnot(joined, g.ground)  # the piece, and the parts it joined to the ground
        g.ground = c_or(g.ground, joined)
        g.reach = c_or(g.reach, c.reach_of[cell] if c_eq(lifted, bit)
                       else c_ball(lifted, c.detach_steps, c))
        for i in range(g.num_parts):
            if c_meets(g.parts[i], g.reach):
                counted = c_or(counted, g.parts[i])
    elif c_meets(joined, g.reach):
        counted = c_or(counted, joined)

    g.occ = c_or(g.occ, bit)
    if IS_CARRIER[kind]:
        g.carriers = c_or(g.carriers, bit)
    if IS_HANGER[kind]:
        g.hangers = c_or(g.hangers, bit)

    if not c_eq(counted, before):
        if c_eq(counted, c_or(before, bit)):  # the piece alone joins what counts
            if PLAIN[kind] and not c_meets(c_and(g.boards[PIPE], counted), near):
                # no group and no pipe beside it: its own points
                g.total += BASE[kind] * (ALTITUDE_FACTOR if c_meets(bit, c.alt) else 1)
            else:
                holders = g.occ if c.pipe_any else g.hangers
                g.total += gain_c(g.boards, kind, bit, counted, holders, &g.toy_points, c)
        else:  # parts joined the tree: score it all again
            g.total = points_c(g.boards, counted, c, NULL)
            g.toy_points = toy_points_c(c_and(g.boards[TOY], counted), c)
        g.counted = counted
        put(g, c, c.o_score, <float>min(g.total / SCORE_SCALE_C, SCORE_CLIP))
        diff = c_xor(counted, before)  # counted cells only ever join
        while c_any(diff):
            put(g, c, c.o_counted + c_pop(&diff), 1.0)

    # the legal cells of each class on the new grid; the other player's plane, if still to
    # place, follows its class cell by cell
    other = 1 - p
    rule = g.plane_rule[other]
    old = g.classes[rule] if g.to_place[other] else c_zero()
    classes_of(g.occ, g.carriers, g.hangers, c, g.classes)
    if g.to_place[other]:
        diff = c_xor(old, g.classes[rule])
        while c_any(diff):
            i = c_pop(&diff)
            put_seat(g, c, c.o_legal, c.cells, other, i, 1.0 if c_test(g.classes[rule], i)
                     else 0.0)
    return placed(g, c, p, cell)


# --- the interface of every core (batch.pxi drives it; the contract is in docs/vector.md) -------
cdef void game_begin(Game* g, const Config* c) noexcept nogil:
    """A new game on the pinned deck, else on the deck shuffled from the generator."""
    cdef int deck[DECK_SIZE]
    cdef int i
    if g.pinned_size:
        for i in range(DECK_SIZE):
            deck[i] = (<const int8_t*>g.pinned)[i]
    else:
        shuffled_deck(&g.mt, deck)
    start_game(g, c, deck)


cdef inline int game_current_player(const Game* g) noexcept nogil:
    return g.current


cdef bint game_is_legal(const Game* g, const Config* c, int action) noexcept nogil:
    cdef Cells cells
    if g.current < 0 or action < 0:
        return 0
    if g.phase == KEEP:
        return action < ORDER_BASE
    if g.phase == ORDER:
        return action == ME_FIRST or action == PARTNER_FIRST
    cells = legal_cells_now(g)
    if not c_any(cells):
        # [S] a card is dismissed only when it cannot be placed anywhere.
        return action == c.dismiss
    return PLACE_BASE <= action < c.dismiss and c_test(cells, action - PLACE_BASE)


cdef int game_apply(Game* g, const Config* c, int action) noexcept nogil:
    """Apply a legal action (checked by the caller)."""
    cdef int p = g.current
    if g.phase == PLACE:
        if action == c.dismiss:
            return placed(g, c, p, -1)
        return place(g, c, p, action - PLACE_BASE)
    if g.phase == KEEP:
        g.picked[p] = action - KEEP_BASE
        g.kept[p] = g.hands[p][action - KEEP_BASE]
        g.obs[p * c.obs_size + c.o_picked + action - KEEP_BASE] = 1.0
        if p:
            reveal(g, c)
        else:
            g.current = 1
        return 0
    set_order(g, c, p if action == ME_FIRST else 1 - p)
    return 0


cdef Cells legal_actions_of(const Game* g, const Config* c) noexcept nogil:
    """The legal actions as a set of action indices."""
    cdef Cells out = c_zero(), cells
    if g.current < 0:
        return out
    if g.phase == KEEP:
        out.w[0] = 0b11 << KEEP_BASE
    elif g.phase == ORDER:
        out.w[0] = 0b11 << ORDER_BASE
    else:
        cells = legal_cells_now(g)
        out = c_shl(cells, PLACE_BASE) if c_any(cells) else c_bit(c.dismiss)
    return out


cdef void game_mask(const Game* g, const Config* c, int8_t* out) noexcept nogil:
    cdef Cells legal = legal_actions_of(g, c)
    memset(out, 0, c.num_actions)
    while c_any(legal):
        out[c_pop(&legal)] = 1


cdef inline void game_observe(const Game* g, const Config* c, int player,
                              float* out) noexcept nogil:
    memcpy(out, &g.obs[player * c.obs_size], c.obs_size * sizeof(float))


cdef inline void game_scores(const Game* g, const Config* c, double* out) noexcept nogil:
    """[S] the two partners build one tree and share its score."""
    out[0] = out[1] = g.total


cdef inline void game_returns(const Game* g, const Config* c, double* out) noexcept nogil:
    """[D] both partners get the final score divided by 100 (cooperative reward)."""
    out[0] = out[1] = g.total / SCORE_SCALE_C


# --- Python: ints as cell sets --------------------------------------------------------------------
cdef object _M64 = (1 << 64) - 1
cdef object _M192 = (1 << 192) - 1
import sys as _sys
cdef bint _LITTLE = _sys.byteorder == "little"


cdef Cells cells_of_int(object x) except *:
    """A Python int (a cell set) in C; beyond 192 bits (past any grid) dropped."""
    cdef Cells r
    try:
        r.w[0] = x
        r.w[1] = 0
        r.w[2] = 0
        return r
    except OverflowError:  # a set past bit 63 (grids over 64 cells), or negative
        pass
    x = x & _M192
    r.w[0] = x & _M64
    r.w[1] = (x >> 64) & _M64
    r.w[2] = x >> 128
    return r


cdef object int_of_cells(Cells a):
    if a.w[1] == 0 and a.w[2] == 0:
        return a.w[0]
    if _LITTLE:
        return _PyLong_FromByteArray(<unsigned char*>a.w, sizeof(a.w), 1, 0)
    return (<object>a.w[2] << 128) | (<object>a.w[1] << 64) | <object>a.w[0]


cdef int load_boards(object boards, Cells* out) except -1:
    """The 8 structure boards (one cell set per type) of a Python sequence."""
    cdef int k
    if len(boards) != NUM_TYPES:
        raise ValueError(f"cat_tree: boards must hold {NUM_TYPES} cell sets (one per "
                         f"structure), got {len(boards)}")
    if type(boards) is list:
        for k in range(NUM_TYPES):
            out[k] = cells_of_int(<object>(<list>boards)[k])
    else:
        for k in range(NUM_TYPES):
            out[k] = cells_of_int(boards[k])
    return 0


cdef inline int check_kind(int kind) except -1:
    if not 0 <= kind < NUM_TYPES:
        raise ValueError(f"cat_tree: structure type {kind} is out of range 0..{NUM_TYPES - 1}")
    return 0


# --- the binding every core shares ------------------------------------------------------------------
include "../core_binding.pxi"


cdef float* game_features(Game* g, const Config* c, Py_ssize_t* count) noexcept nogil:
    # both observations side by side: viewer 0's, then viewer 1's
    count[0] = 2 * c.obs_size
    return g.obs


cdef bytes pack_chance(const Config* c, pinned):
    """The pinned chance: at most one outcome, the deck (checked: ``check_deck``), as one
    byte per card."""
    if len(pinned) > 1:
        raise ValueError(f"cat_tree: one chance outcome (the deck) can be pinned, got "
                         f"{len(pinned)}")
    return bytes(check_deck(pinned[0])) if pinned else b""


# --- the options ------------------------------------------------------------------------------------
cdef class CoreConfig(ConfigBinding):
    """The rules' numbers and masks for one set of options (``placement.Rules``): the C
    ``Config`` every game with these options shares, and its masks as Python ints.

    A cell set's bit ``row * width + column``; row 0 the bottom row (on the floor)."""

    cdef readonly int width, height, num_cells, altitude_row, detach_steps, toy_reach
    cdef readonly bint pipe_any
    cdef readonly object full, row0, not_col0, not_last, alt

    def __init__(self, options):
        cdef Config* c = &self.c
        cdef int w = options.width, h = options.height, n = w * h, r, i
        if not (3 <= w <= MAX_WIDTH and 2 <= h and n <= MAX_CELLS):
            raise ValueError(f"cat_tree: a {w} x {h} grid is larger than the core's "
                             f"{MAX_WIDTH} x {MAX_CELLS // MAX_WIDTH}")
        if not 1 <= options.turns <= MAX_TURNS:
            raise ValueError(f"cat_tree: turns={options.turns!r} is not in 1..{MAX_TURNS}")
        memset(c, 0, sizeof(Config))
        c.width, c.height, c.cells, c.turns = w, h, n, options.turns
        c.num_players = NUM_PLAYERS
        c.choose = options.placing_order == "choose"
        c.pipe_any = options.pipe_sides == "any"
        c.detach_steps = options.detach_distance - 1
        c.toy_reach = options.toy_distance - 1
        c.altitude_row = options.altitude_row
        c.num_actions = PLACE_BASE + n + 1
        c.dismiss = PLACE_BASE + n
        for i in range(n):
            c.full = c_or(c.full, c_bit(i))
        for i in range(w):
            c.row0 = c_or(c.row0, c_bit(i))
        for r in range(h):
            for i in range(w):
                if i > 0:
                    c.not_col0 = c_or(c.not_col0, c_bit(r * w + i))
                if i < w - 1:
                    c.not_last = c_or(c.not_last, c_bit(r * w + i))
        for i in range(min(c.altitude_row, h) * w, n):
            c.alt = c_or(c.alt, c_bit(i))
        for i in range(n):
            c.near[i] = c_ball(c_bit(i), 1, c)
            c.reach_of[i] = c_ball(c_bit(i), c.detach_steps, c)
        self._place_blocks(n)
        self.options = options
        self.width, self.height, self.num_cells = w, h, n
        self.altitude_row = c.altitude_row
        self.detach_steps, self.toy_reach, self.pipe_any = c.detach_steps, c.toy_reach, c.pipe_any
        self.full, self.row0 = int_of_cells(c.full), int_of_cells(c.row0)
        self.not_col0, self.not_last = int_of_cells(c.not_col0), int_of_cells(c.not_last)
        self.alt = int_of_cells(c.alt)

    def _place_blocks(self, int n):
        """Where each block of layout.py lies in one viewer's observation (the layout is
        defined there once; the sizes and kinds the core writes are checked here)."""
        from catzoo.games.cat_tree.layout import layout_for

        cdef Config* c = &self.c
        layout = layout_for(n)
        expect = {"grid": (NUM_TYPES * n, "public"), "counted": (n, "public"),
                  "hand": (2 * NUM_TYPES, "private"), "picked": (2, "private"),
                  "kept": (NUM_TYPES, "seat"), "kept_legal": (n, "seat"),
                  "unseen": (NUM_TYPES, "private"), "deck": (1, "public"),
                  "turn": (MAX_TURNS, "public"), "phase": (3, "public"),
                  "leader": (1, "seat"), "first": (1, "seat"), "score": (1, "public")}
        at = {}
        pos = 0
        for block in layout.blocks:
            if expect.get(block.name) != (block.size, block.kind):
                raise AssertionError(f"cat_tree core: layout block {block.name} "
                                     f"({block.size}, {block.kind}) is not the core's")
            at[block.name] = pos
            pos += block.size * (NUM_PLAYERS if block.kind == "seat" else 1)
        if set(at) != set(expect) or pos != layout.obs_size or pos > MAX_OBS:
            raise AssertionError("cat_tree core: the layout's blocks are not the core's")
        c.obs_size = pos
        c.master_size = layout.master_size
        c.o_grid, c.o_counted, c.o_hand = at["grid"], at["counted"], at["hand"]
        c.o_picked, c.o_kept, c.o_legal = at["picked"], at["kept"], at["kept_legal"]
        c.o_unseen, c.o_deck, c.o_turn = at["unseen"], at["deck"], at["turn"]
        c.o_phase, c.o_leader, c.o_first = at["phase"], at["leader"], at["first"]
        c.o_score = at["score"]

    def dilate(self, cells):
        """The cells at Manhattan distance 1 or less of ``cells``."""
        return int_of_cells(c_dilate(cells_of_int(cells), &self.c))

    def ball(self, cells, int radius):
        """The cells at Manhattan distance ``radius`` or less of ``cells``."""
        return int_of_cells(c_ball(cells_of_int(cells), radius, &self.c))

    def flood(self, seed, within):
        """The cells of ``within`` orthogonally connected to ``seed`` (inside ``within``)."""
        return int_of_cells(c_flood(cells_of_int(seed), cells_of_int(within), &self.c))

    def cell(self, int row, int column) -> int:
        return row * self.width + column

    def row_col(self, int cell) -> tuple:
        return divmod(cell, self.width)


cdef dict _CONFIGS = {}


def make_config(options) -> CoreConfig:
    """The ``CoreConfig`` of ``options`` (one per options value, shared)."""
    got = _CONFIGS.get(options)
    if got is None:
        if len(_CONFIGS) >= 64:
            _CONFIGS.clear()
        got = _CONFIGS[options] = CoreConfig(options)
    return got


# --- the rules of a grid, for Python (placement.py and scoring.py export these) ------------------
def legal_classes(boards, CoreConfig rules) -> tuple:
    """The cells legal for each legality class (on flat, both sides, either, off floor)."""
    cdef Cells b[8]
    cdef Cells out[4]
    load_boards(boards, b)
    classes_of(occupied_of(b), carriers_of(b), hangers_of(b), &rules.c, out)
    return (int_of_cells(out[0]), int_of_cells(out[1]), int_of_cells(out[2]),
            int_of_cells(out[3]))


def counted_cells(boards, CoreConfig rules):
    """The cells whose pieces are part of the tree (score)."""
    cdef Cells b[8]
    load_boards(boards, b)
    return int_of_cells(counted_cells_of(b, &rules.c))


def counted_of_parts(parts, CoreConfig rules):
    """The counted cells given the grid's orthogonally connected parts (cell sets)."""
    cdef Cells p[MAX_CELLS]
    cdef int count = 0
    for part in parts:
        if count == MAX_CELLS:
            raise ValueError(f"cat_tree: more than {MAX_CELLS} parts")
        p[count] = cells_of_int(part)
        count += 1
    return int_of_cells(counted_of_parts_c(p, count, &rules.c))


def points(boards, counted, CoreConfig rules) -> int:
    """The points of the pieces in ``counted`` (``breakdown`` summed, for any set of
    cells; the engine's and the oracle's hot path)."""
    cdef Cells b[8]
    load_boards(boards, b)
    return points_c(b, cells_of_int(counted), &rules.c, NULL)


def score(boards, CoreConfig rules) -> int:
    """The shared score of a grid."""
    cdef Cells b[8]
    load_boards(boards, b)
    return points_c(b, counted_cells_of(b, &rules.c), &rules.c, NULL)


def score_counted(boards, CoreConfig rules) -> tuple:
    """(score, counted cells) of a grid."""
    cdef Cells b[8]
    load_boards(boards, b)
    cdef Cells counted = counted_cells_of(b, &rules.c)
    return points_c(b, counted, &rules.c, NULL), int_of_cells(counted)


def points_by_type(boards, counted, CoreConfig rules) -> tuple:
    """The points of the pieces in ``counted`` by structure, in type order."""
    cdef Cells b[8]
    cdef int by_type[8]
    load_boards(boards, b)
    points_c(b, cells_of_int(counted), &rules.c, by_type)
    return tuple([by_type[k] for k in range(NUM_TYPES)])


def gain(boards, int kind, bit, counted, holders, int toys, CoreConfig rules) -> tuple:
    """(points added, points of the counted toys after) when a ``kind`` piece at ``bit``
    joins the counted cells alone: ``boards`` and ``counted`` already hold it, ``toys``
    are the counted toys' points before, ``holders`` what attaches a pipe's side now
    (every piece with ``pipe_sides="any"``, else the boxes, shelves and nests). The
    same as ``points`` after minus before: the piece's own points, the sides it gives
    the counted pipes beside it, the scratcher group it starts or extends, the toy
    groups it changes."""
    cdef Cells b[8]
    check_kind(kind)
    load_boards(boards, b)
    gained = gain_c(b, kind, cells_of_int(bit), cells_of_int(counted), cells_of_int(holders),
                    &toys, &rules.c)
    return gained, toys


def toy_points(toys, CoreConfig rules) -> int:
    """[S] 5 per group of toys, [D] groups closed under "closer than toy_distance", a
    group doubled when any of its toys is at altitude."""
    return toy_points_c(cells_of_int(toys), &rules.c)


def deal(seed: int) -> tuple:
    """The deck ``CatTreeState.new(seed=seed)`` deals, shuffled here in C (the batched
    engine's deal; ``random.Random(seed).shuffle(list(DECK))``)."""
    cdef int deck[DECK_SIZE]
    cdef MT mt
    mt_seed_from(&mt, seed)
    shuffled_deck(&mt, deck)
    return tuple([deck[i] for i in range(DECK_SIZE)])


# --- one game, for Python (state.py) ------------------------------------------------------------------
cdef class _Memory:
    """Read-only bytes of a ``Core`` (numpy views of its observations and mask keep it,
    hence the core, alive)."""

    cdef object owner
    cdef char* ptr
    cdef Py_ssize_t size

    def __getbuffer__(self, Py_buffer* buffer, int flags):
        PyBuffer_FillInfo(buffer, self, self.ptr, self.size, 1, flags)  # read-only bytes

    def __releasebuffer__(self, Py_buffer* buffer):
        pass


cdef _Memory _memory(object owner, void* ptr, Py_ssize_t size):
    cdef _Memory m = _Memory.__new__(_Memory)
    m.owner, m.ptr, m.size = owner, <char*>ptr, size
    return m


cdef class Core(CoreBinding):
    """One game of Cat Tree in C, for the Python state (``CatTreeState._core``): the binding
    of core_binding.pxi (its buffer: viewer 0's observation, then viewer 1's, read-only
    float32), and this game's legal moves, mask and readers."""

    cdef int8_t mask[MAX_ACTIONS]

    def is_legal(self, action) -> bool:
        return (0 <= action < self.config.c.num_actions
                and game_is_legal(&self.g, &self.config.c, action))

    @property
    def legal(self):
        """The legal actions as an int bit set (bit a: action a)."""
        return int_of_cells(legal_actions_of(&self.g, &self.config.c))

    def refresh_legal(self) -> None:
        """Nothing to do: the legal moves are read from the game when asked."""

    def legal_actions(self) -> list:
        cdef Cells legal = legal_actions_of(&self.g, &self.config.c)
        out = []
        while c_any(legal):
            out.append(c_pop(&legal))
        return out

    def fill_mask(self) -> None:
        """Write the legal mask into ``mask_memory()``."""
        game_mask(&self.g, &self.config.c, self.mask)

    def mask_memory(self) -> _Memory:
        return _memory(self, self.mask, self.config.c.num_actions)

    # --- results ----------------------------------------------------------------------------
    def scores(self) -> list:
        cdef double out[NUM_PLAYERS]
        game_scores(&self.g, &self.config.c, out)
        return [int(out[0]), int(out[1])]

    def standing_keys(self) -> list:
        return [(self.g.total,), (self.g.total,)]

    # --- the chance outcome ----------------------------------------------------------------
    @property
    def deal(self) -> tuple:
        """The chance outcome drawn: the deck."""
        return self.deck

    # --- the game, read back --------------------------------------------------------------------
    @property
    def phase(self) -> int:
        """KEEP, ORDER or PLACE."""
        return self.g.phase

    @property
    def turn(self) -> int:
        """The turn, 0 first (``options.turns`` once the game is over)."""
        return self.g.turn

    @property
    def leader(self) -> int:
        """This turn's leader (player turn % 2)."""
        return self.g.leader

    @property
    def first(self) -> int:
        """Who places first this turn, TERMINAL until decided."""
        return self.g.first

    @property
    def total(self) -> int:
        """The shared score so far."""
        return self.g.total

    @property
    def counted(self):
        """The cells whose pieces score (a cell set)."""
        return int_of_cells(self.g.counted)

    @property
    def deck(self) -> tuple:
        """The deck in dealing order (32 card types)."""
        return tuple([self.g.deck[i] for i in range(DECK_SIZE)])

    @property
    def boards(self) -> list:
        """One cell set per structure type (a list of 8 ints)."""
        return [int_of_cells(self.g.boards[k]) for k in range(NUM_TYPES)]

    @property
    def grid(self) -> list:
        """The type at each cell, -1 empty (row-major, row 0 the bottom)."""
        return [self.g.grid[i] for i in range(self.config.c.cells)]

    @property
    def parts(self) -> list:
        return [int_of_cells(self.g.parts[i]) for i in range(self.g.num_parts)]

    @property
    def hands(self) -> list:
        """Each player's two cards of this turn, lower type first."""
        return [(self.g.hands[p][0], self.g.hands[p][1]) for p in range(2)]

    @property
    def picked(self) -> list:
        """Which card (0 lower, 1 higher) each player kept, -1 before."""
        return [self.g.picked[0], self.g.picked[1]]

    @property
    def kept(self) -> list:
        """The type each player kept this turn, -1 before the pick."""
        return [self.g.kept[0], self.g.kept[1]]

    @property
    def to_place(self) -> list:
        """Whether each player still has a revealed card to place."""
        return [bool(self.g.to_place[0]), bool(self.g.to_place[1])]

    @property
    def seen(self) -> list:
        """Per player, the cards of each type they have seen."""
        return [[self.g.seen[p][k] for k in range(NUM_TYPES)] for p in range(2)]

    @property
    def placements(self) -> list:
        """(turn, player, type, cell or -1) of every placement and dismissal so far."""
        return [(self.g.placed[i][0], self.g.placed[i][1], self.g.placed[i][2],
                 self.g.placed[i][3]) for i in range(self.g.num_placed)]


def check_deck(deck) -> tuple:
    """A pinned deck as a tuple of 32 ints, each of the 8 types 4 times; a ValueError
    naming what is wrong otherwise."""
    try:
        items = tuple(deck)
    except TypeError:
        raise ValueError(f"cat_tree: a pinned deck must be a sequence of {DECK_SIZE} card "
                         f"types, got {deck!r}") from None
    for kind in items:
        if isinstance(kind, bool) or not hasattr(kind, "__index__"):
            raise ValueError(f"cat_tree: a pinned deck holds card types (ints 0.."
                             f"{NUM_TYPES - 1}), got {kind!r}")
    items = tuple(int(kind) for kind in items)
    if sorted(items) != list(DECK):
        raise ValueError("cat_tree: a pinned deck must hold each of the 8 types 4 times")
    return items


include "../batch.pxi"
