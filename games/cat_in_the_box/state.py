"""Cat in the Box rules engine: deals, set-aside, predictions, tricks, paradox, scoring.

Sources are tagged as in docs/rules/cat_in_the_box.md: [R] published rulebook (via
rules-notes), [S] seed text, [D] a documented project decision.

Actions (one flat space of 50):
* ``0-8``   set aside a card numbered 1-9 (phase "aside");
* ``9-13``  predict 0-4 tricks (phase "predict");
* ``14-49`` play a card and declare a colour: ``14 + colour * 9 + (number - 1)`` with
  colours blue 0, yellow 1, green 2, red 3 (phase "play").

The whole game (deal, rules, scoring, observation, legal moves) is the compiled core
``core.pyx``, which the batched engine (``catzoo.vector``) steps too; this module reads the
game through it and keeps what is not per step: the action log, the chance record, text
and re-sampling.
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.base import TERMINAL, bits_to_mask
from catzoo.games.cat_in_the_box import core as _core
from catzoo.games.cat_in_the_box.core import trick_winner  # noqa: F401
from catzoo.games.cat_in_the_box.layout import layout_for
from catzoo.games.cat_in_the_box.options import COLOURS, CatInTheBoxOptions
from catzoo.games.compiled import CompiledState

# The core's constants (defined once, in core.pyx), as plain ints.
ASIDE, PREDICT, PLAY = (int(v) for v in _core.Phase)
ASIDE_BASE, PREDICT_BASE, PLAY_BASE, NUM_ACTIONS = (int(v) for v in _core.Action)
NUMBERS, SPACES = int(_core.Board.NUMBERS), int(_core.Board.SPACES)
PHASES = ("aside", "predict", "play")
EMPTY, BLOCKED = -1, -2  # the values of ``owner``


def bits_of(items) -> int:
    out = 0
    for i in items:
        out |= 1 << i
    return out


def play_action(colour: int, number: int) -> int:
    return PLAY_BASE + colour * NUMBERS + number - 1


class CatInTheBoxState(CompiledState):
    game_name = "cat_in_the_box"
    env_version = 0
    options_cls = CatInTheBoxOptions
    num_actions = NUM_ACTIONS
    core_module = _core

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        self.num_players = n = self.options.num_players
        self.layout = layout_for(n)
        self.observation_size = self.layout.obs_size
        self._round_begin = 0

    def _on_deal(self) -> None:
        # The round's set-asides are its first actions, one per player from the start player.
        self._round_begin = len(self.history)

    # --- the game, read from the core ---------------------------------------------------------
    counts = property(lambda self: self._core.counts,
                      doc="Cards in hand: ``counts[p][k]`` of number k + 1 (a copy).")
    tokens = property(lambda self: self._core.tokens,
                      doc="Each player's research-board spaces, as bit sets.")
    aside = property(lambda self: self._core.aside, doc="Set-aside number - 1 per player, or -1.")
    predictions = property(lambda self: self._core.predictions,
                           doc="Prediction per player, or -1 before it is made.")
    tricks = property(lambda self: self._core.tricks, doc="Tricks won this round per player.")
    trick = property(lambda self: self._core.trick,
                     doc="The trick in progress: (player, colour, number - 1) per card.")
    phase = property(lambda self: self._core.phase, doc="ASIDE, PREDICT or PLAY.")
    led = property(lambda self: self._core.led, doc="The led colour, or -1.")
    leader = property(lambda self: self._core.leader)
    red_broken = property(lambda self: self._core.red_broken)
    tricks_done = property(lambda self: self._core.tricks_done)
    paradox_player = property(lambda self: self._core.paradox_player,
                              doc="Who caused a paradox this round (TERMINAL: nobody).")
    last_trick = property(lambda self: self._core.last_trick,
                          doc="The last finished trick's cards and winner (None: a paradox).")
    red_lead_exceptions = property(
        lambda self: self._core.red_lead_exceptions,
        doc="This round's red leads before red was broken: (leader, numbers it could have "
            "declared in another colour), which proves none of them was in hand.")
    round_index = property(lambda self: self._core.round_index,
                           doc="Rounds finished (the round in progress, from 0).")
    round_start = property(lambda self: self._core.round_start,
                           doc="The round's start player (it sets aside and leads first).")
    blocked = property(lambda self: self._core.blocked,
                       doc="Spaces no one may take: numbers outside the deck, 2-player "
                           "neutral tokens (a bit set).")
    round_records = property(lambda self: self._core.round_records,
                             doc="What each finished round was scored from (copies).")

    @property
    def leftover(self) -> tuple[int, ...]:
        """The round's cards dealt to no one (2 players: the first 3 revealed)."""
        return self._core.leftover

    @leftover.setter
    def leftover(self, cards) -> None:
        self._core.set_leftover(cards)

    @property
    def total_scores(self) -> list[int]:
        """Each player's total score (a copy: assign a new list to change it)."""
        return self._core.total_scores

    @total_scores.setter
    def total_scores(self, totals) -> None:
        self._core.set_scores(totals=totals)

    @property
    def round_scores(self) -> list[list[int]]:
        """Each finished round's scores (a copy: assign a new list to change them)."""
        return self._core.round_scores

    @round_scores.setter
    def round_scores(self, rounds) -> None:
        self._core.set_scores(rounds=rounds)

    def played_numbers(self, p: int) -> list[int]:
        """Numbers (0-based) of the cards p played this round: one per research token."""
        tokens = self._core.tokens[p]
        return [i % NUMBERS for i in range(SPACES) if tokens >> i & 1]

    # --- what players can see ---------------------------------------------------------------
    @property
    def hands(self) -> np.ndarray:
        """Cards in hand: ``hands[p, number - 1]`` copies."""
        return np.asarray(self.counts, dtype=np.int8)

    @property
    def last_paradox(self) -> int:
        """Who caused a paradox in the last finished round (TERMINAL: nobody)."""
        return self.round_records[-1]["paradox_player"] if self.round_records else TERMINAL

    @property
    def markers(self) -> list[list[bool]]:
        """X markers still held: ``markers[p][colour]``."""
        return self._core.markers

    @property
    def owner(self) -> np.ndarray:
        """The research board, ``owner[colour, number - 1]``: a player, EMPTY or BLOCKED."""
        out = np.where(bits_to_mask(self.blocked, SPACES) > 0, BLOCKED, EMPTY)
        for p, spaces in enumerate(self.tokens):
            out[bits_to_mask(spaces, SPACES) > 0] = p
        return out.reshape(4, NUMBERS).astype(np.int8)

    # --- copies and determinization -----------------------------------------------------------
    def resample(self, player: int, rng: random.Random, attempts: int = 1000) -> CatInTheBoxState:
        """Re-deal the other players' hands and set-aside cards (and, with 2 players, the
        unrevealed leftovers) uniformly among the deals consistent with what ``player``
        saw: the cards each opponent played, every exceptional red lead (which proves the
        leader held no card declarable in another colour), and that the player to act is
        not in a paradox (it holds a legal move)."""
        c = self._copy(seed=rng.getrandbits(64))  # later deals unforeseeable
        if self.is_terminal():
            return c
        n = self.num_players
        others = [q for q in range(n) if q != player]
        hidden_aside = [q for q in others if self.aside[q] >= 0]
        pool = [k for q in others for k in range(NUMBERS) for _ in range(self.counts[q][k])]
        pool += [self.aside[q] for q in hidden_aside]
        pool += list(self.leftover[3:] if n == 2 else self.leftover)
        sizes = [sum(self.counts[q]) for q in others]
        core = self._core
        constraints = [(q, nums) for q, nums in core.red_lead_exceptions if q != player]
        # Everyone sees that the player to act is not in a paradox: it holds a legal move.
        to_act = self.current_player if self.phase == PLAY and self.current_player != player else None
        for _ in range(attempts):
            rng.shuffle(pool)
            new_hands, pos = {}, 0
            for q, size in zip(others, sizes):
                new_hands[q] = pool[pos : pos + size]
                pos += size
            if all(not bits_of(new_hands[q]) & nums for q, nums in constraints) and (
                to_act is None
                or core.can_play(to_act, bits_of(new_hands[to_act]))
            ):
                break
        else:
            return c  # [D] no consistent re-deal found: the true deal is always consistent
        for q in others:
            counts = [0] * NUMBERS
            for k in new_hands[q]:
                counts[k] += 1
            c._core.set_hand(q, counts)
        for q in hidden_aside:
            k = pool[pos]
            pos += 1
            c._core.set_aside_card(q, k)
            c.history[self._round_begin + (q - self.round_start) % n] = ASIDE_BASE + k
        new_left = tuple(pool[pos:])
        # Rewrite this round's recorded deal so that the action log still replays exactly.
        old_hands, old_left = self.chance[-1]
        dealt = []
        for q in range(n):
            if q == player:
                dealt.append(tuple(old_hands[q]))
            else:
                aside = [c.aside[q]] if c.aside[q] >= 0 else []
                dealt.append(tuple(sorted(new_hands[q] + aside + self.played_numbers(q))))
        c.leftover = tuple(old_left[:3]) + new_left if n == 2 else new_left
        c.chance[-1] = (tuple(dealt), c.leftover)
        c._legal = c._compute_legal()  # the player to act may hold other cards now
        return c

    # --- text -----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < PREDICT_BASE:
            return f"set aside a {action - ASIDE_BASE + 1}"
        if action < PLAY_BASE:
            return f"predict {action - PREDICT_BASE} tricks"
        colour, k = divmod(action - PLAY_BASE, NUMBERS)
        return f"play {k + 1} as {COLOURS[colour]}"

    def render(self) -> str:
        from catzoo.games.cat_in_the_box.render import render_text

        return render_text(self)

    def milestone(self):
        return (self.round_index, self.phase, self.tricks_done)
