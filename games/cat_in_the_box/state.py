"""Cat in the Box rules engine: deals, set-aside, predictions, tricks, paradox, scoring.

Sources are tagged as in docs/rules/cat_in_the_box.md: [R] published rulebook (via
rules-notes), [S] seed text, [D] a documented project decision.

Actions (one flat space of 50):
* ``0-8``   set aside a card numbered 1-9 (phase "aside");
* ``9-13``  predict 0-4 tricks (phase "predict");
* ``14-49`` play a card and declare a colour: ``14 + colour * 9 + (number - 1)`` with
  colours blue 0, yellow 1, green 2, red 3 (phase "play").

Hands, markers and board spaces are kept as Python ints and lists (bit sets of board
spaces, see ``scoring``) because the env calls ``apply`` once per agent-step and small
numpy operations cost more than the rules themselves there.
"""

from __future__ import annotations

import copy
import random
from functools import lru_cache

import numpy as np

from catzoo.games.base import TERMINAL, GameState, bits_to_mask, shuffle
from catzoo.games.cat_in_the_box.layout import layout_for
from catzoo.games.cat_in_the_box.options import COLOURS, COPIES, RED, CatInTheBoxOptions
from catzoo.games.cat_in_the_box.scoring import round_scores

ASIDE, PREDICT, PLAY = 0, 1, 2
PHASES = ("aside", "predict", "play")
ASIDE_BASE, PREDICT_BASE, PLAY_BASE = 0, 9, 14
NUM_ACTIONS = 50
EMPTY, BLOCKED = -1, -2
NUMBERS = 9
SPACES = 4 * NUMBERS
ALL_NUMBERS = (1 << NUMBERS) - 1
ALL_SPACES = (1 << SPACES) - 1
NONRED = (1 << (RED * NUMBERS)) - 1  # the blue, yellow and green rows
# REPEAT[h]: a 9-bit set of numbers repeated in each of the 4 colour rows.
REPEAT = tuple(h | h << 9 | h << 18 | h << 27 for h in range(1 << NUMBERS))
COLOUR_ROW = tuple(ALL_NUMBERS << (c * NUMBERS) for c in range(4))


def numbers_in(spaces: int) -> int:
    """The 9-bit set of numbers having a space in any colour row of ``spaces``."""
    return (spaces | spaces >> 9 | spaces >> 18 | spaces >> 27) & ALL_NUMBERS


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


# Hands recur across deals (a few tens of thousands of distinct ones), and a cached
# summary costs a fraction of counting the cards again at every round start.
@lru_cache(maxsize=1 << 16)
def _hand_summary(hand: tuple[int, ...]) -> tuple[tuple[int, ...], int, tuple]:
    """A sorted hand's count per number, its bit set of numbers, and its hand features
    as (number, count / COPIES) pairs."""
    counts = [0] * NUMBERS
    for k in hand:
        counts[k] += 1
    features = tuple((k, c / COPIES) for k, c in enumerate(counts) if c)
    return tuple(counts), bits_of(hand), features


@lru_cache(maxsize=1 << 12)
def _revealed_blocks(revealed: tuple[int, ...]) -> int:
    """[R] 2 players: 3 of the 5 leftover cards are revealed; each revealed number blocks
    its green space, a second copy its yellow, a third its blue."""
    blocked = 0
    for k in set(revealed):
        for colour in (2, 1, 0)[: revealed.count(k)]:
            blocked |= 1 << (colour * NUMBERS + k)
    return blocked


@lru_cache(maxsize=None)
def _deck(max_number: int) -> tuple[int, ...]:
    return tuple(k for k in range(max_number) for _ in range(COPIES))


def bits_of(items) -> int:
    out = 0
    for i in items:
        out |= 1 << i
    return out


def play_action(colour: int, number: int) -> int:
    return PLAY_BASE + colour * NUMBERS + number - 1


class CatInTheBoxState(GameState):
    game_name = "cat_in_the_box"
    env_version = 0
    options_cls = CatInTheBoxOptions
    num_actions = NUM_ACTIONS

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
        self.last_trick: tuple | None = None
        self._predict_bits = bits_of(PREDICT_BASE + v for v in o.allowed_predictions)
        self._tricks_per_round = o.tricks_per_round
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
        summaries = [_hand_summary(hand) for hand in hands]
        self.counts = [list(counts) for counts, _, _ in summaries]
        self._hand_bits = [bits for _, bits, _ in summaries]
        self.leftover = leftover
        blocked = REPEAT[ALL_NUMBERS & ~((1 << o.max_number) - 1)]  # [R] numbers not dealt
        if n == 2:
            blocked |= _revealed_blocks(leftover[:3])
        self.blocked = blocked
        self._empty_bits = ALL_SPACES & ~blocked
        self.tokens = [0] * n  # each player's research-board spaces
        self._marker_bits = [ALL_SPACES] * n  # spaces of the colours whose marker is held
        self.aside = [-1] * n
        self.predictions = [-1] * n
        self.tricks = [0] * n
        self.trick: list[tuple[int, int, int]] = []
        self.led = -1
        self.leader = self.round_start
        self.red_broken = False
        self.tricks_done = 0
        self.paradox_player = TERMINAL
        self.phase = ASIDE
        self.current_player = self.round_start
        self._aside_at = [-1] * n
        self._red_lead_exceptions: list[tuple[int, int]] = []
        self._played = [0] * NUMBERS

        self.master[:] = _round_start_master(L, blocked, self.round_index, self.round_start)
        # One scalar write per number held: cheaper than building a vector of the hands.
        mv, start = self._mv, self._at.hand
        for _, _, features in summaries:
            for k, value in features:
                mv[start + k] = value
            start += NUMBERS
        self._write_scores()
        self._legal = self._compute_legal()

    def _write_scores(self) -> None:
        start, mv = self._at.score, self._mv
        for p, total in enumerate(self.total_scores):
            mv[start + p] = min(4.0, max(-4.0, total / 50.0))

    # --- legal moves ---------------------------------------------------------------------
    def _playable(self, p: int) -> int:
        """Spaces p may declare: empty, of a number in hand, of a colour whose marker is held."""
        return self._empty_bits & REPEAT[self._hand_bits[p]] & self._marker_bits[p]

    def _compute_legal(self) -> int:
        p = self.current_player
        if p == TERMINAL:
            return 0
        if self.phase == ASIDE:
            return self._hand_bits[p] << ASIDE_BASE
        if self.phase == PREDICT:
            return self._predict_bits
        ok = self._playable(p)
        # [R] the leader declares blue, yellow or green only, unless red is broken or no
        # other colour can be declared with any card in hand.
        if not self.trick and not self.red_broken and ok & NONRED:
            ok &= NONRED
        return ok << PLAY_BASE

    # --- applying actions ----------------------------------------------------------------
    def _apply(self, action: int) -> None:
        p = self.current_player
        # The action ranges are the phases' (the action is known to be legal).
        if action >= PLAY_BASE:
            colour, k = divmod(action - PLAY_BASE, NUMBERS)
            if self._play(p, colour, k):
                return
        elif action >= PREDICT_BASE:
            self._predict(p, action - PREDICT_BASE)
        else:
            self._set_aside(p, action - ASIDE_BASE)
        self._legal = self._compute_legal()
        if not self._legal and self.phase == PLAY and self.current_player != TERMINAL:
            self._paradox()

    def _take_from_hand(self, p: int, k: int) -> None:
        row = self.counts[p]
        row[k] -= 1
        if not row[k]:
            self._hand_bits[p] &= ~(1 << k)
        self._mv[self._at.hand + p * NUMBERS + k] = row[k] / COPIES

    def _set_aside(self, p: int, k: int) -> None:
        self._take_from_hand(p, k)
        self.aside[p] = k
        self._mv[self._at.aside + p * NUMBERS + k] = 1.0
        self._aside_at[p] = len(self.history)
        nxt = (p + 1) % self.num_players
        if nxt == self.round_start:
            self._set_phase(PLAY if self.num_players == 2 else PREDICT)
        self.current_player = nxt

    def _predict(self, p: int, value: int) -> None:
        self.predictions[p] = value
        self._mv[self._at.prediction + p * 5 + value] = 1.0
        nxt = (p + 1) % self.num_players
        if nxt == self.round_start:
            self._set_phase(PLAY)
        self.current_player = nxt

    def _set_phase(self, phase: int) -> None:
        start, mv = self._at.phase, self._mv
        mv[start + self.phase] = 0.0
        mv[start + phase] = 1.0
        self.phase = phase

    def _play(self, p: int, colour: int, k: int) -> bool:
        """Play a card; True when it also set the next player's legal moves (the common
        case, a follower to play: written out here because it runs on most steps)."""
        at, m = self._at, self._mv
        trick = self.trick
        if not trick:
            if colour == RED and not self.red_broken:
                # Record what this exceptional red lead revealed (no number declarable in
                # another colour was in hand), so that re-sampling respects it.
                declarable = numbers_in(self._empty_bits & self._marker_bits[p] & NONRED)
                self._red_lead_exceptions.append((p, declarable))
            self.led = led = colour
            m[at.led + colour] = 1.0
        else:
            led = self.led
            if colour != led and self._marker_bits[p] & COLOUR_ROW[led]:
                # [R] a follower declaring another colour loses the led colour's X marker.
                self._marker_bits[p] &= ~COLOUR_ROW[led]
                m[at.markers + p * 4 + led] = 0.0
        row = self.counts[p]
        left = row[k] - 1
        row[k] = left
        if not left:
            self._hand_bits[p] &= ~(1 << k)
        m[at.hand + p * NUMBERS + k] = left / COPIES
        space = colour * NUMBERS + k
        self.tokens[p] |= 1 << space
        self._empty_bits &= ~(1 << space)
        m[at.board + p * SPACES + space] = 1.0
        played = self._played
        played[k] += 1
        m[at.played + k] = played[k] / COPIES
        if colour == RED:
            self.red_broken = True
        trick.append((p, colour, k))
        tc = at.trick_card + p * 13
        m[tc + k] = 1.0
        m[tc + NUMBERS + colour] = 1.0
        n = self.num_players
        if len(trick) < n:
            self.current_player = q = (p + 1) % n
            # A follower: no red-lead restriction, so the moves are the playable spaces.
            ok = self._empty_bits & REPEAT[self._hand_bits[q]] & self._marker_bits[q]
            self._legal = ok << PLAY_BASE
            if not ok:
                self._paradox()
            return True
        winner = trick_winner(trick, led)
        self.last_trick = (tuple(trick), winner)
        self.tricks[winner] += 1
        m[at.tricks + winner] = self.tricks[winner] / 8.0
        self._clear_trick()
        self.tricks_done += 1
        if self.tricks_done == self._tricks_per_round:
            self._end_round()
            return True
        m[at.leader + self.leader] = 0.0
        self.leader = winner
        m[at.leader + winner] = 1.0
        self.current_player = winner
        return False

    def _clear_trick(self) -> None:
        # Only the features the trick set are cleared: a few scalar writes cost less than
        # zeroing the whole block.
        m, trick_card = self._mv, self._at.trick_card
        for p, colour, k in self.trick:
            start = trick_card + p * 13
            m[start + k] = 0.0
            m[start + NUMBERS + colour] = 0.0
        if self.led >= 0:
            m[self._at.led + self.led] = 0.0
        self.trick = []
        self.led = -1

    def _paradox(self) -> None:
        # [R] the player to act cannot play: the round ends at once, the trick in
        # progress is won by nobody, the tokens stay.
        self.paradox_player = self.current_player
        if self.trick:
            self.last_trick = (tuple(self.trick), None)
        self._clear_trick()
        self._end_round()

    def _end_round(self) -> None:
        o, n = self.options, self.num_players
        scores = round_scores(
            self.tokens, self.tricks, self.predictions, self.paradox_player, o.row_order
        )
        self.round_scores.append(scores)
        self.round_records.append({
            "start_player": self.round_start,
            "predictions": list(self.predictions),
            "tricks": list(self.tricks),
            "tricks_played": self.tricks_done,
            "paradox_player": self.paradox_player,
            "tokens": list(self.tokens),
            "scores": scores,
        })
        for p in range(n):
            self.total_scores[p] += scores[p]
        self.round_index += 1
        if self.round_index == o.num_rounds:
            self.current_player = TERMINAL
            self._legal = 0
            self._write_scores()
            return
        # [R] the round start player passes left each round.
        self.round_start = (self.round_start + 1) % n
        self._start_round()

    def played_numbers(self, p: int) -> list[int]:
        """Numbers (0-based) of the cards p played this round: one per research token."""
        return [i % NUMBERS for i in range(SPACES) if self.tokens[p] >> i & 1]

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
        return [[bool(bits & COLOUR_ROW[c]) for c in range(4)] for bits in self._marker_bits]

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
    def clone(self) -> CatInTheBoxState:
        c = copy.copy(self)
        c._set_master(self.master.copy())
        for name in ("aside", "predictions", "tricks", "trick", "total_scores", "chance",
                     "history", "tokens", "_aside_at", "_red_lead_exceptions",
                     "_hand_bits", "_marker_bits", "_played"):
            setattr(c, name, list(getattr(self, name)))
        c.round_records = list(self.round_records)  # finished rounds never change
        for name in ("counts", "round_scores"):
            setattr(c, name, [list(row) for row in getattr(self, name)])
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        return c

    def resample(self, player: int, rng: random.Random, attempts: int = 1000) -> CatInTheBoxState:
        """Re-deal the other players' hands and set-aside cards (and, with 2 players, the
        unrevealed leftovers) uniformly among the deals consistent with what ``player``
        saw: the cards each opponent played, every exceptional red lead (which proves the
        leader held no card declarable in another colour), and that the player to act is
        not in a paradox (it holds a legal move)."""
        c = self.clone()
        c.rng = random.Random(rng.getrandbits(64))  # later deals must not be foreseeable
        if self.is_terminal():
            return c
        n = self.num_players
        others = [q for q in range(n) if q != player]
        hidden_aside = [q for q in others if self.aside[q] >= 0]
        pool = [k for q in others for k in range(NUMBERS) for _ in range(self.counts[q][k])]
        pool += [self.aside[q] for q in hidden_aside]
        pool += list(self.leftover[3:] if n == 2 else self.leftover)
        sizes = [sum(self.counts[q]) for q in others]
        constraints = [(q, nums) for q, nums in self._red_lead_exceptions if q != player]
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
                or self._empty_bits & REPEAT[bits_of(new_hands[to_act])] & self._marker_bits[to_act]
            ):
                break
        else:
            return c  # [D] no consistent re-deal found: the true deal is always consistent
        L = c.layout
        for q in others:
            c.counts[q] = [0] * NUMBERS
            for k in new_hands[q]:
                c.counts[q][k] += 1
            c._hand_bits[q] = bits_of(new_hands[q])
            c.master[L.span("hand", q)] = np.asarray(c.counts[q], dtype=np.float32) / COPIES
        for q in hidden_aside:
            k = pool[pos]
            pos += 1
            c.aside[q] = k
            span = L.span("aside", q)
            c.master[span] = 0.0
            c.master[span.start + k] = 1.0
            c.history[self._aside_at[q]] = ASIDE_BASE + k
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


def trick_winner(trick, led: int) -> int:
    """[R] The highest red wins if any red was declared, else the highest of the led colour."""
    reds = [(k, p) for (p, colour, k) in trick if colour == RED]
    if reds:
        return max(reds)[1]
    return max((k, p) for (p, colour, k) in trick if colour == led)[1]
