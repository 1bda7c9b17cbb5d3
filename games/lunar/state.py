"""Lunar rules engine: deals, the partner pass, the trump choice, tricks, scoring.

Sources are tagged as in docs/rules/lunar.md: [R] published rulebook (via rules-notes),
[S] seed text, [D] a documented project decision.

Cards are identities 0-11: suit cards wolf 0, owl 1, lynx 2, bat 3; rank cards 1-8 are
cards 4-11. Player ``p`` is on team ``p % 2``.

The round in progress (hands, the pass, the trump tiles, the sky and decks, the trick,
the track) lives in a ``RoundCore`` (``round_core.pyx``, compiled): the env applies one
action per agent-step, and in Python those rules cost more than the PettingZoo API
around them. This module deals, scores rounds and ends the game, and reads the round
through the core.

Actions (one flat space of 40 at both player counts):
* ``0-11``  pass-pick: put card ``a`` aside for the partner (4 players, phase "pass");
* ``12-15`` turn the trump tile of suit ``a - 12`` face down (phase "trump");
* ``16-27`` play card ``a - 16`` from the hand (phase "play");
* ``28-39`` play card ``a - 28`` from the sky (2 players, phase "play").
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.base import TERMINAL, shuffle_as_random
from catzoo.games.compiled_round import CompiledRoundState
from catzoo.games.lunar.layout import layout_for
from catzoo.games.lunar.options import (
    NUM_CARDS,
    NUM_SUITS,
    PASS_PER_TYPE,
    RANK_COPIES,
    SUIT_COPIES,
    SUITS,
    LunarOptions,
    card_name,
)
from catzoo.games.lunar.round_core import RoundCore
from catzoo.games.lunar.rules import round_points

PASS, TRUMP, PLAY = 0, 1, 2
PHASES = ("pass", "trump", "play")
PICK_BASE, TRUMP_BASE, HAND_BASE, SKY_BASE = 0, 12, 16, 28
NUM_ACTIONS = 40
BLACK, WHITE = 0, 1
TILE_NAMES = ("black", "white")
SUIT_DECK = tuple(s for s in range(NUM_SUITS) for _ in range(SUIT_COPIES))
RANK_DECK = tuple(c for c in range(NUM_SUITS, NUM_CARDS) for _ in range(RANK_COPIES))


def card_type(card: int) -> int:
    """0 for a suit card, 1 for a rank card."""
    return 0 if card < NUM_SUITS else 1


def _shuffled(rng: random.Random):
    suits, ranks = list(SUIT_DECK), list(RANK_DECK)
    shuffle_as_random(suits, rng)
    shuffle_as_random(ranks, rng)
    return (tuple(suits), tuple(ranks))


class LunarState(CompiledRoundState):
    game_name = "lunar"
    env_version = 0
    options_cls = LunarOptions
    num_actions = NUM_ACTIONS
    _game_lists = ("chance", "history", "team_scores", "round_scores", "tiles")

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = n = o.num_players
        self._use_layout(layout_for(n))
        self._at = self.layout.at  # block starts (the sky blocks exist with 2 players only)
        self.team_scores = [0, 0]
        self.round_scores: list[tuple[int, int]] = []
        self.round_index = 0
        # [D] seat 0 holds the black lead tile, seat 1 the white one, at the first round.
        self.tiles = [0, 1]
        self.round_start = 0
        self._core = RoundCore(n, o.card_stars, self.master, self._at)
        self._start_round()

    def _start_round(self) -> None:
        n, m, at = self.num_players, self._mv, self._at
        order = self._draw_chance(_shuffled)  # (suit order, rank order), each 24 cards
        # The round's pass picks are its first actions: 4 per player from the start player.
        self._round_begin = len(self.history)
        self.master[:] = 0.0
        for p in range(n):
            m[at.score + p] = min(self.team_scores[p % 2] / 30.0, 4.0)
        for tile, holder in enumerate(self.tiles):
            m[at.lead_tiles + holder * 2 + tile] = 1.0
        m[at.round_start + self.round_start] = 1.0
        core = self._core
        core.begin(order, self.tiles, self.round_start)  # deals, and writes the rest
        self.current_player = core.current_player
        self._legal = core.legal

    # --- the end of a round ----------------------------------------------------------------
    # The rules of a round's actions (pass picks, trump tiles, plays, tricks, the sky) are
    # in round_core.pyx; CompiledRoundState applies them there.
    def _tile_holder(self, team: int) -> int:
        """The member of ``team`` holding a lead tile (with 2 players, the player)."""
        return self.tiles[0] if self.tiles[0] % 2 == team else self.tiles[1]

    def _end_round(self) -> None:
        o, n, m, at, core = self.options, self.num_players, self._mv, self._at, self._core
        track, kept_stars = core.track, core.kept_stars
        points = tuple(round_points(track[t], kept_stars[t], o.track_stars) for t in (0, 1))
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
            core.end_game()
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

    # --- the round in progress, read from the core ------------------------------------------
    hands = property(lambda self: self._core.hands, doc="``hands[p][c]``: p's cards of identity c.")
    passed = property(lambda self: self._core.passed,
                      doc="``passed[p][c]``: cards p put aside for its partner (4 players).")
    received = property(lambda self: self._core.received,
                        doc="``received[p][c]``: cards p received from its partner.")
    sky = property(lambda self: self._core.sky, doc="The sky's count of each card (2 players).")
    face_up = property(lambda self: self._core.face_up, doc="Trump tiles still face up (bits).")
    turned_by = property(lambda self: self._core.turned_by)
    trump = property(lambda self: self._core.trump, doc="The trump suit, or -1 before it is set.")
    trick = property(lambda self: self._core.trick,
                     doc="The trick in progress: (player, card, from the sky) per card.")
    lead_suit = property(lambda self: self._core.lead_suit)
    lead_by = property(lambda self: self._core.lead_by)
    leader = property(lambda self: self._core.leader)
    track = property(lambda self: self._core.track, doc="Each team's trick-track position.")
    kept = property(lambda self: self._core.kept, doc="``kept[team][c]``: cards of won tricks.")
    kept_stars = property(lambda self: self._core.kept_stars)
    played = property(lambda self: self._core.played, doc="Cards played this round, per card.")
    played_from_hand = property(lambda self: self._core.played_from_hand)
    voids = property(lambda self: self._core.voids,
                     doc="Per player, the suits it proved absent from its hand (bits).")
    tricks_done = property(lambda self: self._core.tricks_done)
    phase = property(lambda self: self._core.phase, doc="PASS, TRUMP or PLAY.")
    last_trick = property(lambda self: self._core.last_trick,
                          doc="The last finished trick's cards and winning team.")
    _order = property(lambda self: self._core.order, doc="This round's (suit, rank) decks.")
    _deck_pos = property(lambda self: self._core.deck_pos)

    @property
    def _pick_at(self) -> list[list[int]]:
        """Per player, the history indices of this round's pass picks."""
        n, first = self.num_players, self._round_begin
        return [[first + ((q - self.round_start) % n) * 2 * PASS_PER_TYPE + i
                 for i in range(made)] for q, made in enumerate(self._core.picks)]

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
