# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""Lunar, the whole game in C: the deal, the partner pass, the trump tiles, tricks, the
sky, round scoring, the lead tiles, the next round's start player and the game's end.

The AEC env (through ``LunarState``, ``state.py``) and the batched engine
(``catzoo.vector``, ``BatchCore`` from ``games/batch.pxi``) run this one core: a game is
a ``Game`` struct of plain C data stepped by ``game_apply`` with no Python object in
sight, its legal moves kept as a bit set. A step writes no features: an observation is
written from the game's compact state when asked (``write_features``), at the offsets of
the layout in ``layout.py``, which stays the one definition of the observation's order;
the step path then touches few bytes per game, so that a batch of a thousand games stays
in cache. It follows the core contract of docs/vector.md; its Python classes derive from
games/core_binding.pxi's.

A round's deal is the suit deck (6 of each suit, in suit order) shuffled by
``random.shuffle``'s algorithm, then the rank deck (3 of each rank) likewise, drawn from
CPython's MT19937 in C (``mt19937.pxi``): a seed deals the same game here and in
``random.Random(seed)``.

Sources are tagged as in docs/rules/lunar.md: [R] published rulebook (via rules-notes),
[S] seed text, [D] a documented project decision. Cards are identities 0-11: suit cards
wolf 0, owl 1, lynx 2, bat 3; rank cards 1-8 are cards 4-11. Player ``p`` is on team
``p % 2`` (with 4 players partners sit opposite).

Actions (one flat space of 40 at both player counts):
* ``0-11``  pass-pick: put card ``a`` aside for the partner (4 players, phase PASS);
* ``12-15`` turn the trump tile of suit ``a - 12`` face down (phase TRUMP);
* ``16-27`` play card ``a - 16`` from the hand (phase PLAY);
* ``28-39`` play card ``a - 28`` from the sky (2 players, phase PLAY).
"""

from operator import index as _as_index

from libc.stdint cimport int8_t, int64_t, uint8_t, uint32_t, uint64_t
from libc.string cimport memcpy, memset

include "../mt19937.pxi"
include "../core_common.pxi"  # CoreEvent: GAME_OVER, DEALT

# The game's constants, exported to Python as module attributes (options.py, state.py,
# resample.py, the heuristic and the views import them from here).
cpdef enum:
    NUM_SUITS = 4
    NUM_RANKS = 8
    NUM_CARDS = 12  # card identities
    # [R] 6 of each suit, 3 of each rank: 24 + 24 cards.
    SUIT_COPIES = 6
    RANK_COPIES = 3
    TYPE_DECK = 24  # suit cards, and rank cards, in each deck
    # [R] 6 ranks and 6 suits dealt to each player; 4 players pass 2 + 2 to the partner.
    DEAL_PER_TYPE = 6
    PASS_PER_TYPE = 2
    # [R] 2 players: the sky holds 3 ranks and 3 suits.
    SKY_PER_TYPE = 3
    TRICKS_PER_ROUND = 12
    TRACK_POSITIONS = 13  # trick-track positions 0-12
    # phases
    PASS = 0
    TRUMP = 1
    PLAY = 2
    # action bases
    PICK_BASE = 0
    TRUMP_BASE = 12
    HAND_BASE = 16
    SKY_BASE = 28
    NUM_ACTIONS = 40
    # lead tiles
    BLACK = 0
    WHITE = 1

# Compile-time bounds of the batched driver (games/batch.pxi) and of the C arrays.
cdef enum:
    MAX_PLAYERS = 4
    MAX_ACTIONS = 40
    MAX_OBS = 155      # 4 players (2 players: 121); make_config checks the layout fits
    MAX_MASTER = 263   # the master vector (every feature): 263 floats with 4 players
    NOBODY = -1
    DEAL_SIZE = 48     # one deal: the suit deck's order, then the rank deck's
    SUIT_BITS = 0xF
    RANK_BITS = 0xFF0

# The observation's blocks (layout.py defines their order, sizes and kinds; the core
# writes what each holds, at the offsets make_config reads from the layout).
cdef enum:
    B_HAND, B_PASSED, B_RECEIVED, B_SKY, B_DECK, B_PHASE, B_TURNED, B_TRUMP, B_TRICK_HAND
    B_TRICK_SKY, B_LEAD_SUIT, B_LEAD_BY, B_LEADER, B_PLAYED, B_TRACK, B_KEPT_STARS, B_SCORE
    B_LEAD_TILES, B_ROUND_START, NUM_BLOCKS

# (name, size, kind) of each block, in the enum's order: make_config checks the layout
# against it.
BLOCK_NAMES = (("hand", 12, "private"), ("passed", 12, "private"), ("received", 12, "private"),
               ("sky", 12, "public"), ("deck", 2, "public"), ("phase", 3, "public"),
               ("turned", 4, "seat"), ("trump", 4, "public"), ("trick_hand", 12, "seat"),
               ("trick_sky", 12, "seat"), ("lead_suit", 4, "public"), ("lead_by", 1, "seat"),
               ("leader", 1, "seat"), ("played", 12, "public"), ("track", 1, "seat"),
               ("kept_stars", 1, "seat"), ("score", 1, "seat"), ("lead_tiles", 2, "seat"),
               ("round_start", 1, "seat"))


ctypedef struct Config:
    int num_players, num_actions
    int single              # rounds == "single": one round per game
    int64_t target          # [R] a team must have more than this
    int64_t max_rounds
    int card_stars[NUM_CARDS]
    int64_t track_stars[TRACK_POSITIONS]
    int master_size, obs_size
    # Where each block (BLOCK_NAMES) starts, in a player's observation and in the master
    # vector (layout.py); -1 for a block of the other player count.
    int obs_at[NUM_BLOCKS]
    int master_at[NUM_BLOCKS]


ctypedef struct Game:
    # --- the round: read or written on every step ---
    uint64_t legal
    int phase, current_player, round_start, leader
    int trump, lead_suit, lead_by, tricks_done, trick_length
    uint32_t face_up, sky_bits
    uint32_t hand_bits[MAX_PLAYERS]
    int8_t trick_player[4]
    int8_t trick_card[4]
    int8_t trick_from_sky[4]
    int8_t hands[MAX_PLAYERS][NUM_CARDS]
    int8_t sky[NUM_CARDS]
    int8_t played[NUM_CARDS]
    int8_t sky_count[2]
    int8_t deck_pos[2]
    int8_t pick_types[MAX_PLAYERS][2]
    int8_t picks[MAX_PLAYERS]
    int8_t turned_by[NUM_SUITS]
    int track[2]
    int kept_stars[2]
    int8_t kept[2][NUM_CARDS]
    int8_t passed[MAX_PLAYERS][NUM_CARDS]
    int8_t received[MAX_PLAYERS][NUM_CARDS]
    int8_t played_from_hand[MAX_PLAYERS][NUM_CARDS]
    uint32_t voids[MAX_PLAYERS]
    int8_t order[2][TYPE_DECK]
    # --- the game ---
    int tiles[2]            # the seats holding the black and the white lead tile
    int round_index         # rounds scored so far
    int over
    int64_t team_scores[2]
    int64_t last_points[2]  # the last round scored: its points,
    int last_track[2]       # each team's trick-track position at its end,
    int last_kept_stars[2]  # and the stars on each team's kept cards
    int has_last_trick
    int last_winner
    int8_t last_player[4]
    int8_t last_card[4]
    int8_t last_from_sky[4]
    # pinned deals (GameState.new(chance=...)): round r is dealt from
    # pinned[r * DEAL_SIZE:] while the data lasts (core_binding.pxi sets them)
    const char* pinned
    Py_ssize_t pinned_size
    MT mt


# --- small rules ---------------------------------------------------------------------------

cpdef inline int card_type(int card) noexcept nogil:
    """0 for a suit card, 1 for a rank card."""
    return 0 if card < NUM_SUITS else 1


cdef inline uint32_t type_bits(int t) noexcept nogil:
    return SUIT_BITS if t == 0 else RANK_BITS


cdef inline uint32_t follow_mask(uint32_t area_bits, int lead) noexcept nogil:
    """[R] The cards of an area that may be played: a suit card must follow the lead suit
    when the area holds one; rank cards are never restricted by it."""
    if lead >= 0 and (area_bits >> lead) & 1:
        return (area_bits & RANK_BITS) | (1u << lead)
    return area_bits


cdef int winner_of(int length, const int8_t* players, const int8_t* cards, int trump,
                   int lead_team, int last_team) noexcept nogil:
    """[R] The winning team of a trick: both teams' suits equal, the higher rank wins
    (a tie to the team that played last); else a team in trump; else the first suit."""
    cdef int suit[2]
    cdef int rank[2]
    cdef int i, team
    suit[0] = suit[1] = -1
    rank[0] = rank[1] = 0
    for i in range(length):
        team = players[i] % 2
        if cards[i] < NUM_SUITS:
            suit[team] = cards[i]
        else:
            rank[team] = cards[i] - NUM_SUITS + 1
    if suit[0] == suit[1]:
        if rank[0] == rank[1]:
            return last_team
        return 0 if rank[0] > rank[1] else 1
    if suit[0] == trump:
        return 0
    if suit[1] == trump:
        return 1
    return lead_team


cdef inline int64_t points_of(const int64_t* track_stars, int position,
                              int kept_stars) noexcept nogil:
    """[R] A round's points: the stars beside the team's trick-track position plus one
    per kept star."""
    return track_stars[position] + kept_stars


cdef inline int tile_holder(const Game* g, int team) noexcept nogil:
    """The member of ``team`` holding a lead tile (with 2 players, the player)."""
    return g.tiles[0] if g.tiles[0] % 2 == team else g.tiles[1]


cdef inline float score_feature(int64_t score) noexcept nogil:
    cdef double v = score / 30.0
    return <float>(v if v < 4.0 else 4.0)


# --- legal moves ------------------------------------------------------------------------------

cdef inline uint32_t legal_play4(const Game* g, int p) noexcept nogil:
    cdef uint32_t hand = follow_mask(g.hand_bits[p], g.lead_suit)
    cdef int i, partner = (p + 2) % 4
    for i in range(g.trick_length):
        if g.trick_player[i] == partner:
            # [R] the second teammate to play in a trick plays the other type.
            return hand & type_bits(1 - card_type(g.trick_card[i]))
    return hand


cdef inline uint64_t legal_play2(const Game* g, int p) noexcept nogil:
    cdef uint32_t hand = g.hand_bits[p], sky = g.sky_bits, other, from_hand, from_sky
    cdef int lead = g.lead_suit, card
    if g.trick_length >= 2:
        # [R] the second turn: the other area and the other type. Turns alternate, so
        # the player's first card is the one before last.
        card = g.trick_card[g.trick_length - 2]
        other = RANK_BITS if card < NUM_SUITS else SUIT_BITS
        if g.trick_from_sky[g.trick_length - 2]:
            return (<uint64_t>(follow_mask(hand, lead) & other)) << HAND_BASE
        return (<uint64_t>(follow_mask(sky, lead) & other)) << SKY_BASE
    # [D] First turn: either area and type, as long as the other area still has a card of
    # the other type for the second turn.
    from_hand = (SUIT_BITS if sky & RANK_BITS else 0) | (RANK_BITS if sky & SUIT_BITS else 0)
    from_sky = (SUIT_BITS if hand & RANK_BITS else 0) | (RANK_BITS if hand & SUIT_BITS else 0)
    return ((<uint64_t>(follow_mask(hand, lead) & from_hand)) << HAND_BASE
            | (<uint64_t>(follow_mask(sky, lead) & from_sky)) << SKY_BASE)


cdef uint64_t compute_legal(const Game* g, const Config* c) noexcept nogil:
    cdef int p = g.current_player, t
    cdef uint32_t allowed = 0
    if p < 0:
        return 0
    if g.phase == PLAY:
        if c.num_players == 4:
            return (<uint64_t>legal_play4(g, p)) << HAND_BASE
        return legal_play2(g, p)
    if g.phase == TRUMP:
        return (<uint64_t>g.face_up) << TRUMP_BASE
    # [R] 4 players pass 2 ranks and 2 suits; picks are one card at a time.
    for t in range(2):
        if g.pick_types[p][t] < PASS_PER_TYPE:
            allowed |= type_bits(t)
    return (<uint64_t>(g.hand_bits[p] & allowed)) << PICK_BASE


# --- the round ------------------------------------------------------------------------------

cdef void hand_changed(Game* g, int p) noexcept nogil:
    """p's hand bits, from its counts."""
    cdef int k
    g.hand_bits[p] = 0
    for k in range(NUM_CARDS):
        if g.hands[p][k]:
            g.hand_bits[p] |= 1u << k


cdef void refill_sky(Game* g, const Config* c) noexcept nogil:
    """[D] Refill by type: ranks back to 3 from the rank deck, suits back to 3 from the
    suit deck, as far as each deck lasts. (It also deals the first sky.)"""
    cdef int t, k, pos
    for t in range(2):
        if g.sky_count[t] == SKY_PER_TYPE:
            continue
        pos = g.deck_pos[t]
        while g.sky_count[t] < SKY_PER_TYPE and pos < TYPE_DECK:
            k = g.order[t][pos]
            g.sky[k] += 1
            g.sky_bits |= 1u << k
            g.sky_count[t] += 1
            pos += 1
        g.deck_pos[t] = pos


cdef void deal(Game* g) noexcept nogil:
    """This round's order of both decks: the pinned one if any, else shuffled as
    ``random.shuffle`` shuffles (the suit deck first, then the rank deck)."""
    cdef int deck[TYPE_DECK]
    cdef int i
    cdef const uint8_t* src
    if (g.round_index + 1) * <Py_ssize_t>DEAL_SIZE <= g.pinned_size:
        src = <const uint8_t*>g.pinned + g.round_index * DEAL_SIZE
        for i in range(TYPE_DECK):
            g.order[0][i] = src[i]
            g.order[1][i] = src[TYPE_DECK + i]
        return
    for i in range(TYPE_DECK):
        deck[i] = i // SUIT_COPIES
    mt_shuffle_ints(&g.mt, deck, TYPE_DECK)
    for i in range(TYPE_DECK):
        g.order[0][i] = deck[i]
    for i in range(TYPE_DECK):
        deck[i] = NUM_SUITS + i // RANK_COPIES
    mt_shuffle_ints(&g.mt, deck, TYPE_DECK)
    for i in range(TYPE_DECK):
        g.order[1][i] = deck[i]


cdef void begin_round(Game* g, const Config* c) noexcept nogil:
    """A new round from ``g.order``: every player dealt 6 of each type in seat order,
    the sky turned up (2 players), the round's start player to act."""
    cdef int n = c.num_players, p, t, i, k, start = g.round_start
    for t in range(2):
        g.deck_pos[t] = n * DEAL_PER_TYPE
        g.sky_count[t] = 0
        g.track[t] = g.kept_stars[t] = 0
    memset(g.kept, 0, sizeof(g.kept))
    memset(g.hands, 0, sizeof(g.hands))
    memset(g.passed, 0, sizeof(g.passed))
    memset(g.received, 0, sizeof(g.received))
    memset(g.played_from_hand, 0, sizeof(g.played_from_hand))
    memset(g.pick_types, 0, sizeof(g.pick_types))
    memset(g.picks, 0, sizeof(g.picks))
    memset(g.voids, 0, sizeof(g.voids))
    memset(g.sky, 0, sizeof(g.sky))
    memset(g.played, 0, sizeof(g.played))
    for p in range(n):
        for t in range(2):
            for i in range(p * DEAL_PER_TYPE, (p + 1) * DEAL_PER_TYPE):
                g.hands[p][g.order[t][i]] += 1
        hand_changed(g, p)
    g.sky_bits = 0
    if n == 2:
        refill_sky(g, c)
    g.face_up = SUIT_BITS
    for k in range(NUM_SUITS):
        g.turned_by[k] = NOBODY
    g.trump = g.lead_suit = g.lead_by = -1
    g.trick_length = g.tricks_done = 0
    g.leader = g.current_player = start
    # [R] 4 players pass to the partner first; 2 players start with the trump choice.
    g.phase = PASS if n == 4 else TRUMP
    g.legal = compute_legal(g, c)


cdef void exchange(Game* g, const Config* c) noexcept nogil:
    """[R] Every player's picks go to the partner at once, when all have chosen."""
    cdef int p, q, k, gift
    for p in range(4):
        q = (p + 2) % 4
        for k in range(NUM_CARDS):
            gift = g.passed[p][k]
            if gift:
                g.received[q][k] = gift
                g.hands[q][k] += gift
    for p in range(4):
        hand_changed(g, p)


cdef void pick(Game* g, const Config* c, int p, int k) noexcept nogil:
    cdef int nxt
    g.hands[p][k] -= 1
    if not g.hands[p][k]:
        g.hand_bits[p] &= ~(1u << k)
    g.passed[p][k] += 1
    g.pick_types[p][card_type(k)] += 1
    g.picks[p] += 1
    if g.picks[p] < 2 * PASS_PER_TYPE:
        return
    nxt = (p + 1) % c.num_players
    if nxt == g.round_start:
        exchange(g, c)
        g.phase = TRUMP
    g.current_player = nxt


cdef void turn_tile(Game* g, const Config* c, int p, int suit) noexcept nogil:
    # [R] from the start player clockwise, each turns one tile face down until one is
    # left; with 2 players the start player turns the first and the third.
    g.face_up &= ~(1u << suit)
    g.turned_by[suit] = p
    if g.face_up & (g.face_up - 1):
        g.current_player = (p + 1) % c.num_players
        return
    g.trump = 0
    while not (g.face_up >> g.trump) & 1:
        g.trump += 1
    g.phase = PLAY
    g.current_player = g.leader


cdef int end_round(Game* g, const Config* c) noexcept nogil:
    """Score the round, then end the game or deal the next round."""
    cdef int t, n = c.num_players
    cdef int64_t a, b
    for t in range(2):
        g.last_track[t], g.last_kept_stars[t] = g.track[t], g.kept_stars[t]
        g.last_points[t] = points_of(c.track_stars, g.track[t], g.kept_stars[t])
        g.team_scores[t] += g.last_points[t]
    g.round_index += 1
    a, b = g.team_scores[0], g.team_scores[1]
    # [R] the game ends when a team has more than the target and the teams are not
    # tied; [D] the one-round option and the max_rounds cap end it too.
    if c.single or ((a if a > b else b) > c.target and a != b) or g.round_index >= c.max_rounds:
        g.over = 1
        g.current_player = NOBODY
        g.legal = 0
        return GAME_OVER
    # [R] the lead tiles pass clockwise; the trailing team's lead-tile holder starts the
    # next round, the black tile's holder when the teams are tied.
    for t in range(2):
        g.tiles[t] = (g.tiles[t] + 1) % n
    if a == b:
        g.round_start = g.tiles[BLACK]
    else:
        g.round_start = tile_holder(g, 0 if a < b else 1)
    deal(g)
    begin_round(g, c)
    return DEALT


cdef int end_trick(Game* g, const Config* c) noexcept nogil:
    cdef int n = c.num_players, winner, i, k, gained = 0
    # [R] the last card of a trick is always played by the team that did not lead.
    winner = winner_of(4, g.trick_player, g.trick_card, g.trump, g.lead_by % 2,
                       (g.leader + 1) % 2)
    memcpy(g.last_player, g.trick_player, 4)
    memcpy(g.last_card, g.trick_card, 4)
    memcpy(g.last_from_sky, g.trick_from_sky, 4)
    g.last_winner = winner
    g.has_last_trick = 1
    # [R] the winning team advances on the trick track and keeps the starred cards.
    g.track[winner] += 1
    for i in range(4):
        k = g.trick_card[i]
        g.kept[winner][k] += 1
        gained += c.card_stars[k]
    g.kept_stars[winner] += gained
    g.trick_length = 0
    g.lead_suit = g.lead_by = -1
    g.tricks_done += 1
    if n == 2:
        refill_sky(g, c)
    if g.tricks_done == TRICKS_PER_ROUND:
        return end_round(g, c)
    # [R] the winning team's lead-tile holder leads next.
    g.leader = tile_holder(g, winner)
    g.current_player = g.leader
    g.legal = compute_legal(g, c)
    return 0


cdef int play(Game* g, const Config* c, int p, int k, int from_sky) noexcept nogil:
    cdef int left, q, lead = g.lead_suit, t = g.trick_length
    if from_sky:
        left = g.sky[k] - 1
        g.sky[k] = left
        g.sky_count[card_type(k)] -= 1
        if not left:
            g.sky_bits &= ~(1u << k)
    else:
        if k < NUM_SUITS and lead >= 0 and k != lead:
            g.voids[p] |= 1u << lead  # it held no card of the lead suit
        left = g.hands[p][k] - 1
        g.hands[p][k] = left
        if not left:
            g.hand_bits[p] &= ~(1u << k)
        g.played_from_hand[p][k] += 1
    g.played[k] += 1
    if k < NUM_SUITS and lead < 0:
        # [R] the first suit card played sets the lead suit.
        g.lead_suit = k
        g.lead_by = p
    g.trick_player[t] = p
    g.trick_card[t] = k
    g.trick_from_sky[t] = from_sky
    g.trick_length = t + 1
    if t + 1 < 4:
        # [R] four cards a trick: one per player with 4, two turns each with 2.
        g.current_player = q = (g.leader + t + 1) % c.num_players
        if c.num_players == 2:
            g.legal = legal_play2(g, q)
        else:
            g.legal = (<uint64_t>legal_play4(g, q)) << HAND_BASE
        return 0
    return end_trick(g, c)


cdef void game_begin(Game* g, const Config* c) noexcept nogil:
    """The first round, the generator and pinned deals set."""
    memset(g, 0, <size_t>(<char*>&g.pinned - <char*>g))  # all but the pins and generator
    # [D] seat 0 holds the black lead tile, seat 1 the white one, at the first round.
    g.tiles[BLACK] = 0
    g.tiles[WHITE] = 1
    g.round_start = 0
    deal(g)
    begin_round(g, c)


# --- the observation ----------------------------------------------------------------------------

# Feature values by count (count / 3.0 etc. computed in double, stored as float32): a table
# read costs less than a division.
cdef float THIRDS[TYPE_DECK + 1]
cdef float HALVES[TYPE_DECK + 1]
cdef float NINTHS[TYPE_DECK + 1]
cdef float TWELFTHS[TRICKS_PER_ROUND + 1]
for _i in range(TYPE_DECK + 1):
    THIRDS[_i], HALVES[_i], NINTHS[_i] = _i / 3.0, _i / 2.0, _i / 9.0
for _i in range(TRICKS_PER_ROUND + 1):
    TWELFTHS[_i] = _i / 12.0


cdef inline float kept_stars_feature(int stars) noexcept nogil:
    cdef double v = stars / 6.0
    return <float>(v if v < 4.0 else 4.0)


cdef inline int seat_of(int q, int rot, int n) noexcept nogil:
    """The seat of player q in a view rotated by ``rot`` (0 <= rot <= n): (q + rot) % n
    without a division."""
    cdef int s = q + rot
    return s - n if s >= n else s


cdef void write_features(const Game* g, const Config* c, int viewer, float* out) noexcept nogil:
    """``viewer``'s observation (viewer >= 0: seats relative to it, its private blocks
    only), or with viewer -1 the master vector (seats absolute, every player's private
    blocks: the global state). The blocks are laid out as layout.py says (``c.obs_at``,
    ``c.master_at``); what each holds is written here."""
    cdef const int* at = &c.obs_at[0] if viewer >= 0 else &c.master_at[0]
    cdef int n = c.num_players, p, q, k, t, i, base, seat, first, last, rot
    cdef float track_f[2]
    cdef float kept_f[2]
    cdef float score_f[2]
    memset(out, 0, (c.obs_size if viewer >= 0 else c.master_size) * sizeof(float))
    if viewer >= 0:
        rot, first, last = n - viewer, viewer, viewer + 1
    else:
        rot, first, last = 0, 0, n
    for p in range(first, last):  # private blocks
        i = 0 if viewer >= 0 else p * NUM_CARDS
        for k in range(NUM_CARDS):
            out[at[B_HAND] + i + k] = THIRDS[g.hands[p][k]]
        if n == 4:
            for k in range(NUM_CARDS):
                out[at[B_PASSED] + i + k] = HALVES[g.passed[p][k]]
                out[at[B_RECEIVED] + i + k] = HALVES[g.received[p][k]]
    if n == 2:
        for k in range(NUM_CARDS):
            out[at[B_SKY] + k] = THIRDS[g.sky[k]]
        for t in range(2):
            out[at[B_DECK] + t] = NINTHS[TYPE_DECK - g.deck_pos[t]]
    out[at[B_PHASE] + g.phase] = 1.0
    for k in range(NUM_SUITS):
        if g.turned_by[k] >= 0:
            out[at[B_TURNED] + seat_of(g.turned_by[k], rot, n) * NUM_SUITS + k] = 1.0
    if g.trump >= 0:
        out[at[B_TRUMP] + g.trump] = 1.0
    for i in range(g.trick_length):
        base = at[B_TRICK_SKY] if g.trick_from_sky[i] else at[B_TRICK_HAND]
        out[base + seat_of(g.trick_player[i], rot, n) * NUM_CARDS + g.trick_card[i]] = 1.0
    if g.lead_suit >= 0:
        out[at[B_LEAD_SUIT] + g.lead_suit] = 1.0
    if g.lead_by >= 0:
        out[at[B_LEAD_BY] + seat_of(g.lead_by, rot, n)] = 1.0
    out[at[B_LEADER] + seat_of(g.leader, rot, n)] = 1.0
    for k in range(NUM_CARDS):
        out[at[B_PLAYED] + k] = THIRDS[g.played[k]]
    for t in range(2):  # team features, at each member's seat
        track_f[t] = TWELFTHS[g.track[t]]
        kept_f[t] = kept_stars_feature(g.kept_stars[t])
        score_f[t] = score_feature(g.team_scores[t])
    for q in range(n):
        seat = seat_of(q, rot, n)
        out[at[B_TRACK] + seat] = track_f[q & 1]
        out[at[B_KEPT_STARS] + seat] = kept_f[q & 1]
        out[at[B_SCORE] + seat] = score_f[q & 1]
    for t in range(2):
        out[at[B_LEAD_TILES] + seat_of(g.tiles[t], rot, n) * 2 + t] = 1.0
    out[at[B_ROUND_START] + seat_of(g.round_start, rot, n)] = 1.0


# --- the C interface of every core (games/batch.pxi; the contract is in docs/vector.md) --------

cdef int game_apply(Game* g, const Config* c, int action) noexcept nogil:
    """Apply a legal action of the player to act; returns the events (GAME_OVER,
    DEALT)."""
    cdef int p = g.current_player
    if action >= HAND_BASE:
        if action >= SKY_BASE:
            return play(g, c, p, action - SKY_BASE, 1)
        return play(g, c, p, action - HAND_BASE, 0)
    if action >= TRUMP_BASE:
        turn_tile(g, c, p, action - TRUMP_BASE)
    else:
        pick(g, c, p, action - PICK_BASE)
    g.legal = compute_legal(g, c)
    return 0


cdef int game_current_player(const Game* g) noexcept nogil:
    return g.current_player


cdef bint game_is_legal(const Game* g, const Config* c, int action) noexcept nogil:
    return (g.legal >> action) & 1


cdef void game_mask(const Game* g, const Config* c, int8_t* out) noexcept nogil:
    cdef uint64_t bits = g.legal
    cdef int a
    for a in range(NUM_ACTIONS):
        out[a] = (bits >> a) & 1


cdef void game_observe(const Game* g, const Config* c, int player, float* out) noexcept nogil:
    write_features(g, c, player, out)


cdef void game_scores(const Game* g, const Config* c, double* out) noexcept nogil:
    """Each player's team score (partners share it)."""
    cdef int p
    for p in range(c.num_players):
        out[p] = <double>g.team_scores[p % 2]


cdef void game_returns(const Game* g, const Config* c, double* out) noexcept nogil:
    """+1 to each member of the team ahead, -1 to each member of the team behind, 0 to
    all on a tie."""
    cdef int p
    cdef int sign = (g.team_scores[0] > g.team_scores[1]) - (g.team_scores[0] < g.team_scores[1])
    for p in range(c.num_players):
        out[p] = sign if p % 2 == 0 else -sign


# --- Python: the binding every core shares, then this game's own ---------------------------
include "../core_binding.pxi"


cdef float* game_features(Game* g, const Config* c, Py_ssize_t* count) noexcept nogil:
    # No feature vector is kept: observations are written when asked (``Core.master``).
    count[0] = 0
    return NULL


cdef bytes pack_chance(const Config* c, pinned):
    """Pinned deals, each checked (``check_deal``), as the bytes ``deal`` reads."""
    out = bytearray()
    for index, order in enumerate(pinned):
        try:
            suits, ranks = check_deal(order)
        except ValueError as err:
            raise ValueError(f"lunar: pinned chance outcome {index} (round {index + 1}'s deal): "
                             f"{err}") from None
        out += bytes(suits) + bytes(ranks)
    return bytes(out)


# The largest star count a table may give (C ints; a round's points are int64).
STAR_LIMIT = 1 << 30
_INT64_CAP = (1 << 62)


cdef class CoreConfig(ConfigBinding):
    """The options of a game in C form, with the observation layout's tables (built by
    ``make_config``; shared read-only by every game of these options)."""

    cdef readonly object layout


def make_config(options) -> CoreConfig:
    """The C form of ``options`` (a ``LunarOptions``)."""
    from catzoo.games.lunar.layout import layout_for

    cdef CoreConfig cfg = CoreConfig.__new__(CoreConfig)
    cdef Config* c = &cfg.c
    cdef int i, b, n = options.num_players
    if n not in (2, 4):
        raise ValueError(f"lunar core: {n} players; Lunar has 2 or 4")
    layout = layout_for(n)
    if layout.master_size > MAX_MASTER or layout.obs_size > MAX_OBS:
        raise ValueError("lunar core: the layout outgrew MAX_MASTER / MAX_OBS")
    cfg.options, cfg.layout = options, layout
    c.num_players = n
    c.num_actions = NUM_ACTIONS
    c.single = options.rounds == "single"
    c.target = min(int(options.target), _INT64_CAP)  # scores never come near 2**62
    c.max_rounds = min(int(options.max_rounds), _INT64_CAP)
    stars = options.card_stars
    track = options.track_stars
    if len(stars) != NUM_CARDS or len(track) != TRACK_POSITIONS:
        raise ValueError("lunar core: card_stars needs 12 numbers and track_stars 13")
    for i in range(NUM_CARDS):
        c.card_stars[i] = stars[i]
    for i in range(TRACK_POSITIONS):
        if not 0 <= track[i] < STAR_LIMIT:
            raise ValueError(f"lunar: track_stars={tuple(track)!r}: each must be 0 to "
                             f"{STAR_LIMIT - 1}")
        c.track_stars[i] = track[i]
    c.master_size, c.obs_size = layout.master_size, layout.obs_size
    # Each block's start in an observation (public and seat blocks, then the viewer's
    # private ones, in layout order) and in the master vector.
    kinds = {blk.name: (blk.size, blk.kind) for blk in layout.blocks}
    obs_at, pos = {}, 0
    for blk in layout.blocks:
        obs_at[blk.name] = pos
        pos += blk.size * n if blk.kind == "seat" else blk.size
    unknown = set(kinds) - {name for name, _, _ in BLOCK_NAMES}
    if unknown or pos != c.obs_size:
        raise ValueError(f"lunar core: the layout has blocks the core does not write: {unknown}")
    for b, (name, size, kind) in enumerate(BLOCK_NAMES):
        if name in kinds and kinds[name] != (size, kind):
            raise ValueError(f"lunar core: block {name} is {kinds[name]} in the layout, "
                             f"{(size, kind)} here")
        c.obs_at[b] = obs_at.get(name, -1)
        c.master_at[b] = layout.base.get(name, -1)
    return cfg


# --- Python: rule functions that tests and tools call directly --------------------------------

def trick_winner(trick, int trump, int lead_team, int last_team) -> int:
    """The winning team of a complete trick [R].

    ``trick`` holds ``(player, card, ...)`` entries, two cards per team, one suit card
    (0-3) and one rank card (4-11). ``lead_team`` played the first suit card, ``last_team``
    the last card of the trick.

    * both teams' suits equal: the higher rank wins, a tie goes to the team that played last;
    * else a team whose suit is trump wins;
    * else the team that played the first suit card wins.
    """
    cdef int8_t players[4]
    cdef int8_t cards[4]
    cdef int length = 0
    if len(trick) > 4:
        raise ValueError(f"a trick has 4 cards, got {len(trick)}")
    for entry in trick:
        players[length] = check(entry[0], MAX_PLAYERS, "player")
        cards[length] = check(entry[1], NUM_CARDS, "card")
        length += 1
    return winner_of(length, players, cards, trump, lead_team, last_team)


def round_points(int track_position, int kept_stars, track_stars) -> int:
    """[R] The stars beside the team's trick-track position plus one per kept star."""
    cdef int64_t table[TRACK_POSITIONS]
    cdef int i
    if len(track_stars) != TRACK_POSITIONS:
        raise ValueError(f"track_stars has {TRACK_POSITIONS} positions, got {len(track_stars)}")
    for i in range(TRACK_POSITIONS):
        table[i] = track_stars[i]
    return points_of(table, check(track_position, TRACK_POSITIONS, "track position"), kept_stars)


def _deck_error(t: int, seq) -> str | None:
    """Why ``seq`` is not a whole deck of type ``t`` (0 suits, 1 ranks), or None."""
    if len(seq) != TYPE_DECK:
        return f"a deck of {len(seq)} cards, not {TYPE_DECK}"
    counts = [0] * NUM_CARDS
    for card in seq:
        if isinstance(card, bool) or not 0 <= card < NUM_CARDS:
            return f"card {card!r} is out of range 0..{NUM_CARDS - 1}"
        if card_type(card) != t:
            return f"card {card} in the {('suit', 'rank')[t]} deck"
        counts[card] += 1
    copies = SUIT_COPIES if t == 0 else RANK_COPIES
    for card in range(NUM_CARDS):
        if card_type(card) == t and counts[card] != copies:
            return f"the {('suit', 'rank')[t]} deck holds {counts[card]} of card {card}, not {copies}"
    return None


def _cards(seq) -> tuple:
    out = []
    for k in seq:
        if isinstance(k, bool):
            raise TypeError
        out.append(_as_index(k))
    return tuple(out)


def check_deal(order) -> tuple:
    """``order`` (the suit deck's order, the rank deck's order) as a tuple of two tuples
    of ints, or ValueError naming what is wrong: each deck must hold every card of its
    type, 6 of each suit and 3 of each rank."""
    try:
        suits, ranks = order
        out = (_cards(suits), _cards(ranks))
    except (TypeError, ValueError):
        raise ValueError(f"a deal is (suit deck, rank deck) of card numbers; got {order!r}") from None
    for t in range(2):
        why = _deck_error(t, out[t])
        if why is not None:
            raise ValueError(f"lunar core: {why}")
    return out


# --- Python: one game -------------------------------------------------------------------------

# Field names of ``fields()`` / ``load()`` besides the per-player and per-card rows.
SCALARS = ("num_players", "phase", "current_player", "round_start", "leader", "face_up",
           "trump", "lead_suit", "lead_by", "tricks_done", "legal", "round_index", "over")


cdef class Core(CoreBinding):
    """One whole game of Lunar (a ``Game`` struct) for the Python state
    (``LunarState._core``): the binding of core_binding.pxi, and this game's readers and
    setters. Observations are written from the game when asked (``observe``; ``master``
    gives the whole feature vector): the core keeps no feature vector, so it has no
    buffer.
    """

    def refresh_legal(self):
        """Recompute the legal moves (after the game was changed from outside)."""
        self.g.legal = compute_legal(&self.g, &self.config.c)

    @property
    def legal(self):
        return self.g.legal

    def master(self):
        """Every feature of the game, each player's private ones included (the global
        state), in the master order of ``layout.py``: a new float32 array."""
        out = _empty(self.config.c.master_size, _FLOAT32)
        write_features(&self.g, &self.config.c, -1, <float*>array_data(out))
        return out

    def scores(self) -> list:
        """Each player's team score (partners share it)."""
        cdef int p
        return [self.g.team_scores[p % 2] for p in range(self.config.c.num_players)]

    def standing_keys(self) -> list:
        cdef int p
        return [(self.g.team_scores[p % 2],) for p in range(self.config.c.num_players)]

    # --- reading the game -----------------------------------------------------------------------
    @property
    def phase(self):
        """PASS, TRUMP or PLAY."""
        return self.g.phase

    @property
    def round_start(self):
        """The round's start player."""
        return self.g.round_start

    @property
    def leader(self):
        """The player who leads the trick in progress."""
        return self.g.leader

    @property
    def face_up(self):
        """Trump tiles still face up (bits by suit)."""
        return self.g.face_up

    @property
    def trump(self):
        """The trump suit, or -1 before it is set."""
        return self.g.trump

    @property
    def lead_suit(self):
        """The trick's lead suit (its first suit card's), or -1 before one is played."""
        return self.g.lead_suit

    @property
    def lead_by(self):
        """The player who played the trick's first suit card, or -1."""
        return self.g.lead_by

    @property
    def tricks_done(self):
        """Tricks finished this round."""
        return self.g.tricks_done

    @property
    def round_index(self):
        """Rounds scored so far."""
        return self.g.round_index

    @property
    def over(self):
        return bool(self.g.over)

    @property
    def trick(self):
        """The trick in progress: (player, card, from the sky) per card, in order."""
        cdef int i
        return tuple([(self.g.trick_player[i], self.g.trick_card[i],
                       bool(self.g.trick_from_sky[i])) for i in range(self.g.trick_length)])

    @property
    def last_trick(self):
        """The last finished trick (of this round or the one before): its cards as
        ``trick`` gives them and the winning team; None before the first."""
        cdef int i
        if not self.g.has_last_trick:
            return None
        return (tuple([(self.g.last_player[i], self.g.last_card[i], bool(self.g.last_from_sky[i]))
                       for i in range(4)]), self.g.last_winner)

    cdef list _rows(self, int8_t (*rows)[NUM_CARDS], int count):
        cdef int p, k
        return [[rows[p][k] for k in range(NUM_CARDS)] for p in range(count)]

    @property
    def hands(self):
        """``hands[p][c]``: p's cards of identity c."""
        return self._rows(self.g.hands, self.config.c.num_players)

    @property
    def passed(self):
        """``passed[p][c]``: cards p put aside for the partner (4 players)."""
        return self._rows(self.g.passed, self.config.c.num_players)

    @property
    def received(self):
        """``received[p][c]``: cards p received from the partner (4 players)."""
        return self._rows(self.g.received, self.config.c.num_players)

    @property
    def played_from_hand(self):
        """``played_from_hand[p][c]``: p's cards of identity c played from its hand this
        round."""
        return self._rows(self.g.played_from_hand, self.config.c.num_players)

    @property
    def kept(self):
        """``kept[team][c]``: the cards of the tricks each team won this round."""
        return self._rows(self.g.kept, 2)

    @property
    def hand_bits(self):
        cdef int p
        return [self.g.hand_bits[p] for p in range(self.config.c.num_players)]

    @property
    def sky(self):
        """The sky's count of each card (2 players)."""
        cdef int k
        return [self.g.sky[k] for k in range(NUM_CARDS)]

    @property
    def played(self):
        """Cards played this round, per card."""
        cdef int k
        return [self.g.played[k] for k in range(NUM_CARDS)]

    @property
    def turned_by(self):
        """Per suit, the player who turned its trump tile face down, or -1."""
        cdef int k
        return [self.g.turned_by[k] for k in range(NUM_SUITS)]

    @property
    def track(self):
        """Each team's trick-track position."""
        return [self.g.track[0], self.g.track[1]]

    @property
    def kept_stars(self):
        """Per team, the stars on the cards of the tricks it won this round."""
        return [self.g.kept_stars[0], self.g.kept_stars[1]]

    @property
    def voids(self):
        """Per player, the suits it proved absent from its hand by not following."""
        cdef int p
        return [self.g.voids[p] for p in range(self.config.c.num_players)]

    @property
    def picks(self):
        """Per player, the pass picks made this round."""
        cdef int p
        return [self.g.picks[p] for p in range(self.config.c.num_players)]

    @property
    def order(self):
        """The round's (suit deck, rank deck) order."""
        cdef int t, i
        return tuple([tuple([self.g.order[t][i] for i in range(TYPE_DECK)]) for t in range(2)])

    @property
    def deal(self):
        """The chance outcome of the round's deal, as the chance record holds it."""
        return self.order

    @property
    def deck_pos(self):
        """Per deck (suit, rank), the next card to draw into the sky."""
        return [self.g.deck_pos[0], self.g.deck_pos[1]]

    @property
    def tiles(self):
        """The seats holding the black and the white lead tile."""
        return [self.g.tiles[0], self.g.tiles[1]]

    @property
    def last_points(self):
        """The points of the last round scored, per team."""
        return (self.g.last_points[0], self.g.last_points[1])

    @property
    def last_round(self):
        """What the last round scored was scored from: each team's trick-track position
        and kept stars at its end, and the points."""
        return {"track": [self.g.last_track[0], self.g.last_track[1]],
                "kept_stars": [self.g.last_kept_stars[0], self.g.last_kept_stars[1]],
                "points": self.last_points}

    @property
    def team_scores(self):
        """Both teams' scores; setting them (rule scenarios start from a given score)
        checks their range."""
        return [self.g.team_scores[0], self.g.team_scores[1]]

    @team_scores.setter
    def team_scores(self, scores):
        a, b = (int(s) for s in scores)
        if not (-_INT64_CAP <= a <= _INT64_CAP and -_INT64_CAP <= b <= _INT64_CAP):
            raise ValueError(f"lunar core: team scores {scores!r} out of range")
        self.g.team_scores[0], self.g.team_scores[1] = a, b

    # --- changing the round from outside (re-sampling) ------------------------------------------
    cdef int _counts(self, int8_t* row, counts, int limit) except -1:
        cdef int k
        if len(counts) != NUM_CARDS:
            raise ValueError(f"lunar core: {len(counts)} card counts, not {NUM_CARDS}")
        values = [check(counts[k], limit + 1, "card count") for k in range(NUM_CARDS)]
        for k in range(NUM_CARDS):
            row[k] = values[k]
        return 0

    def set_hand(self, int p, counts):
        """Give p these cards (re-sampling hidden hands)."""
        check(p, self.config.c.num_players, "player")
        self._counts(self.g.hands[p], counts, TYPE_DECK)
        hand_changed(&self.g, p)

    def set_passed(self, int p, counts):
        """p's pass picks: the cards and, from them, the count per type."""
        cdef int k
        check(p, self.config.c.num_players, "player")
        self._counts(self.g.passed[p], counts, TYPE_DECK)
        self.g.pick_types[p][0] = self.g.pick_types[p][1] = 0
        for k in range(NUM_CARDS):
            self.g.pick_types[p][card_type(k)] += self.g.passed[p][k]

    def set_received(self, int p, counts):
        """The cards p received from its partner (4 players)."""
        check(p, self.config.c.num_players, "player")
        self._counts(self.g.received[p], counts, TYPE_DECK)

    def set_order(self, order):
        """The round's (suit deck, rank deck), 24 cards each, every card of its type
        (checked: ValueError naming what is wrong, and nothing changed)."""
        cdef int i
        suits, ranks = check_deal(order)
        for i in range(TYPE_DECK):
            self.g.order[0][i] = suits[i]
            self.g.order[1][i] = ranks[i]

    # --- the whole game as plain values ---------------------------------------------------------
    def fields(self) -> dict:
        """The whole game as plain Python values (``load`` takes them back)."""
        out = {name: getattr(self, name) for name in SCALARS}
        out.update(hands=self.hands, passed=self.passed, received=self.received,
                   played_from_hand=self.played_from_hand, kept=self.kept, sky=self.sky,
                   played=self.played, turned_by=self.turned_by, track=self.track,
                   kept_stars=self.kept_stars, voids=self.voids, picks=self.picks,
                   order=self.order, deck_pos=self.deck_pos, tiles=self.tiles,
                   trick=self.trick, last_trick=self.last_trick,
                   team_scores=self.team_scores, last_round=self.last_round,
                   mt_state=self.mt_state)
        return out

    def load(self, fields: dict) -> None:
        """Set the game from ``fields`` (as ``fields()`` returns them), every index
        checked before it reaches a C array; on an error nothing is changed."""
        cdef Core staged = self.copy()
        staged._load(fields)
        self.g = staged.g

    cdef int _load(self, dict fields) except -1:
        cdef int p, k, t, i, n = self.config.c.num_players
        cdef Game* g = &self.g
        if fields["num_players"] != n or len(fields["trick"]) > 4:
            raise ValueError("lunar core: fields of another player count, or a trick of more "
                             "than 4 cards")
        g.phase = check(fields["phase"], 3, "phase")
        g.current_player = check_or_none(fields["current_player"], n, "player")
        g.round_start = check(fields["round_start"], n, "player")
        g.leader = check(fields["leader"], n, "player")
        g.lead_by = check_or_none(fields["lead_by"], n, "player")
        g.face_up = check(fields["face_up"], SUIT_BITS + 1, "tile set")
        g.trump = check_or_none(fields["trump"], NUM_SUITS, "suit")
        g.lead_suit = check_or_none(fields["lead_suit"], NUM_SUITS, "suit")
        g.tricks_done = check(fields["tricks_done"], TRICKS_PER_ROUND + 1, "trick count")
        g.legal = fields["legal"] & ((<uint64_t>1 << NUM_ACTIONS) - 1)
        g.round_index = check(fields["round_index"], 1 << 30, "round index")
        g.over = bool(fields["over"])
        self.set_order(fields["order"])
        g.tiles[0], g.tiles[1] = [check(s, n, "seat") for s in fields["tiles"]]
        for p in range(n):
            self._counts(g.hands[p], fields["hands"][p], TYPE_DECK)
            self._counts(g.passed[p], fields["passed"][p], TYPE_DECK)
            self._counts(g.received[p], fields["received"][p], TYPE_DECK)
            self._counts(g.played_from_hand[p], fields["played_from_hand"][p], TYPE_DECK)
            hand_changed(g, p)
            g.pick_types[p][0] = g.pick_types[p][1] = 0
            for k in range(NUM_CARDS):
                g.pick_types[p][card_type(k)] += g.passed[p][k]
            g.voids[p] = check(fields["voids"][p], SUIT_BITS + 1, "void set")
            g.picks[p] = check(fields["picks"][p], 2 * PASS_PER_TYPE + 1, "pick count")
        self._counts(g.sky, fields["sky"], TYPE_DECK)
        self._counts(g.played, fields["played"], TYPE_DECK)
        g.sky_bits = 0
        g.sky_count[0] = g.sky_count[1] = 0
        for k in range(NUM_CARDS):
            if g.sky[k]:
                g.sky_bits |= 1u << k
                g.sky_count[card_type(k)] += g.sky[k]
        for k in range(NUM_SUITS):
            g.turned_by[k] = check_or_none(fields["turned_by"][k], n, "player")
        for t in range(2):
            g.deck_pos[t] = check(fields["deck_pos"][t], TYPE_DECK + 1, "deck position")
            g.track[t] = check(fields["track"][t], TRICKS_PER_ROUND + 1, "track position")
            g.kept_stars[t] = check(fields["kept_stars"][t], 1 << 30, "star count")
            self._counts(g.kept[t], fields["kept"][t], TYPE_DECK)
        g.trick_length = 0
        for p, k, from_sky in fields["trick"]:
            t = g.trick_length
            g.trick_player[t] = check(p, n, "player")
            g.trick_card[t] = check(k, NUM_CARDS, "card")
            g.trick_from_sky[t] = bool(from_sky)
            g.trick_length += 1
        last = fields["last_trick"]
        g.has_last_trick = last is not None
        if last is not None:
            cards, winner = last
            if len(cards) != 4:
                raise ValueError("lunar core: a last trick of 4 cards")
            for i in range(4):
                p, k, from_sky = cards[i]
                g.last_player[i] = check(p, n, "player")
                g.last_card[i] = check(k, NUM_CARDS, "card")
                g.last_from_sky[i] = bool(from_sky)
            g.last_winner = check(winner, 2, "team")
        self.team_scores = fields["team_scores"]
        last = fields["last_round"]
        for t in range(2):
            g.last_points[t] = int(last["points"][t])
            g.last_track[t] = check(last["track"][t], TRICKS_PER_ROUND + 1, "track position")
            g.last_kept_stars[t] = check(last["kept_stars"][t], 1 << 30, "star count")
        self.mt_state = fields["mt_state"]
        return 0


include "../batch.pxi"
