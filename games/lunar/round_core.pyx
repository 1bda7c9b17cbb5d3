# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The round in progress of Lunar, held and played in C.

As for Cat in the Box (see its ``round_core.pyx``): the env applies one action per
agent-step, and in Python the rules of a play cost more than the PettingZoo API around
them. This extension type keeps what a round changes as C integers and arrays, applies
pass picks, trump turns and plays, keeps the legal moves as a bit set and writes the
observation features into the state's master vector. Dealing, round scoring and the
game's end stay in Python (``state.py``), which reads the round through properties.

Sources are tagged as in docs/rules/lunar.md: [R] published rulebook (via rules-notes),
[S] seed text, [D] a documented project decision. Cards are identities 0-11: suit cards
wolf 0, owl 1, lynx 2, bat 3; rank cards 1-8 are cards 4-11. Player ``p`` is on team
``p % 2``.
"""

cdef enum:
    MAX_PLAYERS = 4
    NUM_SUITS = 4
    NUM_CARDS = 12
    TYPE_DECK = 24  # suit cards, and rank cards, in each deck
    DEAL_PER_TYPE = 6
    PASS_PER_TYPE = 2
    SKY_PER_TYPE = 3
    TRICKS_PER_ROUND = 12
    PASS = 0
    TRUMP = 1
    PLAY = 2
    PICK_BASE = 0
    TRUMP_BASE = 12
    HAND_BASE = 16
    SKY_BASE = 28
    NOBODY = -1
    ROUND_GOES_ON = 0
    ROUND_OVER = 1

cdef unsigned int SUIT_BITS = (1 << NUM_SUITS) - 1
cdef unsigned int RANK_BITS = ((1 << NUM_CARDS) - 1) & ~SUIT_BITS
cdef unsigned int TYPE_BITS[2]
TYPE_BITS[0], TYPE_BITS[1] = SUIT_BITS, RANK_BITS

SCALARS = ("num_players", "phase", "current_player", "round_start", "leader", "face_up",
           "trump", "lead_suit", "lead_by", "tricks_done", "legal")
OFFSETS = ("hand", "passed", "received", "sky", "deck", "phase", "turned", "trump",
           "trick_hand", "trick_sky", "lead_suit", "lead_by", "leader", "played", "track",
           "kept_stars")


include "../range_check.pxi"  # check(value, limit, what)


cdef inline int card_type(int card):
    """0 for a suit card, 1 for a rank card."""
    return 0 if card < NUM_SUITS else 1


cdef inline unsigned int follow_mask(unsigned int area_bits, int lead):
    """[R] The cards of an area that may be played: a suit card must follow the lead suit
    when the area holds one; rank cards are never restricted by it."""
    if lead >= 0 and area_bits >> lead & 1:
        return (area_bits & RANK_BITS) | (1u << lead)
    return area_bits


cdef int winner_of(int length, int *players, int *cards, int trump, int lead_team,
                   int last_team):
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


def trick_winner(trick, int trump, int lead_team, int last_team) -> int:
    """The winning team of a complete trick [R].

    ``trick`` holds ``(player, card, ...)`` entries, two cards per team, one suit card
    (0-3) and one rank card (4-11). ``lead_team`` played the first suit card, ``last_team``
    the last card of the trick.

    * both teams' suits equal: the higher rank wins, a tie goes to the team that played last;
    * else a team whose suit is trump wins;
    * else the team that played the first suit card wins.
    """
    cdef int players[4]
    cdef int cards[4]
    cdef int length = 0
    if len(trick) > 4:
        raise ValueError(f"a trick has 4 cards, got {len(trick)}")
    for entry in trick:
        players[length], cards[length] = entry[0], entry[1]
        length += 1
    return winner_of(length, players, cards, trump, lead_team, last_team)


cdef class RoundCore:
    """One round's state: hands, the pass, the trump tiles, the sky and decks, the trick,
    the track and kept cards.

    ``apply`` returns ``ROUND_OVER`` (1) when the round's last trick is done and the Python
    state must score it; otherwise the player to act and the legal moves are
    ``current_player`` and ``legal``.
    """

    cdef float[::1] m
    cdef object master
    cdef int o_hand, o_passed, o_received, o_sky, o_deck, o_phase, o_turned, o_trump
    cdef int o_trick_hand, o_trick_sky, o_lead_suit, o_lead_by, o_leader, o_played, o_track
    cdef int o_kept_stars
    cdef readonly int num_players, phase, current_player, round_start, leader
    cdef readonly int trump, lead_suit, lead_by, tricks_done
    cdef readonly unsigned int face_up
    cdef readonly unsigned long long legal
    cdef int stars[NUM_CARDS]
    cdef int tiles[2]
    cdef int order[2][TYPE_DECK]
    cdef int deck_pos_[2], sky_count[2]
    cdef int hands_[MAX_PLAYERS][NUM_CARDS]
    cdef unsigned int hand_bits_[MAX_PLAYERS]
    cdef int sky_[NUM_CARDS]
    cdef unsigned int sky_bits
    cdef int passed_[MAX_PLAYERS][NUM_CARDS], received_[MAX_PLAYERS][NUM_CARDS]
    cdef int pick_types[MAX_PLAYERS][2], picks_[MAX_PLAYERS]
    cdef int turned_by_[NUM_SUITS]
    cdef int trick_player[4], trick_card[4]
    cdef bint trick_from_sky[4]
    cdef int trick_length
    cdef int track_[2], kept_[2][NUM_CARDS], kept_stars_[2]
    cdef int played_[NUM_CARDS], played_from_hand_[MAX_PLAYERS][NUM_CARDS]
    cdef unsigned int voids_[MAX_PLAYERS]
    cdef readonly object last_trick

    def __init__(self, int num_players, card_stars, master, offsets):
        """``card_stars``: the stars of each card; ``offsets``: the layout's block starts
        (``layout.at``; blocks of the other player count are absent); ``master`` the
        state's float32 feature vector, written in place."""
        cdef int c
        if num_players not in (2, 4):
            raise ValueError(f"RoundCore: {num_players} players; Lunar has 2 or 4")
        self.num_players = num_players
        for c in range(NUM_CARDS):
            self.stars[c] = card_stars[c]
        self._use(master)
        self._set_offsets([getattr(offsets, name, -1) for name in OFFSETS])
        self.current_player = NOBODY
        self.last_trick = None

    cdef void _use(self, master):
        self.master = master
        self.m = master

    cdef void _set_offsets(self, values):
        (self.o_hand, self.o_passed, self.o_received, self.o_sky, self.o_deck, self.o_phase,
         self.o_turned, self.o_trump, self.o_trick_hand, self.o_trick_sky, self.o_lead_suit,
         self.o_lead_by, self.o_leader, self.o_played, self.o_track, self.o_kept_stars) = values

    def _offsets(self):
        return (self.o_hand, self.o_passed, self.o_received, self.o_sky, self.o_deck,
                self.o_phase, self.o_turned, self.o_trump, self.o_trick_hand, self.o_trick_sky,
                self.o_lead_suit, self.o_lead_by, self.o_leader, self.o_played, self.o_track,
                self.o_kept_stars)

    def begin(self, order, tiles, int round_start):
        """A new round: ``order`` the shuffled (suit deck, rank deck), each 24 cards, from
        which every player is dealt 6 of each type in seat order; ``tiles`` the seats
        holding the black and the white lead tile; the round's start player, who acts
        first. The master vector must be zeroed, and the scores, lead tiles and start
        player written, by the caller; the rest of the round's start is written here."""
        cdef int p, t, i, c, n = self.num_players
        self.set_order(order)
        for t in range(2):
            self.deck_pos_[t] = n * DEAL_PER_TYPE
            self.sky_count[t] = 0
            self.track_[t] = self.kept_stars_[t] = 0
            for c in range(NUM_CARDS):
                self.kept_[t][c] = 0
        self.tiles[0], self.tiles[1] = check(tiles[0], n, "seat"), check(tiles[1], n, "seat")
        check(round_start, n, "player")
        for p in range(n):
            for c in range(NUM_CARDS):
                self.hands_[p][c] = self.passed_[p][c] = self.received_[p][c] = 0
                self.played_from_hand_[p][c] = 0
            for t in range(2):
                for i in range(p * DEAL_PER_TYPE, (p + 1) * DEAL_PER_TYPE):
                    self.hands_[p][self.order[t][i]] += 1
            self._hand_changed(p)
            self.pick_types[p][0] = self.pick_types[p][1] = self.picks_[p] = 0
            self.voids_[p] = 0
        for c in range(NUM_CARDS):
            self.sky_[c] = self.played_[c] = 0
        self.sky_bits = 0
        if n == 2:
            self._refill_sky()
        self.face_up = SUIT_BITS
        for c in range(NUM_SUITS):
            self.turned_by_[c] = NOBODY
        self.trump = self.lead_suit = self.lead_by = -1
        self.trick_length = self.tricks_done = 0
        self.round_start = self.leader = self.current_player = round_start
        self.m[self.o_leader + round_start] = 1.0
        # [R] 4 players pass to the partner first; 2 players start with the trump choice.
        self.phase = PASS if n == 4 else TRUMP
        self.m[self.o_phase + self.phase] = 1.0
        self.legal = self._compute_legal()

    def end_game(self):
        """The game is over: nobody acts, nothing is legal."""
        self.current_player = NOBODY
        self.legal = 0

    cdef void _hand_changed(self, int p):
        """p's hand bits and hand features, from its counts."""
        cdef int c
        self.hand_bits_[p] = 0
        for c in range(NUM_CARDS):
            if self.hands_[p][c]:
                self.hand_bits_[p] |= 1u << c
            self.m[self.o_hand + p * NUM_CARDS + c] = self.hands_[p][c] / 3.0

    # --- legal moves ----------------------------------------------------------------------
    cdef unsigned long long _compute_legal(self):
        cdef int p = self.current_player, t
        cdef unsigned int allowed = 0
        if p == NOBODY:
            return 0
        if self.phase == PLAY:
            if self.num_players == 4:
                return (<unsigned long long>self._legal_play4(p)) << HAND_BASE
            return self._legal_play2(p)
        if self.phase == TRUMP:
            return (<unsigned long long>self.face_up) << TRUMP_BASE
        # [R] 4 players pass 2 ranks and 2 suits; picks are one card at a time.
        for t in range(2):
            if self.pick_types[p][t] < PASS_PER_TYPE:
                allowed |= TYPE_BITS[t]
        return (<unsigned long long>(self.hand_bits_[p] & allowed)) << PICK_BASE

    cdef unsigned int _legal_play4(self, int p):
        cdef unsigned int hand = follow_mask(self.hand_bits_[p], self.lead_suit)
        cdef int i, partner = (p + 2) % 4
        for i in range(self.trick_length):
            if self.trick_player[i] == partner:
                # [R] the second teammate to play in a trick plays the other type.
                return hand & TYPE_BITS[1 - card_type(self.trick_card[i])]
        return hand

    cdef unsigned long long _legal_play2(self, int p):
        cdef unsigned int hand = self.hand_bits_[p], sky = self.sky_bits, other
        cdef unsigned int from_hand, from_sky
        cdef int lead = self.lead_suit, card
        if self.trick_length >= 2:
            # [R] the second turn: the other area and the other type. Turns alternate, so
            # the player's first card is the one before last.
            card = self.trick_card[self.trick_length - 2]
            other = RANK_BITS if card < NUM_SUITS else SUIT_BITS
            if self.trick_from_sky[self.trick_length - 2]:
                return (<unsigned long long>(follow_mask(hand, lead) & other)) << HAND_BASE
            return (<unsigned long long>(follow_mask(sky, lead) & other)) << SKY_BASE
        # First turn: either area and type, as long as the other area still has a card of
        # the other type for the second turn.
        from_hand = (SUIT_BITS if sky & RANK_BITS else 0) | (RANK_BITS if sky & SUIT_BITS else 0)
        from_sky = (SUIT_BITS if hand & RANK_BITS else 0) | (RANK_BITS if hand & SUIT_BITS else 0)
        return ((<unsigned long long>(follow_mask(hand, lead) & from_hand)) << HAND_BASE
                | (<unsigned long long>(follow_mask(sky, lead) & from_sky)) << SKY_BASE)

    def refresh_legal(self):
        """Recompute the legal moves (after the round was changed from outside)."""
        self.legal = self._compute_legal()

    # --- applying actions -------------------------------------------------------------------
    cpdef int apply(self, int action) except -1:
        """Apply a legal action of the player to act (the caller checked it: an illegal
        one raises ValueError here, as a last guard of the C arrays)."""
        cdef int p = self.current_player
        if not 0 <= action < 64 or not (self.legal >> action) & 1:
            raise ValueError(f"RoundCore: action {action} is not legal")
        if action >= HAND_BASE:
            if action >= SKY_BASE:
                return self._play(p, action - SKY_BASE, True)
            return self._play(p, action - HAND_BASE, False)
        if action >= TRUMP_BASE:
            self._turn_tile(p, action - TRUMP_BASE)
        else:
            self._pick(p, action - PICK_BASE)
        self.legal = self._compute_legal()
        return ROUND_GOES_ON

    cdef void _pick(self, int p, int c):
        cdef int nxt
        self.hands_[p][c] -= 1
        if not self.hands_[p][c]:
            self.hand_bits_[p] &= ~(1u << c)
        self.m[self.o_hand + p * NUM_CARDS + c] = self.hands_[p][c] / 3.0
        self.passed_[p][c] += 1
        self.pick_types[p][card_type(c)] += 1
        self.picks_[p] += 1
        self.m[self.o_passed + p * NUM_CARDS + c] = self.passed_[p][c] / 2.0
        if self.picks_[p] < 2 * PASS_PER_TYPE:
            return
        nxt = (p + 1) % self.num_players
        if nxt == self.round_start:
            self._exchange()
            self._set_phase(TRUMP)
        self.current_player = nxt

    cdef void _exchange(self):
        """[R] Every player's picks go to the partner at once, when all have chosen."""
        cdef int p, q, c, gift
        for p in range(4):
            q = (p + 2) % 4
            for c in range(NUM_CARDS):
                gift = self.passed_[p][c]
                if gift:
                    self.received_[q][c] = gift
                    self.hands_[q][c] += gift
                    self.m[self.o_hand + q * NUM_CARDS + c] = self.hands_[q][c] / 3.0
                    self.m[self.o_received + q * NUM_CARDS + c] = gift / 2.0
        for p in range(4):
            self._hand_changed(p)

    cdef void _set_phase(self, int phase):
        self.m[self.o_phase + self.phase] = 0.0
        self.m[self.o_phase + phase] = 1.0
        self.phase = phase

    cdef void _turn_tile(self, int p, int suit):
        # [R] from the start player clockwise, each turns one tile face down until one is
        # left; with 2 players the start player turns the first and the third.
        self.face_up &= ~(1u << suit)
        self.turned_by_[suit] = p
        self.m[self.o_turned + p * NUM_SUITS + suit] = 1.0
        if self.face_up & (self.face_up - 1):
            self.current_player = (p + 1) % self.num_players
            return
        self.trump = 0
        while not (self.face_up >> self.trump) & 1:
            self.trump += 1
        self.m[self.o_trump + self.trump] = 1.0
        self._set_phase(PLAY)
        self.current_player = self.leader

    cdef int _play(self, int p, int c, bint from_sky):
        cdef int left, q, lead = self.lead_suit, t = self.trick_length
        cdef float[::1] m = self.m
        if from_sky:
            left = self.sky_[c] - 1
            self.sky_[c] = left
            self.sky_count[card_type(c)] -= 1
            if not left:
                self.sky_bits &= ~(1u << c)
            m[self.o_sky + c] = left / 3.0
            m[self.o_trick_sky + p * NUM_CARDS + c] = 1.0
        else:
            if c < NUM_SUITS and lead >= 0 and c != lead:
                self.voids_[p] |= 1u << lead  # it held no card of the lead suit
            left = self.hands_[p][c] - 1
            self.hands_[p][c] = left
            if not left:
                self.hand_bits_[p] &= ~(1u << c)
            m[self.o_hand + p * NUM_CARDS + c] = left / 3.0
            self.played_from_hand_[p][c] += 1
            m[self.o_trick_hand + p * NUM_CARDS + c] = 1.0
        self.played_[c] += 1
        m[self.o_played + c] = self.played_[c] / 3.0
        if c < NUM_SUITS and lead < 0:
            # [R] the first suit card played sets the lead suit.
            self.lead_suit = c
            self.lead_by = p
            m[self.o_lead_suit + c] = 1.0
            m[self.o_lead_by + p] = 1.0
        self.trick_player[t], self.trick_card[t], self.trick_from_sky[t] = p, c, from_sky
        self.trick_length = t + 1
        if t + 1 < 4:
            # [R] four cards a trick: one per player with 4, two turns each with 2.
            self.current_player = q = (self.leader + t + 1) % self.num_players
            if self.num_players == 2:
                self.legal = self._legal_play2(q)
            else:
                self.legal = (<unsigned long long>self._legal_play4(q)) << HAND_BASE
            return ROUND_GOES_ON
        return self._end_trick()

    cdef int _end_trick(self):
        cdef int n = self.num_players, winner, i, q, c, gained = 0, base
        cdef float[::1] m = self.m
        # [R] the last card of a trick is always played by the team that did not lead.
        winner = winner_of(4, self.trick_player, self.trick_card, self.trump,
                           self.lead_by % 2, (self.leader + 1) % 2)
        self.last_trick = (self.trick, winner)
        # [R] the winning team advances on the trick track and keeps the starred cards.
        self.track_[winner] += 1
        for i in range(4):
            c = self.trick_card[i]
            self.kept_[winner][c] += 1
            gained += self.stars[c]
            base = self.o_trick_sky if self.trick_from_sky[i] else self.o_trick_hand
            m[base + self.trick_player[i] * NUM_CARDS + c] = 0.0
        self.kept_stars_[winner] += gained
        for q in range(winner, n, 2):
            m[self.o_track + q] = self.track_[winner] / 12.0
            m[self.o_kept_stars + q] = min(self.kept_stars_[winner] / 6.0, 4.0)
        m[self.o_lead_suit + self.lead_suit] = 0.0
        m[self.o_lead_by + self.lead_by] = 0.0
        self.trick_length = 0
        self.lead_suit = self.lead_by = -1
        self.tricks_done += 1
        if n == 2:
            self._refill_sky()
        if self.tricks_done == TRICKS_PER_ROUND:
            return ROUND_OVER
        # [R] the winning team's lead-tile holder leads next.
        m[self.o_leader + self.leader] = 0.0
        self.leader = self.tiles[0] if self.tiles[0] % 2 == winner else self.tiles[1]
        m[self.o_leader + self.leader] = 1.0
        self.current_player = self.leader
        self.legal = self._compute_legal()
        return ROUND_GOES_ON

    cdef void _refill_sky(self):
        """[D] Refill by type: ranks back to 3 from the rank deck, suits back to 3 from
        the suit deck, as far as each deck lasts. (It also deals the first sky.)"""
        cdef int t, c, pos
        for t in range(2):
            pos = self.deck_pos_[t]
            if self.sky_count[t] == SKY_PER_TYPE:
                continue
            while self.sky_count[t] < SKY_PER_TYPE and pos < TYPE_DECK:
                c = self.order[t][pos]
                self.sky_[c] += 1
                self.sky_bits |= 1u << c
                self.m[self.o_sky + c] = self.sky_[c] / 3.0
                self.sky_count[t] += 1
                pos += 1
            self.deck_pos_[t] = pos
            self.m[self.o_deck + t] = (TYPE_DECK - pos) / 9.0

    # --- reading the round --------------------------------------------------------------------
    @property
    def trick(self):
        """The trick in progress: (player, card, from the sky) per card, in order."""
        return tuple([(self.trick_player[i], self.trick_card[i], bool(self.trick_from_sky[i]))
                      for i in range(self.trick_length)])

    cdef list _rows(self, int (*rows)[NUM_CARDS], int count):
        return [[rows[p][c] for c in range(NUM_CARDS)] for p in range(count)]

    @property
    def hands(self):
        """``hands[p][c]``: p's cards of identity c."""
        return self._rows(self.hands_, self.num_players)

    @property
    def passed(self):
        """``passed[p][c]``: cards p put aside for the partner (4 players)."""
        return self._rows(self.passed_, self.num_players)

    @property
    def received(self):
        """``received[p][c]``: cards p received from the partner (4 players)."""
        return self._rows(self.received_, self.num_players)

    @property
    def played_from_hand(self):
        return self._rows(self.played_from_hand_, self.num_players)

    @property
    def kept(self):
        """``kept[team][c]``: the cards of the tricks each team won this round."""
        return self._rows(self.kept_, 2)

    @property
    def hand_bits(self):
        return [self.hand_bits_[p] for p in range(self.num_players)]

    @property
    def sky(self):
        return [self.sky_[c] for c in range(NUM_CARDS)]

    @property
    def played(self):
        return [self.played_[c] for c in range(NUM_CARDS)]

    @property
    def turned_by(self):
        """Per suit, the player who turned its trump tile face down, or -1."""
        return [self.turned_by_[c] for c in range(NUM_SUITS)]

    @property
    def track(self):
        return [self.track_[0], self.track_[1]]

    @property
    def kept_stars(self):
        return [self.kept_stars_[0], self.kept_stars_[1]]

    @property
    def voids(self):
        """Per player, the suits it proved absent from its hand by not following."""
        return [self.voids_[p] for p in range(self.num_players)]

    @property
    def picks(self):
        """Per player, the pass picks made this round."""
        return [self.picks_[p] for p in range(self.num_players)]

    @property
    def order(self):
        """The round's shuffled (suit deck, rank deck)."""
        return tuple([tuple([self.order[t][i] for i in range(TYPE_DECK)]) for t in range(2)])

    @property
    def deck_pos(self):
        """Per deck (suit, rank), the next card to draw into the sky."""
        return [self.deck_pos_[0], self.deck_pos_[1]]

    @property
    def tiles_held(self):
        return (self.tiles[0], self.tiles[1])

    # --- changing the round from outside (re-sampling) ------------------------------------------
    def set_hand(self, int p, counts):
        """Give p these cards (re-sampling hidden hands), features included."""
        cdef int c
        check(p, self.num_players, "player")
        for c in range(NUM_CARDS):
            self.hands_[p][c] = counts[c]
        self._hand_changed(p)

    def set_passed(self, int p, counts):
        """p's pass picks: the cards and, from them, the count per type; features
        included (4 players: the block exists with them only)."""
        cdef int c
        check(p, self.num_players, "player")
        self.pick_types[p][0] = self.pick_types[p][1] = 0
        for c in range(NUM_CARDS):
            self.passed_[p][c] = counts[c]
            self.pick_types[p][card_type(c)] += counts[c]
            if self.o_passed >= 0:
                self.m[self.o_passed + p * NUM_CARDS + c] = counts[c] / 2.0

    def set_received(self, int p, counts):
        """The cards p received from its partner, features included (4 players)."""
        cdef int c
        check(p, self.num_players, "player")
        for c in range(NUM_CARDS):
            self.received_[p][c] = counts[c]
            if self.o_received >= 0:
                self.m[self.o_received + p * NUM_CARDS + c] = counts[c] / 2.0

    def set_order(self, order):
        """The round's (suit deck, rank deck), 24 cards each."""
        cdef int t, i, c
        for t in range(2):
            if len(order[t]) != TYPE_DECK:
                raise ValueError(f"RoundCore: a deck of {len(order[t])} cards, not {TYPE_DECK}")
            for i in range(TYPE_DECK):
                c = check(order[t][i], NUM_CARDS, "card")
                if card_type(c) != t:
                    raise ValueError(f"RoundCore: card {c} in the {('suit', 'rank')[t]} deck")
                self.order[t][i] = c

    def fields(self) -> dict:
        """The whole round as plain Python values (``load`` takes them back)."""
        out = {name: getattr(self, name) for name in SCALARS}
        out.update(hands=self.hands, passed=self.passed, received=self.received,
                   played_from_hand=self.played_from_hand, kept=self.kept, sky=self.sky,
                   played=self.played, turned_by=self.turned_by, track=self.track,
                   kept_stars=self.kept_stars, voids=self.voids, picks=self.picks,
                   order=self.order, deck_pos=self.deck_pos, tiles=self.tiles_held,
                   trick=self.trick, last_trick=self.last_trick,
                   stars=[self.stars[c] for c in range(NUM_CARDS)])
        return out

    def load(self, fields: dict) -> None:
        """Set the round from ``fields`` (as ``fields()`` returns them)."""
        cdef int p, c, t, n = self.num_players
        if fields["num_players"] != n or len(fields["trick"]) > 4:
            raise ValueError("RoundCore: fields of another player count, or a trick of more "
                             "than 4 cards")
        self.phase, self.current_player = fields["phase"], fields["current_player"]
        self.round_start, self.leader = fields["round_start"], fields["leader"]
        self.face_up, self.trump = fields["face_up"], fields["trump"]
        self.lead_suit, self.lead_by = fields["lead_suit"], fields["lead_by"]
        self.tricks_done, self.legal = fields["tricks_done"], fields["legal"]
        self.set_order(fields["order"])
        self.tiles[0], self.tiles[1] = [check(s, n, "seat") for s in fields["tiles"]]
        for p in range(n):
            self.set_hand(p, fields["hands"][p])
            self.set_passed(p, fields["passed"][p])
            self.set_received(p, fields["received"][p])
            for c in range(NUM_CARDS):
                self.played_from_hand_[p][c] = fields["played_from_hand"][p][c]
            self.voids_[p] = fields["voids"][p]
            self.picks_[p] = fields["picks"][p]
        self.sky_bits = 0
        self.sky_count[0] = self.sky_count[1] = 0
        for c in range(NUM_CARDS):
            self.stars[c] = fields["stars"][c]
            self.sky_[c] = fields["sky"][c]
            self.played_[c] = fields["played"][c]
            if self.sky_[c]:
                self.sky_bits |= 1u << c
                self.sky_count[card_type(c)] += self.sky_[c]
        for c in range(NUM_SUITS):
            self.turned_by_[c] = fields["turned_by"][c]
        for t in range(2):
            self.deck_pos_[t] = fields["deck_pos"][t]
            self.track_[t] = fields["track"][t]
            self.kept_stars_[t] = fields["kept_stars"][t]
            for c in range(NUM_CARDS):
                self.kept_[t][c] = fields["kept"][t][c]
        self.trick_length = 0
        for p, c, from_sky in fields["trick"]:
            t = self.trick_length
            self.trick_player[t] = check(p, n, "player")
            self.trick_card[t], self.trick_from_sky[t] = check(c, NUM_CARDS, "card"), from_sky
            self.trick_length += 1
        for p in (self.current_player, self.leader, self.lead_by):
            if p != NOBODY:
                check(p, n, "player")
        for c in (self.trump, self.lead_suit):
            if c != -1:
                check(c, NUM_SUITS, "suit")
        check(self.phase, 3, "phase")
        for t in range(2):
            check(self.deck_pos_[t], TYPE_DECK + 1, "deck position")
        self.last_trick = fields["last_trick"]

    # --- copies ---------------------------------------------------------------------------------
    def copy(self, master) -> RoundCore:
        """A copy writing into ``master`` (the clone's own feature vector)."""
        cdef RoundCore c = RoundCore.__new__(RoundCore)
        c._copy_from(self)
        c._use(master)
        return c

    cdef void _copy_from(self, RoundCore o):
        # Field by field: the search bots copy states by the thousand.
        self._set_offsets(o._offsets())
        self.num_players, self.phase, self.current_player = o.num_players, o.phase, o.current_player
        self.round_start, self.leader, self.trump = o.round_start, o.leader, o.trump
        self.lead_suit, self.lead_by, self.tricks_done = o.lead_suit, o.lead_by, o.tricks_done
        self.face_up, self.legal, self.sky_bits = o.face_up, o.legal, o.sky_bits
        self.stars, self.tiles, self.order = o.stars, o.tiles, o.order
        self.deck_pos_, self.sky_count = o.deck_pos_, o.sky_count
        self.hands_, self.hand_bits_, self.sky_ = o.hands_, o.hand_bits_, o.sky_
        self.passed_, self.received_ = o.passed_, o.received_
        self.pick_types, self.picks_, self.turned_by_ = o.pick_types, o.picks_, o.turned_by_
        self.trick_player, self.trick_card = o.trick_player, o.trick_card
        self.trick_from_sky, self.trick_length = o.trick_from_sky, o.trick_length
        self.track_, self.kept_, self.kept_stars_ = o.track_, o.kept_, o.kept_stars_
        self.played_, self.played_from_hand_, self.voids_ = o.played_, o.played_from_hand_, o.voids_
        self.last_trick = o.last_trick

    def __reduce__(self):
        return _restore, (self.fields(), self.master, dict(zip(OFFSETS, self._offsets())))


def _restore(fields, master, offsets):
    """Unpickle a RoundCore (its C fields travel as plain Python values)."""
    from types import SimpleNamespace

    core = RoundCore(fields["num_players"], fields["stars"], master, SimpleNamespace(**offsets))
    core.load(fields)
    return core
