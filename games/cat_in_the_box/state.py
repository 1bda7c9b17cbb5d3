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

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        super()._setup()
        self._round_begin = 0

    def _on_deal(self) -> None:
        # The round's set-asides are its first actions, one per player from the start player.
        self._round_begin = len(self.history)

    # --- the game, read from the core (each field's docstring is the core reader's) -------
    core_fields = ("counts", "tokens", "aside", "predictions", "tricks", "trick", "phase", "led",
                   "leader", "red_broken", "tricks_done", "paradox_player", "last_trick",
                   "red_lead_exceptions", "round_index", "round_start", "blocked",
                   "round_records", "markers", "leftover", "total_scores", "round_scores")
    writable_fields = ("leftover", "total_scores", "round_scores")

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
        # Sorted, so that the re-deal depends on the cards the player has not seen and
        # not on who holds them: the same re-deal of any game the player cannot tell apart.
        pool.sort()
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


    def milestone(self):
        return (self.round_index, self.phase, self.tricks_done)
