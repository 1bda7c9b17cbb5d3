# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
"""The round in progress of Cat in the Box, held and played in C.

The env applies one action per agent-step, and the PettingZoo API leaves a Python engine
little time for it: written with Python ints and lists, the rules of a card play cost
more than the API's own work, and touching that many Python objects slows the API's
code around them too. This extension type keeps everything a round changes as C
integers and arrays, applies set-aside, prediction and play actions, keeps the legal
moves as a bit set and writes the observation features into the state's master vector.

Everything that happens once a round (dealing, scoring, the records) stays in Python in
``state.py``, which owns a ``RoundCore`` and reads the round back through its
properties. Sources are tagged as in docs/rules/cat_in_the_box.md: [R] published
rulebook (via rules-notes), [S] seed text, [D] a documented project decision.

Bit sets of research-board spaces use bit ``colour * 9 + (number - 1)``, as ``scoring``.
"""

from libc.stdint cimport uint64_t

cdef enum:
    MAX_PLAYERS = 5
    NUMBERS = 9
    MAX_TRICKS = 16
    ASIDE = 0
    PREDICT = 1
    PLAY = 2
    PREDICT_BASE = 9
    PLAY_BASE = 14
    RED = 3
    NOBODY = -1
    ROUND_GOES_ON = 0
    ROUND_OVER = 1

cdef double COPIES = 5.0
cdef uint64_t ONE = 1
cdef uint64_t ALL_NUMBERS = (ONE << NUMBERS) - 1
cdef uint64_t NONRED = (ONE << (RED * NUMBERS)) - 1  # the blue, yellow and green rows
# REPEAT[h]: a 9-bit set of numbers repeated in each of the 4 colour rows.
cdef uint64_t REPEAT[1 << NUMBERS]
cdef uint64_t COLOUR_ROW[4]
cdef int _i
for _i in range(1 << NUMBERS):
    REPEAT[_i] = (<uint64_t>_i) * (ONE | ONE << 9 | ONE << 18 | ONE << 27)
for _i in range(4):
    COLOUR_ROW[_i] = ALL_NUMBERS << (_i * NUMBERS)

# Field names of ``fields()`` / ``load()``, the round's whole state.
SCALARS = ("num_players", "tricks_per_round", "predict_bits", "phase", "current_player",
           "round_start", "leader", "led", "red_broken", "tricks_done", "paradox_player",
           "empty_bits", "legal")
ROWS = ("hand_bits", "marker_bits", "tokens", "aside", "predictions", "tricks")
OFFSETS = ("hand", "aside", "board", "markers", "prediction", "tricks", "trick_card", "led",
           "leader", "played", "phase")


include "../range_check.pxi"  # check(value, limit, what)


cdef inline int numbers_in(uint64_t spaces):
    """The 9-bit set of numbers having a space in any colour row of ``spaces``."""
    return <int>((spaces | spaces >> 9 | spaces >> 18 | spaces >> 27) & ALL_NUMBERS)


cdef int winner_of(int length, int *players, int *colours, int *numbers, int led):
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


def trick_winner(trick, int led) -> int:
    """The winner of ``trick``, a sequence of (player, colour, number - 1), led in ``led``."""
    cdef int players[MAX_PLAYERS], colours[MAX_PLAYERS], numbers[MAX_PLAYERS]
    cdef int length = 0
    if len(trick) > MAX_PLAYERS:
        raise ValueError(f"a trick has at most {MAX_PLAYERS} cards, got {len(trick)}")
    for p, colour, k in trick:
        players[length], colours[length], numbers[length] = p, colour, k
        length += 1
    return winner_of(length, players, colours, numbers, led)


cdef class RoundCore:
    """One round's state: hands, research board, markers, predictions, the trick.

    ``apply`` returns ``ROUND_OVER`` (1) when the round has ended (its last trick, or a
    paradox) and the Python state must score it; otherwise the player to act and the
    legal moves are ``current_player`` and ``legal``.
    """

    cdef float[::1] m
    cdef object master
    cdef int o_hand, o_aside, o_board, o_markers, o_prediction, o_tricks, o_trick_card
    cdef int o_led, o_leader, o_played, o_phase
    cdef readonly int num_players, tricks_per_round
    cdef readonly uint64_t predict_bits
    cdef readonly int phase, current_player, round_start, leader, led, tricks_done
    cdef readonly int paradox_player
    cdef readonly bint red_broken
    cdef readonly uint64_t empty_bits, legal
    cdef int counts_[MAX_PLAYERS][NUMBERS]
    cdef uint64_t hand_bits_[MAX_PLAYERS], marker_bits_[MAX_PLAYERS], tokens_[MAX_PLAYERS]
    cdef int aside_[MAX_PLAYERS], predictions_[MAX_PLAYERS], tricks_[MAX_PLAYERS]
    cdef int played_[NUMBERS]
    cdef int trick_player[MAX_PLAYERS], trick_colour[MAX_PLAYERS], trick_number[MAX_PLAYERS]
    cdef int trick_length
    # Exceptional red leads this round: who led, and the numbers it could have declared
    # in another colour (none in hand, which re-sampling must respect).
    cdef int red_lead_player[MAX_TRICKS], red_lead_numbers[MAX_TRICKS]
    cdef int red_leads
    cdef readonly object last_trick

    def __init__(self, int num_players, int tricks_per_round, uint64_t predict_bits, master,
                 offsets):
        """``offsets``: the layout's block starts (``layout.at``); ``master`` the state's
        float32 feature vector, written in place."""
        if not 2 <= num_players <= MAX_PLAYERS or not 0 < tricks_per_round <= MAX_TRICKS:
            raise ValueError(f"RoundCore: {num_players} players, {tricks_per_round} tricks")
        self.num_players, self.tricks_per_round = num_players, tricks_per_round
        self.predict_bits = predict_bits
        self._use(master)
        self._set_offsets([getattr(offsets, name) for name in OFFSETS])
        self.current_player = NOBODY
        self.last_trick = None

    cdef void _use(self, master):
        self.master = master
        self.m = master

    cdef void _set_offsets(self, values):
        (self.o_hand, self.o_aside, self.o_board, self.o_markers, self.o_prediction,
         self.o_tricks, self.o_trick_card, self.o_led, self.o_leader, self.o_played,
         self.o_phase) = values

    def _offsets(self):
        return (self.o_hand, self.o_aside, self.o_board, self.o_markers, self.o_prediction,
                self.o_tricks, self.o_trick_card, self.o_led, self.o_leader, self.o_played,
                self.o_phase)

    def begin(self, hands, uint64_t empty_bits, int round_start):
        """A new round: ``hands[p]`` the numbers - 1 dealt to p, the spaces left empty
        (not blocked), and the round's start player, who acts first. The hands' features
        are written here; the rest of the master vector's round start by the caller."""
        cdef int p, k, n = self.num_players
        for p in range(n):
            for k in range(NUMBERS):
                self.counts_[p][k] = 0
            for k in hands[p]:
                self.counts_[p][check(k, NUMBERS, "card")] += 1
            self._hand_changed(p)
            self.marker_bits_[p] = COLOUR_ROW[0] | COLOUR_ROW[1] | COLOUR_ROW[2] | COLOUR_ROW[3]
            self.tokens_[p] = 0
            self.aside_[p] = self.predictions_[p] = -1
            self.tricks_[p] = 0
        for k in range(NUMBERS):
            self.played_[k] = 0
        self.empty_bits = empty_bits
        self.round_start = self.leader = self.current_player = round_start
        self.led = -1
        self.red_broken = False
        self.tricks_done = self.trick_length = self.red_leads = 0
        self.paradox_player = NOBODY
        self.phase = ASIDE
        self.legal = self._compute_legal()

    cdef void _hand_changed(self, int p):
        """p's hand bits and hand features, from its counts."""
        cdef int k
        self.hand_bits_[p] = 0
        for k in range(NUMBERS):
            if self.counts_[p][k]:
                self.hand_bits_[p] |= ONE << k
            self.m[self.o_hand + p * NUMBERS + k] = self.counts_[p][k] / COPIES

    def end_game(self):
        """The game is over: nobody acts, nothing is legal."""
        self.current_player = NOBODY
        self.legal = 0

    # --- legal moves ----------------------------------------------------------------------
    cdef uint64_t _compute_legal(self):
        cdef int p = self.current_player
        cdef uint64_t ok
        if p == NOBODY:
            return 0
        if self.phase == ASIDE:
            return self.hand_bits_[p]
        if self.phase == PREDICT:
            return self.predict_bits
        # Spaces p may declare: empty, of a number in hand, of a colour whose marker is held.
        ok = self.empty_bits & REPEAT[self.hand_bits_[p]] & self.marker_bits_[p]
        # [R] the leader declares blue, yellow or green only, unless red is broken or no
        # other colour can be declared with any card in hand.
        if self.trick_length == 0 and not self.red_broken and ok & NONRED:
            ok &= NONRED
        return ok << PLAY_BASE

    def refresh_legal(self):
        """Recompute the legal moves (after ``set_hand`` or ``load``)."""
        self.legal = self._compute_legal()

    # --- applying actions -------------------------------------------------------------------
    cpdef int apply(self, int action) except -1:
        """Apply a legal action of the player to act (the caller checked it: an illegal
        one raises ValueError here, as a last guard of the C arrays)."""
        cdef int p = self.current_player
        if not 0 <= action < 64 or not (self.legal >> action) & 1:
            raise ValueError(f"RoundCore: action {action} is not legal")
        if action >= PLAY_BASE:
            if self._play(p, (action - PLAY_BASE) // NUMBERS, (action - PLAY_BASE) % NUMBERS):
                return ROUND_OVER
            if self.trick_length:
                return ROUND_GOES_ON  # a follower to play: _play set the moves
        elif action >= PREDICT_BASE:
            self._predict(p, action - PREDICT_BASE)
        else:
            self._set_aside(p, action)
        self.legal = self._compute_legal()
        if not self.legal and self.phase == PLAY:
            self._paradox()
            return ROUND_OVER
        return ROUND_GOES_ON

    cdef void _take_from_hand(self, int p, int k):
        cdef int left = self.counts_[p][k] - 1
        self.counts_[p][k] = left
        if not left:
            self.hand_bits_[p] &= ~(ONE << k)
        self.m[self.o_hand + p * NUMBERS + k] = left / COPIES

    cdef void _next_player(self, int p, int phase_after):
        cdef int nxt = (p + 1) % self.num_players
        if nxt == self.round_start:
            self._set_phase(phase_after)
        self.current_player = nxt

    cdef void _set_aside(self, int p, int k):
        # [R] each player sets one card aside, face down, in turn from the start player.
        self._take_from_hand(p, k)
        self.aside_[p] = k
        self.m[self.o_aside + p * NUMBERS + k] = 1.0
        # [R] 2 players do not predict.
        self._next_player(p, PLAY if self.num_players == 2 else PREDICT)

    cdef void _predict(self, int p, int value):
        self.predictions_[p] = value
        self.m[self.o_prediction + p * 5 + value] = 1.0
        self._next_player(p, PLAY)

    cdef void _set_phase(self, int phase):
        self.m[self.o_phase + self.phase] = 0.0
        self.m[self.o_phase + phase] = 1.0
        self.phase = phase

    cdef bint _play(self, int p, int colour, int k):
        """Play a card; True when the round ended. When a follower is next, its legal
        moves are set here (the common case, written out because it runs most steps)."""
        cdef int led, space, q, winner, t, n = self.num_players
        cdef uint64_t ok
        cdef float[::1] m = self.m
        if self.trick_length == 0:
            if colour == RED and not self.red_broken:
                # Record what this exceptional red lead revealed, for re-sampling.
                self.red_lead_player[self.red_leads] = p
                self.red_lead_numbers[self.red_leads] = numbers_in(
                    self.empty_bits & self.marker_bits_[p] & NONRED)
                self.red_leads += 1
            self.led = led = colour
            m[self.o_led + colour] = 1.0
        else:
            led = self.led
            if colour != led and self.marker_bits_[p] & COLOUR_ROW[led]:
                # [R] a follower declaring another colour loses the led colour's X marker.
                self.marker_bits_[p] &= ~COLOUR_ROW[led]
                m[self.o_markers + p * 4 + led] = 0.0
        self._take_from_hand(p, k)
        # [R] the declared space gets the player's token.
        space = colour * NUMBERS + k
        self.tokens_[p] |= ONE << space
        self.empty_bits &= ~(ONE << space)
        m[self.o_board + p * 4 * NUMBERS + space] = 1.0
        self.played_[k] += 1
        m[self.o_played + k] = self.played_[k] / COPIES
        if colour == RED:
            self.red_broken = True
        t = self.trick_length
        self.trick_player[t], self.trick_colour[t], self.trick_number[t] = p, colour, k
        self.trick_length = t + 1
        m[self.o_trick_card + p * 13 + k] = 1.0
        m[self.o_trick_card + p * 13 + NUMBERS + colour] = 1.0
        if t + 1 < n:
            self.current_player = q = (p + 1) % n
            # A follower: no red-lead restriction, so the moves are the playable spaces.
            ok = self.empty_bits & REPEAT[self.hand_bits_[q]] & self.marker_bits_[q]
            self.legal = ok << PLAY_BASE
            if not ok:
                self._paradox()
                return True
            return False
        winner = winner_of(n, self.trick_player, self.trick_colour, self.trick_number, led)
        self.last_trick = (self.trick, winner)
        self.tricks_[winner] += 1
        m[self.o_tricks + winner] = self.tricks_[winner] / 8.0
        self._clear_trick()
        self.tricks_done += 1
        # [R] the last card in hand is never played: the round ends after its tricks.
        if self.tricks_done == self.tricks_per_round:
            return True
        # [R] the trick's winner leads the next.
        m[self.o_leader + self.leader] = 0.0
        self.leader = winner
        m[self.o_leader + winner] = 1.0
        self.current_player = winner
        return False

    cdef void _clear_trick(self):
        # Only the features the trick set are cleared: cheaper than zeroing the block.
        cdef int i, start
        for i in range(self.trick_length):
            start = self.o_trick_card + self.trick_player[i] * 13
            self.m[start + self.trick_number[i]] = 0.0
            self.m[start + NUMBERS + self.trick_colour[i]] = 0.0
        if self.led >= 0:
            self.m[self.o_led + self.led] = 0.0
        self.trick_length = 0
        self.led = -1

    cdef void _paradox(self):
        # [R] the player to act cannot play: the round ends at once, the trick in
        # progress is won by nobody, the tokens stay.
        self.paradox_player = self.current_player
        if self.trick_length:
            self.last_trick = (self.trick, None)
        self._clear_trick()

    # --- reading the round --------------------------------------------------------------------
    @property
    def trick(self):
        """The trick in progress: (player, colour, number - 1) per card, in order."""
        return tuple([(self.trick_player[i], self.trick_colour[i], self.trick_number[i])
                      for i in range(self.trick_length)])

    @property
    def counts(self):
        """``counts[p][k]``: p's cards of number k + 1."""
        return [[self.counts_[p][k] for k in range(NUMBERS)] for p in range(self.num_players)]

    @property
    def hand_bits(self):
        return [self.hand_bits_[p] for p in range(self.num_players)]

    @property
    def marker_bits(self):
        """Per player, the spaces of the colours whose X marker is still held."""
        return [self.marker_bits_[p] for p in range(self.num_players)]

    @property
    def tokens(self):
        """Per player, the research-board spaces holding its tokens."""
        return [self.tokens_[p] for p in range(self.num_players)]

    @property
    def aside(self):
        """Per player, the number - 1 set aside, or -1."""
        return [self.aside_[p] for p in range(self.num_players)]

    @property
    def predictions(self):
        return [self.predictions_[p] for p in range(self.num_players)]

    @property
    def tricks(self):
        return [self.tricks_[p] for p in range(self.num_players)]

    @property
    def played(self):
        """Cards of each number played this round."""
        return [self.played_[k] for k in range(NUMBERS)]

    @property
    def red_lead_exceptions(self):
        """(player, numbers it could declare in another colour) per exceptional red lead."""
        return [(self.red_lead_player[i], self.red_lead_numbers[i]) for i in range(self.red_leads)]

    # --- changing the round from outside (re-sampling, scenarios) -------------------------------
    def set_hand(self, int p, counts):
        """Give p these counts per number (re-sampling hidden hands), features included."""
        cdef int k
        check(p, self.num_players, "player")
        for k in range(NUMBERS):
            self.counts_[p][k] = counts[k]
        self._hand_changed(p)

    def set_aside_card(self, int p, int k):
        """Make k p's set-aside card (re-sampling), features included."""
        check(p, self.num_players, "player")
        if self.aside_[p] >= 0:
            self.m[self.o_aside + p * NUMBERS + self.aside_[p]] = 0.0
        self.aside_[p] = check(k, NUMBERS, "card")
        self.m[self.o_aside + p * NUMBERS + k] = 1.0

    def fields(self) -> dict:
        """The whole round as plain Python values (``load`` takes them back)."""
        out = {name: getattr(self, name) for name in SCALARS}
        out.update({name: getattr(self, name) for name in ROWS})
        out.update(counts=self.counts, played=self.played, trick=self.trick,
                   red_lead_exceptions=self.red_lead_exceptions, last_trick=self.last_trick)
        return out

    def load(self, fields: dict) -> None:
        """Set the round from ``fields`` (as ``fields()`` returns them)."""
        cdef int p, k, i
        if fields["num_players"] != self.num_players:
            raise ValueError(f"RoundCore: fields of {fields['num_players']} players, "
                             f"this round has {self.num_players}")
        if len(fields["trick"]) > self.num_players or len(fields["red_lead_exceptions"]) > MAX_TRICKS:
            raise ValueError("RoundCore: too many cards in the trick or red leads")
        self.tricks_per_round = fields["tricks_per_round"]
        self.predict_bits = fields["predict_bits"]
        self.phase, self.current_player = check(fields["phase"], 3, "phase"), fields["current_player"]
        self.round_start, self.leader, self.led = fields["round_start"], fields["leader"], fields["led"]
        self.red_broken, self.tricks_done = fields["red_broken"], fields["tricks_done"]
        self.paradox_player = fields["paradox_player"]
        self.empty_bits, self.legal = fields["empty_bits"], fields["legal"]
        for p in range(self.num_players):
            self.set_hand(p, fields["counts"][p])
            self.marker_bits_[p] = fields["marker_bits"][p]
            self.tokens_[p] = fields["tokens"][p]
            self.aside_[p] = fields["aside"][p]
            self.predictions_[p] = fields["predictions"][p]
            self.tricks_[p] = fields["tricks"][p]
        for k in range(NUMBERS):
            self.played_[k] = fields["played"][k]
        self.trick_length = 0
        for p, colour, k in fields["trick"]:
            i = self.trick_length
            self.trick_player[i] = check(p, self.num_players, "player")
            self.trick_colour[i], self.trick_number[i] = check(colour, 4, "colour"), check(k, NUMBERS, "card")
            self.trick_length += 1
        self.red_leads = 0
        for p, k in fields["red_lead_exceptions"]:
            self.red_lead_player[self.red_leads] = check(p, self.num_players, "player")
            self.red_lead_numbers[self.red_leads] = k
            self.red_leads += 1
        for p in (self.current_player, self.leader, self.paradox_player):
            if p != NOBODY:
                check(p, self.num_players, "player")
        if self.led != -1:
            check(self.led, 4, "colour")
        self.last_trick = fields["last_trick"]

    # --- copies ---------------------------------------------------------------------------------
    def copy(self, master) -> RoundCore:
        """A copy writing into ``master`` (the clone's own feature vector)."""
        cdef RoundCore c = RoundCore.__new__(RoundCore)
        c._copy_from(self)
        c._use(master)
        return c

    cdef void _copy_from(self, RoundCore other):
        self.num_players, self.tricks_per_round = other.num_players, other.tricks_per_round
        self.predict_bits = other.predict_bits
        self._set_offsets(other._offsets())
        self.phase, self.current_player, self.round_start = other.phase, other.current_player, other.round_start
        self.leader, self.led, self.tricks_done = other.leader, other.led, other.tricks_done
        self.paradox_player, self.red_broken = other.paradox_player, other.red_broken
        self.empty_bits, self.legal = other.empty_bits, other.legal
        self.counts_ = other.counts_
        self.hand_bits_, self.marker_bits_, self.tokens_ = other.hand_bits_, other.marker_bits_, other.tokens_
        self.aside_, self.predictions_, self.tricks_ = other.aside_, other.predictions_, other.tricks_
        self.played_ = other.played_
        self.trick_player, self.trick_colour, self.trick_number = other.trick_player, other.trick_colour, other.trick_number
        self.trick_length = other.trick_length
        self.red_lead_player, self.red_lead_numbers = other.red_lead_player, other.red_lead_numbers
        self.red_leads = other.red_leads
        self.last_trick = other.last_trick

    def __reduce__(self):
        return _restore, (self.fields(), self.master, dict(zip(OFFSETS, self._offsets())))


def _restore(fields, master, offsets):
    """Unpickle a RoundCore (its C fields travel as plain Python values)."""
    from types import SimpleNamespace

    core = RoundCore(fields["num_players"], fields["tricks_per_round"], fields["predict_bits"],
                     master, SimpleNamespace(**offsets))
    core.load(fields)
    return core
