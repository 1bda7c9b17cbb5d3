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
from catzoo.games.lunar.options import SUITS, LunarOptions, card_name

PHASES = ("pass", "trump", "play")
TILE_NAMES = ("black", "white")


class LunarState(CompiledState):
    game_name = "lunar"
    env_version = 0
    options_cls = LunarOptions
    # Team results (+1 / -1 to whole teams) are not GameState.returns' rule over the
    # standing keys.
    generic_standing = False
    _game_lists = ("chance", "history", "round_scores", "round_records")

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        super()._setup()
        # per finished round: its points per team, and what they were scored from
        self.round_scores: list[tuple[int, int]] = []
        self.round_records: list[dict] = []
        self._round_begin = 0

    def _on_deal(self) -> None:
        # The round's pass picks are its first actions: 4 per player from the start player.
        self._round_begin = len(self.history)

    # The core keeps no feature vector (it writes observations from the game when asked,
    # core.pyx), so it has no buffer: ``master`` is written when read.
    core_buffer = False
    _core_views = ()

    def state_vector(self) -> np.ndarray:
        return self._core.master()

    master = property(state_vector, doc="The global feature vector (a new array).")

    def _on_events(self, events: int) -> None:
        # every event ends a round: the core scored it
        record = self._core.last_round
        self.round_scores.append(record["points"])
        self.round_records.append(record)
        super()._on_events(events)

    # --- the game in progress, read from the core (docstrings: the core readers') ----------
    core_fields = ("hands", "passed", "received", "sky", "face_up", "turned_by", "trump", "trick",
                   "lead_suit", "lead_by", "leader", "track", "kept", "kept_stars", "played",
                   "played_from_hand", "voids", "tricks_done", "phase", "last_trick", "tiles",
                   "round_start", "round_index", "team_scores", ("_order", "order"),
                   ("_deck_pos", "deck_pos"))
    writable_fields = ("team_scores",)

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
