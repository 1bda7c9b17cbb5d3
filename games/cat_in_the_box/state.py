"""Cat in the Box rules engine: deals, set-aside, predictions, tricks, paradox, scoring.

Sources are tagged as in docs/rules/cat_in_the_box.md: [R] published rulebook (via
rules-notes), [S] seed text, [D] a documented project decision.

Actions (one flat space of 50):
* ``0-8``   set aside a card numbered 1-9 (phase "aside");
* ``9-13``  predict 0-4 tricks (phase "predict");
* ``14-49`` play a card and declare a colour: ``14 + colour * 9 + (number - 1)`` with
  colours blue 0, yellow 1, green 2, red 3 (phase "play").

The round in progress (hands, research board, markers, predictions, the trick) lives in
a ``RoundCore`` (``round_core.pyx``, compiled): the env applies one action per
agent-step, and in Python those rules cost more than the PettingZoo API around them.
This module deals, scores and records rounds, and reads the round through the core.
"""

from __future__ import annotations

import random
from functools import cache, lru_cache

import numpy as np

from catzoo.games.base import TERMINAL, bits_to_mask, shuffle
from catzoo.games.cat_in_the_box.layout import layout_for
from catzoo.games.cat_in_the_box.options import COLOURS, COPIES, CatInTheBoxOptions
from catzoo.games.cat_in_the_box.round_core import RoundCore, trick_winner  # noqa: F401
from catzoo.games.cat_in_the_box.scoring import round_scores
from catzoo.games.compiled_round import CompiledRoundState

ASIDE, PREDICT, PLAY = 0, 1, 2
PHASES = ("aside", "predict", "play")
ASIDE_BASE, PREDICT_BASE, PLAY_BASE = 0, 9, 14
NUM_ACTIONS = 50
EMPTY, BLOCKED = -1, -2
NUMBERS = 9
SPACES = 4 * NUMBERS
ALL_NUMBERS = (1 << NUMBERS) - 1
ALL_SPACES = (1 << SPACES) - 1
# REPEAT[h]: a 9-bit set of numbers repeated in each of the 4 colour rows.
REPEAT = tuple(h | h << 9 | h << 18 | h << 27 for h in range(1 << NUMBERS))
COLOUR_ROW = tuple(ALL_NUMBERS << (c * NUMBERS) for c in range(4))


@lru_cache(maxsize=4096)
def _round_start_master(layout, blocked: int, round_index: int, round_start: int) -> np.ndarray:
    """The master vector at the start of a round, before hands and scores are written.

    Few distinct ones occur (the blocked spaces vary only with 2 players), and one copy
    of a cached vector is much cheaper than the dozen writes that build it.
    """
    L = layout
    m = np.zeros(L.master_size, dtype=np.float32)
    m[L.span("blocked")] = bits_to_mask(blocked, SPACES)
    m[L.span("markers")] = 1.0
    m[L.base["round"] + round_index] = 1.0
    m[L.base["phase"] + ASIDE] = 1.0
    m[L.base["round_start"] + round_start] = 1.0
    m[L.base["leader"] + round_start] = 1.0  # the round's start player leads first
    m.flags.writeable = False  # shared by every state: copied, never written
    return m


@lru_cache(maxsize=1 << 12)
def _revealed_blocks(revealed: tuple[int, ...]) -> int:
    """[R] 2 players: 3 of the 5 leftover cards are revealed; each revealed number blocks
    its green space, a second copy its yellow, a third its blue."""
    blocked = 0
    for k in set(revealed):
        for colour in (2, 1, 0)[: revealed.count(k)]:
            blocked |= 1 << (colour * NUMBERS + k)
    return blocked


@cache
def _deck(max_number: int) -> tuple[int, ...]:
    return tuple(k for k in range(max_number) for _ in range(COPIES))


def bits_of(items) -> int:
    out = 0
    for i in items:
        out |= 1 << i
    return out


def play_action(colour: int, number: int) -> int:
    return PLAY_BASE + colour * NUMBERS + number - 1


class CatInTheBoxState(CompiledRoundState):
    game_name = "cat_in_the_box"
    env_version = 0
    options_cls = CatInTheBoxOptions
    num_actions = NUM_ACTIONS
    _game_lists = ("chance", "history", "total_scores", "round_scores", "round_records")

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        o = self.options
        self.num_players = n = o.num_players
        self._use_layout(layout_for(n))
        self._at = self.layout.at
        self.total_scores = [0] * n
        self.round_scores: list[list[int]] = []
        self.round_records: list[dict] = []  # what each finished round was scored from
        self.round_index = 0
        # [D] seat 0 starts the first round; the env's seeding makes deals random, and a
        # full game gives every seat one round as start player.
        self.round_start = 0
        self._core = RoundCore(n, o.tricks_per_round,
                               bits_of(PREDICT_BASE + v for v in o.allowed_predictions),
                               self.master, self._at)
        self._deck = _deck(o.max_number)
        self._start_round()

    def _deal(self, rng: random.Random):
        deck = list(self._deck)
        shuffle(deck, rng)
        h, n = self.options.hand_size, self.num_players
        hands = tuple([tuple(sorted(deck[start : start + h])) for start in range(0, n * h, h)])
        return (hands, tuple(deck[n * h :]))

    def _start_round(self) -> None:
        o, n, L = self.options, self.num_players, self.layout
        hands, leftover = self._draw_chance(self._deal)
        self.leftover = leftover
        blocked = REPEAT[ALL_NUMBERS & ~((1 << o.max_number) - 1)]  # [R] numbers not dealt
        if n == 2:
            blocked |= _revealed_blocks(leftover[:3])
        self.blocked = blocked
        # The round's set-asides are its first actions, one per player from the start player.
        self._round_begin = len(self.history)
        self.master[:] = _round_start_master(L, blocked, self.round_index, self.round_start)
        self._write_scores()
        core = self._core
        core.begin(hands, ALL_SPACES & ~blocked, self.round_start)  # writes the hands
        self.current_player = core.current_player
        self._legal = core.legal

    def _write_scores(self) -> None:
        start, mv = self._at.score, self._mv
        for p, total in enumerate(self.total_scores):
            mv[start + p] = min(4.0, max(-4.0, total / 50.0))

    # --- the end of a round ----------------------------------------------------------------
    # The rules of a round's actions (set-aside, prediction, play, trick, paradox) are in
    # round_core.pyx; CompiledRoundState applies them there.
    def _end_round(self) -> None:
        o, n, core = self.options, self.num_players, self._core
        tricks, predictions = core.tricks, core.predictions
        scores = round_scores(core.tokens, tricks, predictions, core.paradox_player, o.row_order)
        self.round_scores.append(scores)
        self.round_records.append({
            "start_player": self.round_start,
            "predictions": predictions,
            "tricks": tricks,
            "tricks_played": core.tricks_done,
            "paradox_player": core.paradox_player,
            "tokens": core.tokens,
            "scores": scores,
        })
        for p in range(n):
            self.total_scores[p] += scores[p]
        self.round_index += 1
        if self.round_index == o.num_rounds:
            core.end_game()
            self.current_player = TERMINAL
            self._legal = 0
            self._write_scores()
            return
        # [R] the round start player passes left each round.
        self.round_start = (self.round_start + 1) % n
        self._start_round()

    # --- the round in progress, read from the core ------------------------------------------
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
        return [[bool(bits & COLOUR_ROW[c]) for c in range(4)] for bits in self._core.marker_bits]

    @property
    def owner(self) -> np.ndarray:
        """The research board, ``owner[colour, number - 1]``: a player, EMPTY or BLOCKED."""
        out = np.where(bits_to_mask(self.blocked, SPACES) > 0, BLOCKED, EMPTY)
        for p, spaces in enumerate(self.tokens):
            out[bits_to_mask(spaces, SPACES) > 0] = p
        return out.reshape(4, NUMBERS).astype(np.int8)

    # --- results ------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return list(self.total_scores)

    def standing_keys(self) -> list[tuple]:
        # [R] tie-break: the highest score in the final round; still tied, a shared win.
        last = self.round_scores[-1] if self.round_scores else [0] * self.num_players
        return [(self.total_scores[p], last[p]) for p in range(self.num_players)]

    # --- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self.master[self.layout.view_index[player]]

    def state_vector(self) -> np.ndarray:
        return self.master.copy()

    # --- copies and determinization -----------------------------------------------------------
    def resample(self, player: int, rng: random.Random, attempts: int = 1000) -> CatInTheBoxState:
        """Re-deal the other players' hands and set-aside cards (and, with 2 players, the
        unrevealed leftovers) uniformly among the deals consistent with what ``player``
        saw: the cards each opponent played, every exceptional red lead (which proves the
        leader held no card declarable in another colour), and that the player to act is
        not in a paradox (it holds a legal move)."""
        c = self._copy(random.Random(rng.getrandbits(64)))  # later deals unforeseeable
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
                or core.empty_bits & REPEAT[bits_of(new_hands[to_act])] & core.marker_bits[to_act]
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
