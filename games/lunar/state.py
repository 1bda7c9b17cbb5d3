"""Lunar rules engine: deals, the partner pass, the trump choice, tricks, scoring.

Sources are tagged as in docs/rules/lunar.md: [R] published rulebook (via rules-notes),
[S] seed text, [D] a documented project decision.

Cards are identities 0-11: suit cards wolf 0, owl 1, lynx 2, bat 3; rank cards 1-8 are
cards 4-11. Player ``p`` is on team ``p % 2``.

The whole game (deals, the pass, the trump tiles, tricks, the sky, round scoring, the
lead tiles, the game's end, the observation features and the legal moves) is played in
C by a ``Core`` (``core.pyx``), the same core the batched engine (``catzoo.vector``)
steps a thousand games at a time. This module keeps what is not per step: options, the
chance record and history (the JSON log), copies and re-sampling through the core, text.

Actions (one flat space of 40 at both player counts):
* ``0-11``  pass-pick: put card ``a`` aside for the partner (4 players, phase "pass");
* ``12-15`` turn the trump tile of suit ``a - 12`` face down (phase "trump");
* ``16-27`` play card ``a - 16`` from the hand (phase "play");
* ``28-39`` play card ``a - 28`` from the sky (2 players, phase "play").
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.compiled import CompiledState
from catzoo.games.lunar import core as _core
from catzoo.games.lunar.core import (  # noqa: F401  (the game's constants, re-exported)
    BLACK,
    HAND_BASE,
    NUM_ACTIONS,
    PASS,
    PASS_PER_TYPE,
    PICK_BASE,
    PLAY,
    SKY_BASE,
    TRUMP,
    TRUMP_BASE,
    WHITE,
    card_type,
)
from catzoo.games.lunar.layout import layout_for
from catzoo.games.lunar.options import SUITS, LunarOptions, card_name

PHASES = ("pass", "trump", "play")
TILE_NAMES = ("black", "white")
_DEALT = int(_core.CoreEvent.DEALT)


class LunarState(CompiledState):
    game_name = "lunar"
    env_version = 0
    options_cls = LunarOptions
    num_actions = NUM_ACTIONS
    core_module = _core
    # Team results (+1 / -1 to whole teams) are not GameState.returns' rule over the
    # standing keys.
    generic_standing = False
    _game_lists = ("chance", "history", "round_scores", "round_records")

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        self.num_players = self.options.num_players
        self.layout = layout_for(self.num_players)
        self.observation_size = self.layout.obs_size
        # per finished round: its points per team, and what they were scored from
        self.round_scores: list[tuple[int, int]] = []
        self.round_records: list[dict] = []
        self._round_begin = 0

    def _on_deal(self) -> None:
        # The round's pass picks are its first actions: 4 per player from the start player.
        self._round_begin = len(self.history)

    # The core keeps no feature vector (it writes observations from the game when asked,
    # core.pyx), so it has no buffer: ``master`` is written when read.
    def _use_core(self, core) -> None:
        self._core = core
        self.current_player = core.current_player
        self._legal = core.legal

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def state_vector(self) -> np.ndarray:
        return self._core.master()

    master = property(state_vector, doc="The global feature vector (a new array).")

    def apply_unchecked(self, action: int) -> None:
        self.history.append(action)
        core = self._core
        events = core.apply(action)
        self.current_player = core.current_player
        self._legal = core.legal
        if events:  # every event ends a round: the core scored it
            record = core.last_round
            self.round_scores.append(record["points"])
            self.round_records.append(record)
            if events & _DEALT:
                self._record_chance()

    # --- the game in progress, read from the core --------------------------------------------
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
    tiles = property(lambda self: self._core.tiles,
                     doc="The seats holding the black and the white lead tile.")
    round_start = property(lambda self: self._core.round_start,
                           doc="The round's start player.")
    round_index = property(lambda self: self._core.round_index, doc="Rounds scored so far.")
    _order = property(lambda self: self._core.order, doc="This round's (suit, rank) decks.")
    _deck_pos = property(lambda self: self._core.deck_pos)

    @property
    def team_scores(self) -> list[int]:
        return self._core.team_scores

    @team_scores.setter
    def team_scores(self, scores) -> None:
        """Set both teams' scores (rule scenarios start from a given score)."""
        self._core.team_scores = scores

    @property
    def _pick_at(self) -> list[list[int]]:
        """Per player, the history indices of this round's pass picks."""
        n, first, start = self.num_players, self._round_begin, self.round_start
        return [[first + ((q - start) % n) * 2 * PASS_PER_TYPE + i for i in range(made)]
                for q, made in enumerate(self._core.picks)]

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
