"""Lunar rules engine: deals, the partner pass, the trump choice, tricks, scoring.

Sources are tagged as in docs/rules/lunar.md: [R] published rulebook (via rules-notes),
[S] seed text, [D] a documented project decision.

Cards are identities 0-11: suit cards wolf 0, owl 1, lynx 2, bat 3; rank cards 1-8 are
cards 4-11. Player ``p`` is on team ``p % 2``.

Actions (one flat space of 40 at both player counts):
* ``0-11``  pass-pick: put card ``a`` aside for the partner (4 players, phase "pass");
* ``12-15`` turn the trump tile of suit ``a - 12`` face down (phase "trump");
* ``16-27`` play card ``a - 16`` from the hand (phase "play");
* ``28-39`` play card ``a - 28`` from the sky (2 players, phase "play").
"""

from __future__ import annotations

import copy
import random

import numpy as np

from catzoo.games.base import TERMINAL, GameState, shuffle_as_random
from catzoo.games.lunar.layout import layout_for
from catzoo.games.lunar.options import (
    DEAL_PER_TYPE,
    NUM_CARDS,
    NUM_SUITS,
    PASS_PER_TYPE,
    RANK_COPIES,
    SKY_PER_TYPE,
    SUIT_COPIES,
    SUITS,
    TRICKS_PER_ROUND,
    LunarOptions,
    card_name,
)
from catzoo.games.lunar.rules import round_points, trick_winner

PASS, TRUMP, PLAY = 0, 1, 2
PHASES = ("pass", "trump", "play")
PICK_BASE, TRUMP_BASE, HAND_BASE, SKY_BASE = 0, 12, 16, 28
NUM_ACTIONS = 40
SUIT_BITS = (1 << NUM_SUITS) - 1
RANK_BITS = ((1 << NUM_CARDS) - 1) & ~SUIT_BITS
TYPE_BITS = (SUIT_BITS, RANK_BITS)  # indexed by type: 0 suit, 1 rank
BLACK, WHITE = 0, 1
TILE_NAMES = ("black", "white")
SUIT_DECK = tuple(s for s in range(NUM_SUITS) for _ in range(SUIT_COPIES))
RANK_DECK = tuple(c for c in range(NUM_SUITS, NUM_CARDS) for _ in range(RANK_COPIES))


def card_type(card: int) -> int:
    """0 for a suit card, 1 for a rank card."""
    return 0 if card < NUM_SUITS else 1


def follow_mask(area_bits: int, lead: int) -> int:
    """[R] The cards of an area that may be played: a suit card must follow the lead suit
    when the area holds one; rank cards are never restricted by it."""
    if lead >= 0 and area_bits >> lead & 1:
        return (area_bits & RANK_BITS) | 1 << lead
    return area_bits


def _bits(counts) -> int:
    out = 0
    for c, count in enumerate(counts):
        if count:
            out |= 1 << c
    return out


def _shuffled(rng: random.Random):
    suits, ranks = list(SUIT_DECK), list(RANK_DECK)
    shuffle_as_random(suits, rng)
    shuffle_as_random(ranks, rng)
    return (tuple(suits), tuple(ranks))


class LunarState(GameState):
    game_name = "lunar"
    env_version = 0
    options_cls = LunarOptions
    num_actions = NUM_ACTIONS

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = n = o.num_players
        self._use_layout(layout_for(n))
        self._at = self.layout.at  # block starts (the sky blocks exist with 2 players only)
        self._stars = o.card_stars
        self.team_scores = [0, 0]
        self.round_scores: list[tuple[int, int]] = []
        self.round_index = 0
        # [D] seat 0 holds the black lead tile, seat 1 the white one, at the first round.
        self.tiles = [0, 1]
        self.round_start = 0
        self.last_trick: tuple | None = None
        self._start_round()

    def _start_round(self) -> None:
        n, m = self.num_players, self._mv
        order = self._draw_chance(_shuffled)
        self._order = order  # (suit order, rank order), each a tuple of 24 cards
        hands = [[0] * NUM_CARDS for _ in range(n)]
        for p in range(n):
            for t in (0, 1):
                for c in order[t][p * DEAL_PER_TYPE:(p + 1) * DEAL_PER_TYPE]:
                    hands[p][c] += 1
        self.hands = hands
        self._hand_bits = [_bits(h) for h in hands]
        self.sky = [0] * NUM_CARDS
        self._sky_bits = 0
        self._sky_count = [0, 0]  # suit cards, rank cards in the sky
        self._deck_pos = [n * DEAL_PER_TYPE, n * DEAL_PER_TYPE]
        self.master[:] = 0.0
        if n == 2:
            self._refill_sky()
        self.passed = [[0] * NUM_CARDS for _ in range(n)]
        self.received = [[0] * NUM_CARDS for _ in range(n)]
        self._pick_types = [[0, 0] for _ in range(n)]
        self._pick_at: list[list[int]] = [[] for _ in range(n)]
        self.face_up = SUIT_BITS
        self.turned_by = [-1] * NUM_SUITS
        self.trump = -1
        self.trick: list[tuple[int, int, bool]] = []
        self.lead_suit = -1
        self.lead_by = -1
        self.leader = self.round_start
        self.track = [0, 0]
        self.kept = [[0] * NUM_CARDS for _ in range(2)]
        self.kept_stars = [0, 0]
        self.played = [0] * NUM_CARDS
        self.played_from_hand = [[0] * NUM_CARDS for _ in range(n)]
        self.voids = [0] * n  # suits each player proved absent from its hand
        self.tricks_done = 0
        self.current_player = self.round_start

        at = self._at
        for p, hand in enumerate(hands):
            start = at.hand + p * NUM_CARDS
            for c, count in enumerate(hand):
                if count:  # the master was just zeroed
                    m[start + c] = count / 3.0
            m[at.score + p] = min(self.team_scores[p % 2] / 30.0, 4.0)
        for tile, holder in enumerate(self.tiles):
            m[at.lead_tiles + holder * 2 + tile] = 1.0
        m[at.round_start + self.round_start] = 1.0
        m[at.leader + self.leader] = 1.0
        self.phase = PASS if n == 4 else TRUMP
        m[at.phase + self.phase] = 1.0
        self._legal = self._compute_legal()

    # --- legal moves ---------------------------------------------------------------------
    def _compute_legal(self) -> int:
        p = self.current_player
        if p == TERMINAL:
            return 0
        if self.phase == PLAY:
            if self.num_players == 4:
                return self._legal_play4(p) << HAND_BASE
            return self._legal_play2(p)
        if self.phase == TRUMP:
            return self.face_up << TRUMP_BASE
        # [R] 4 players pass 2 ranks and 2 suits; picks are one card at a time.
        allowed = 0
        picks = self._pick_types[p]
        for t in (0, 1):
            if picks[t] < PASS_PER_TYPE:
                allowed |= TYPE_BITS[t]
        return (self._hand_bits[p] & allowed) << PICK_BASE

    def _legal_play4(self, p: int) -> int:
        hand = follow_mask(self._hand_bits[p], self.lead_suit)
        partner = (p + 2) % 4
        for q, card, _ in self.trick:
            if q == partner:
                # [R] the second teammate to play in a trick plays the other type.
                return hand & TYPE_BITS[1 - card_type(card)]
        return hand

    def _legal_play2(self, p: int) -> int:
        hand, sky = self._hand_bits[p], self._sky_bits
        lead = self.lead_suit
        trick = self.trick
        if len(trick) >= 2:
            # [R] the second turn: the other area and the other type. Turns alternate, so
            # the player's first card is the one before last.
            _, card, from_sky = trick[-2]
            other = RANK_BITS if card < NUM_SUITS else SUIT_BITS
            if from_sky:
                return (follow_mask(hand, lead) & other) << HAND_BASE
            return (follow_mask(sky, lead) & other) << SKY_BASE
        # First turn: either area and type, as long as the other area still has a card of
        # the other type for the second turn.
        from_hand = (SUIT_BITS if sky & RANK_BITS else 0) | (RANK_BITS if sky & SUIT_BITS else 0)
        from_sky = (SUIT_BITS if hand & RANK_BITS else 0) | (RANK_BITS if hand & SUIT_BITS else 0)
        return ((follow_mask(hand, lead) & from_hand) << HAND_BASE
                | (follow_mask(sky, lead) & from_sky) << SKY_BASE)

    # --- applying actions ----------------------------------------------------------------
    def _apply(self, action: int) -> None:
        p = self.current_player
        if action >= HAND_BASE:
            from_sky = action >= SKY_BASE
            if self._play(p, action - (SKY_BASE if from_sky else HAND_BASE), from_sky):
                return
        elif action >= TRUMP_BASE:
            self._turn_tile(p, action - TRUMP_BASE)
        else:
            self._pick(p, action - PICK_BASE)
        self._legal = self._compute_legal()

    def _take_from_hand(self, p: int, c: int) -> None:
        left = self.hands[p][c] - 1
        self.hands[p][c] = left
        if not left:
            self._hand_bits[p] &= ~(1 << c)
        self._mv[self._at.hand + p * NUM_CARDS + c] = left / 3.0

    def _pick(self, p: int, c: int) -> None:
        self._take_from_hand(p, c)
        self.passed[p][c] += 1
        self._pick_types[p][card_type(c)] += 1
        self._pick_at[p].append(len(self.history))
        self._mv[self._at.passed + p * NUM_CARDS + c] = self.passed[p][c] / 2.0
        if len(self._pick_at[p]) < 2 * PASS_PER_TYPE:
            return
        nxt = (p + 1) % self.num_players
        if nxt == self.round_start:
            self._exchange()
            self._set_phase(TRUMP)
        self.current_player = nxt

    def _exchange(self) -> None:
        """[R] Every player's picks go to the partner at once, when all have chosen."""
        at, m = self._at, self._mv
        for p in range(4):
            q = (p + 2) % 4
            gift = self.passed[p]
            for c in range(NUM_CARDS):
                if gift[c]:
                    self.received[q][c] = gift[c]
                    self.hands[q][c] += gift[c]
                    m[at.hand + q * NUM_CARDS + c] = self.hands[q][c] / 3.0
                    m[at.received + q * NUM_CARDS + c] = gift[c] / 2.0
        self._hand_bits = [_bits(h) for h in self.hands]

    def _set_phase(self, phase: int) -> None:
        start, m = self._at.phase, self._mv
        m[start + self.phase] = 0.0
        m[start + phase] = 1.0
        self.phase = phase

    def _turn_tile(self, p: int, suit: int) -> None:
        # [R] from the start player clockwise, each turns one tile face down until one is
        # left; with 2 players the start player turns the first and the third.
        self.face_up &= ~(1 << suit)
        self.turned_by[suit] = p
        at, m = self._at, self._mv
        m[at.turned + p * NUM_SUITS + suit] = 1.0
        if self.face_up & (self.face_up - 1):
            self.current_player = (p + 1) % self.num_players
            return
        self.trump = self.face_up.bit_length() - 1
        m[at.trump + self.trump] = 1.0
        self._set_phase(PLAY)
        self.current_player = self.leader

    def _play(self, p: int, c: int, from_sky: bool) -> bool:
        """Play a card; True when it also set the next player's legal moves (a trick in
        progress: written out here because it runs on most steps)."""
        at, m = self._at, self._mv
        if from_sky:
            left = self.sky[c] - 1
            self.sky[c] = left
            self._sky_count[c >= NUM_SUITS] -= 1
            if not left:
                self._sky_bits &= ~(1 << c)
            m[at.sky + c] = left / 3.0
            m[at.trick_sky + p * NUM_CARDS + c] = 1.0
        else:
            lead = self.lead_suit
            if c < NUM_SUITS and lead >= 0 and c != lead:
                self.voids[p] |= 1 << lead
            left = self.hands[p][c] - 1
            self.hands[p][c] = left
            if not left:
                self._hand_bits[p] &= ~(1 << c)
            m[at.hand + p * NUM_CARDS + c] = left / 3.0
            self.played_from_hand[p][c] += 1
            m[at.trick_hand + p * NUM_CARDS + c] = 1.0
        self.played[c] += 1
        m[at.played + c] = self.played[c] / 3.0
        if c < NUM_SUITS and self.lead_suit < 0:
            # [R] the first suit card played sets the lead suit.
            self.lead_suit = c
            self.lead_by = p
            m[at.lead_suit + c] = 1.0
            m[at.lead_by + p] = 1.0
        trick = self.trick
        trick.append((p, c, from_sky))
        if len(trick) < 4:
            self.current_player = q = (self.leader + len(trick)) % self.num_players
            if self.num_players == 2:
                self._legal = self._legal_play2(q)
            else:
                self._legal = self._legal_play4(q) << HAND_BASE
            return True
        self._end_trick()
        return False

    def _end_trick(self) -> None:
        at, m, n = self._at, self._mv, self.num_players
        # [R] the last card of a trick is always played by the team that did not lead.
        winner = trick_winner(self.trick, self.trump, self.lead_by % 2, (self.leader + 1) % 2)
        self.last_trick = (tuple(self.trick), winner)
        # [R] the winning team advances on the trick track and keeps the starred cards.
        self.track[winner] += 1
        kept, stars = self.kept[winner], self._stars
        hand_base = at.trick_hand
        sky_base = at.trick_sky if n == 2 else 0
        gained = 0
        for q, c, from_sky in self.trick:
            kept[c] += 1
            gained += stars[c]
            m[(sky_base if from_sky else hand_base) + q * NUM_CARDS + c] = 0.0
        self.kept_stars[winner] += gained
        for q in range(winner, n, 2):
            m[at.track + q] = self.track[winner] / 12.0
            m[at.kept_stars + q] = min(self.kept_stars[winner] / 6.0, 4.0)
        m[at.lead_suit + self.lead_suit] = 0.0
        m[at.lead_by + self.lead_by] = 0.0
        self.trick = []
        self.lead_suit = self.lead_by = -1
        self.tricks_done += 1
        if n == 2:
            self._refill_sky()
        if self.tricks_done == TRICKS_PER_ROUND:
            self._end_round()
            return
        # [R] the winning team's lead-tile holder leads next.
        m[at.leader + self.leader] = 0.0
        self.leader = self._tile_holder(winner)
        m[at.leader + self.leader] = 1.0
        self.current_player = self.leader

    def _refill_sky(self) -> None:
        """[D] Refill by type: ranks back to 3 from the rank deck, suits back to 3 from
        the suit deck, as far as each deck lasts. (It also deals the first sky.)"""
        # Written out, without a call per card: it runs after every trick.
        m, at, sky, counts = self._mv, self._at, self.sky, self._sky_count
        for t in (0, 1):
            need = SKY_PER_TYPE - counts[t]
            if not need:
                continue
            deck, pos = self._order[t], self._deck_pos[t]
            drawn = deck[pos:pos + need]
            for c in drawn:
                sky[c] += 1
                self._sky_bits |= 1 << c
                m[at.sky + c] = sky[c] / 3.0
            counts[t] += len(drawn)
            self._deck_pos[t] = pos = pos + len(drawn)
            m[at.deck + t] = (len(deck) - pos) / 9.0

    def _tile_holder(self, team: int) -> int:
        """The member of ``team`` holding a lead tile (with 2 players, the player)."""
        return self.tiles[0] if self.tiles[0] % 2 == team else self.tiles[1]

    def _end_round(self) -> None:
        o, n, m, at = self.options, self.num_players, self._mv, self._at
        points = tuple(
            round_points(self.track[t], self.kept_stars[t], o.track_stars) for t in (0, 1)
        )
        self.round_scores.append(points)
        for t in (0, 1):
            self.team_scores[t] += points[t]
        self.round_index += 1
        a, b = self.team_scores
        # [R] the game ends when a team has more than the target and the teams are not
        # tied; [D] the one-round option and the max_rounds cap end it too.
        if (
            o.rounds == "single"
            or (max(a, b) > o.target and a != b)
            or self.round_index >= o.max_rounds
        ):
            self.current_player = TERMINAL
            self._legal = 0
            for p in range(n):
                m[at.score + p] = min(self.team_scores[p % 2] / 30.0, 4.0)
            return
        # [R] the lead tiles pass clockwise; the trailing team's lead-tile holder starts
        # the next round, the black tile's holder when the teams are tied.
        self.tiles = [(h + 1) % n for h in self.tiles]
        if a == b:
            self.round_start = self.tiles[BLACK]
        else:
            self.round_start = self._tile_holder(0 if a < b else 1)
        self._start_round()

    # --- results ------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Each player's team score (partners share it)."""
        return [self.team_scores[p % 2] for p in range(self.num_players)]

    def standing_keys(self) -> list[tuple]:
        return [(self.team_scores[p % 2],) for p in range(self.num_players)]

    def returns(self) -> np.ndarray:
        """+1 to each member of the team ahead, -1 to each member of the team behind,
        0 to all on a tie (partners always get the same)."""
        a, b = self.team_scores
        sign = (a > b) - (a < b)
        return np.array([sign if p % 2 == 0 else -sign for p in range(self.num_players)],
                        dtype=np.float64)

    # --- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self.master[self.layout.view_index[player]]

    def state_vector(self) -> np.ndarray:
        return self.master.copy()

    # --- copies and determinization -----------------------------------------------------------
    def clone(self) -> LunarState:
        c = copy.copy(self)
        c._set_master(self.master.copy())
        for name in ("hands", "passed", "received", "_pick_types", "_pick_at", "kept",
                     "played_from_hand"):
            setattr(c, name, [list(row) for row in getattr(self, name)])
        for name in ("team_scores", "round_scores", "tiles", "sky", "_sky_count", "_deck_pos",
                     "trick",
                     "track", "kept_stars", "played", "voids", "_hand_bits", "chance",
                     "history", "turned_by"):
            setattr(c, name, list(getattr(self, name)))
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        return c

    def teams(self) -> tuple[tuple[int, ...], ...]:
        # [R] partners sit opposite.
        return ((0, 2), (1, 3)) if self.num_players == 4 else ((0,), (1,))

    def resample(self, player: int, rng: random.Random, attempts: int = 1000) -> LunarState:
        from catzoo.games.lunar.resample import resample

        return resample(self, player, rng, attempts)

    # --- text -----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < TRUMP_BASE:
            return f"pass {card_name(action - PICK_BASE)}"
        if action < HAND_BASE:
            return f"turn the {SUITS[action - TRUMP_BASE]} tile face down"
        if action < SKY_BASE:
            return f"play {card_name(action - HAND_BASE)} from hand"
        return f"play {card_name(action - SKY_BASE)} from the sky"

    def render(self) -> str:
        from catzoo.games.lunar.render import render_text

        return render_text(self)
