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
from functools import cache

import numpy as np

from catzoo.games.base import GameState
from catzoo.games.lunar.core import (  # noqa: F401  (the game's constants, re-exported)
    BLACK,
    DEALT,
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
    Core,
    card_type,
    make_config,
    pack_deals,
)
from catzoo.games.lunar.layout import layout_for
from catzoo.games.lunar.options import SUITS, LunarOptions, card_name

PHASES = ("pass", "trump", "play")
TILE_NAMES = ("black", "white")


@cache
def core_config(options: LunarOptions):
    """The C form of ``options``, built once per options."""
    return make_config(options)


class LunarState(GameState):
    game_name = "lunar"
    env_version = 0
    options_cls = LunarOptions
    num_actions = NUM_ACTIONS
    # lists of the game that a copy must not share with the original; what they hold is
    # never changed in place
    _game_lists = ("chance", "history", "round_scores")

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = o.num_players
        self.layout = layout_for(o.num_players)
        self.observation_size = self.layout.obs_size
        self.round_scores: list[tuple[int, int]] = []
        # The round's pass picks are its first actions: 4 per player from the start player.
        self._round_begin = 0
        # Pinned deals are checked whole before they reach the core's arrays.
        core = Core(core_config(o), 0, pack_deals(self._pinned_chance))
        if isinstance(self.seed, int):
            core.seed(self.seed)  # deals as random.Random(seed), seeded in C
        else:  # None (fresh entropy) or another type random.Random accepts
            core.set_rng(self.__dict__.pop("_rng_before_setup"))
        self.__dict__.pop("_rng_before_setup", None)
        core.start()
        self._core = core
        self.chance.append(core.order)
        self.current_player = core.current_player
        self._legal = core.legal

    # The core deals later rounds from its own copy of CPython's generator; ``rng`` reads
    # it as a ``random.Random`` (a snapshot) and setting it loads another's state (the
    # search bots give each determinization a fresh one).
    @property
    def rng(self) -> random.Random:
        core = self.__dict__.get("_core")
        if core is None:
            return self.__dict__.get("_rng_before_setup")
        rng = random.Random()
        rng.setstate((3, core.rng_state(), None))
        return rng

    @rng.setter
    def rng(self, rng: random.Random) -> None:
        core = self.__dict__.get("_core")
        if core is None:  # GameState.new, before _setup
            self.__dict__["_rng_before_setup"] = rng
        else:
            core.set_rng(rng)

    # --- the game ------------------------------------------------------------------------
    def apply_unchecked(self, action: int) -> None:
        self.history.append(action)
        core = self._core
        events = core.apply(action)
        if events:
            self._round_scored(events)
        self.current_player = core.current_player
        self._legal = core.legal

    def _round_scored(self, events: int) -> None:
        """A round ended (the core scored it, and dealt the next one or ended the game):
        the score record, and the chance record of the new deal."""
        core = self._core
        self.round_scores.append(core.last_points)
        if events & DEALT:
            self.chance.append(core.order)
            self._round_begin = len(self.history)

    def _compute_legal(self) -> int:
        self._core.refresh_legal()
        return self._core.legal

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

    # --- results ------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """Each player's team score (partners share it)."""
        return self._core.scores()

    def standing_keys(self) -> list[tuple]:
        return [(s,) for s in self._core.scores()]

    def returns(self) -> np.ndarray:
        """+1 to each member of the team ahead, -1 to each member of the team behind,
        0 to all on a tie (partners always get the same)."""
        a, b = self._core.team_scores
        sign = (a > b) - (a < b)
        return np.array([sign if p % 2 == 0 else -sign for p in range(self.num_players)],
                        dtype=np.float64)

    # --- observations ---------------------------------------------------------------------
    # The core writes an observation from the game's state when asked (the layout's
    # order, layout.py); ``master`` is the whole feature vector in the layout's master
    # order, every private block included.
    def observation(self, player: int) -> np.ndarray:
        return self._core.observation(player)

    def state_vector(self) -> np.ndarray:
        return self._core.master()

    master = property(state_vector, doc="The global feature vector (a new array).")

    # --- copies and determinization -----------------------------------------------------------
    def teams(self) -> tuple[tuple[int, ...], ...]:
        # [R] partners sit opposite.
        return ((0, 2), (1, 3)) if self.num_players == 4 else ((0,), (1,))

    def clone(self) -> LunarState:
        """A copy playing on exactly as this game does (its generator copied too)."""
        return self._copy_with(self._core.copy())

    def _copy(self, seed: int) -> LunarState:
        """A copy dealing its later rounds from ``random.Random(seed)`` (re-sampling gives
        each determinization unforeseeable later deals)."""
        core = self._core.copy()
        core.seed(seed)
        return self._copy_with(core)

    def _copy_with(self, core: Core) -> LunarState:
        c = self.__class__.__new__(self.__class__)
        c.__dict__.update(self.__dict__)
        c._core = core
        for name in self._game_lists:
            setattr(c, name, list(getattr(self, name)))
        return c

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
