"""Cat Tree rules engine: hidden picks, reveal, placing order, placements, shared score.

Sources are tagged as in docs/rules/cat_tree.md: [S] seed text, [D] a documented project
decision.

A turn [S]: each player is dealt 2 cards and secretly keeps one (player 0 picks, then
player 1; neither sees the other's pick); the kept cards are revealed; the turn's leader
(player ``turn % 2`` [D]) decides who places first (option ``placing_order``); each
player then places their kept card on an empty legal cell, or dismisses it when, and only
when, no cell is legal for it. After 8 turns the 32 cards are used up and the game ends.

Actions (one flat space of ``5 + width * height``):
* ``0, 1``  keep your lower / higher card of the two (phase "keep");
* ``2``     I place first, ``3`` my partner places first (phase "order", the leader);
* ``4 + row * width + column``  place your kept card there (phase "place");
* ``4 + width * height``  dismiss your kept card (legal only when no cell is legal).

Speed (the env's hot path; observations, masks and scores are those of the layout and
rules exactly). The observation layout (``layout.py``) is documented as one master vector
gathered per viewer; the engine keeps instead both players' observations ready, side by
side in one float32 buffer (``_buf``: viewer 0's observation, then viewer 1's), so that
``observation`` is one contiguous copy instead of a gather. Features are written
through memoryviews of that buffer (a scalar write through a memoryview costs a fraction
of a numpy item assignment, a turn's hand, kept and public blocks are one byte-string
write each), a public or seat feature in both halves, a private one in its owner's
half; ``state_vector`` gathers the master vector back from it. The kept_legal planes
are written whole from bytes (a byte table per 8 cells) and patched cell by cell when a
placement changes them; the place-phase mask is a cast of the acting player's own plane.
A placement updates the connected parts, the counted cells, the score (only the new
piece's points when it joins alone: ``scoring.gain``) and the legal cells from the
previous ones instead of recomputing them.
"""

from __future__ import annotations

import random
import struct
from functools import lru_cache

import numpy as np

from catzoo.games.base import TERMINAL, GameState, shuffle_as_random
from catzoo.games.cat_tree.layout import SCORE_SCALE, layout_for
from catzoo.games.cat_tree.options import (
    BASE_POINTS,
    CARDS_PER_TURN,
    COPIES,
    DECK_SIZE,
    NUM_TYPES,
    PIPE,
    SCRATCHER,
    TOY,
    TYPE_NAMES,
    CatTreeOptions,
)
from catzoo.games.cat_tree.placement import (
    CARRIES,
    HANGS,
    RULE_OF_TYPE,
    legal_classes,
    rules_for,
)
from catzoo.games.cat_tree.scoring import gain, points, toy_points

KEEP, ORDER, PLACE = 0, 1, 2
PHASES = ("keep", "order", "place")
KEEP_BASE, ORDER_BASE, PLACE_BASE = 0, 2, 4
ME_FIRST, PARTNER_FIRST = ORDER_BASE, ORDER_BASE + 1
DECK = tuple(t for t in range(NUM_TYPES) for _ in range(COPIES))

_F32 = struct.Struct("=f")  # numpy's float32, native byte order
# _PLANE_BYTES[b]: the 8 cells of byte b of a bit set as float32 0/1, lowest bit first.
_PLANE_BYTES = tuple(b"".join(_F32.pack(float((b >> j) & 1)) for j in range(8))
                     for b in range(256))
_PHASE_LEN = 4 * len(PHASES)  # bytes of the phase one-hot in an observation
# unseen feature of a type after seeing ``count`` of its 4 cards
_UNSEEN = tuple(1.0 - count / COPIES for count in range(COPIES + 1))
_IS_CARRIER = tuple(kind in CARRIES for kind in range(NUM_TYPES))
_IS_HANGER = tuple(kind in HANGS for kind in range(NUM_TYPES))
# the types whose points are their own only (no group), unless a pipe is beside them
_PLAIN = tuple(kind not in (PIPE, SCRATCHER, TOY) for kind in range(NUM_TYPES))


def dismiss_action(options: CatTreeOptions) -> int:
    return PLACE_BASE + options.width * options.height


def deal_of(deck, turn: int, player: int) -> tuple[int, int]:
    """The two cards (types, lower first) ``player`` is dealt at ``turn`` from ``deck``."""
    start = turn * CARDS_PER_TURN + 2 * player
    a, b = deck[start], deck[start + 1]
    return (a, b) if a <= b else (b, a)


class CatTreeState(GameState):
    game_name = "cat_tree"
    env_version = 0
    options_cls = CatTreeOptions

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        static = _static_of(self.options)
        self.__dict__.update(static.fields)
        self.num_players = 2
        deck = self.deck = tuple(self._draw_chance(_shuffled_deck))
        if self._pinned_chance and sorted(deck) != list(DECK):
            raise ValueError("cat_tree: a pinned deck must hold each of the 8 types 4 times")
        self.boards = [0] * NUM_TYPES
        self._parts: list[int] = []  # orthogonally connected groups of pieces, as bit sets
        self.grid = [-1] * self.num_cells
        self.total = 0
        self.counted = 0
        self._occ = self._carriers = self._hangers = 0
        self._ground = self._reach = 0  # the ground-connected cells, and what they reach
        self._toy_points = 0  # the points of the counted toys
        self.turn = 0
        self.phase = KEEP
        self.seen = [[0] * NUM_TYPES, [0] * NUM_TYPES]
        self.placements: list[tuple[int, int, int, int]] = []  # (turn, player, type, cell/-1)
        self._plane_rule = [-1, -1]  # the placement class each kept_legal plane shows
        self._attach(static.start.copy())
        self._start_turn()

    def _attach(self, buf: np.ndarray) -> None:
        """Use ``buf`` (both observations): numpy views of each observation and of each
        player's own kept_legal plane, memoryviews to write features."""
        self._buf = buf
        self._mv = mv = memoryview(buf)
        self._mvb = mv.cast("B")
        size, n = self.observation_size, self.num_cells
        self._views = (buf[:size], buf[size:])
        self._own_plane = tuple(buf[at : at + n] for at in self._own_plane_f)

    def _start_turn(self) -> None:
        t = self.turn
        deck = self.deck
        i = CARDS_PER_TURN * t
        a, b, c, d = deck[i : i + CARDS_PER_TURN]
        h0 = (a, b) if a <= b else (b, a)
        h1 = (c, d) if c <= d else (d, c)
        self.hands = [h0, h1]
        self.picked = [-1, -1]
        self.kept = [-1, -1]
        self.to_place = [False, False]
        self.first = TERMINAL
        self.leader = t % 2  # [D] the leader alternates, player 0 on the first turn
        mv, mvb = self._mv, self._mvb
        # each half: the hand dealt, nothing picked or kept; the turn's public features
        (at0, at1), (to0, to1) = self._hand_span
        mvb[at0:to0] = self._hand_bytes[h0[0] * NUM_TYPES + h0[1]]
        mvb[at1:to1] = self._hand_bytes[h1[0] * NUM_TYPES + h1[1]]
        (at0, at1), (to0, to1), (raw0, raw1) = self._turn_bytes[t]
        mvb[at0:to0] = raw0
        mvb[at1:to1] = raw1
        seen0, seen1 = self.seen
        at0, at1 = self._unseen_at
        seen0[a] += 1
        mv[at0 + a] = _UNSEEN[seen0[a]]
        seen0[b] += 1
        mv[at0 + b] = _UNSEEN[seen0[b]]
        seen1[c] += 1
        mv[at1 + c] = _UNSEEN[seen1[c]]
        seen1[d] += 1
        mv[at1 + d] = _UNSEEN[seen1[d]]
        self.phase = KEEP
        self.current_player = 0
        self._legal = 0b11 << KEEP_BASE

    # --- legal moves ---------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        phase = self.phase
        if self.current_player == TERMINAL:
            return np.zeros(self.num_actions, dtype=np.int8)
        if phase == KEEP:
            return self._keep_mask.copy()
        if phase == ORDER:
            return self._order_mask.copy()
        # the acting player's own kept_legal plane holds its legal cells (a numpy cast
        # from its float32 view into a copied template beats any bytes route)
        dismiss = self.dismiss
        if self._legal >> dismiss:
            return self._dismiss_mask.copy()  # nothing fits: the plane is all zeros
        mask = self._place_mask.copy()
        mask[PLACE_BASE:dismiss] = self._own_plane[self.current_player]
        return mask

    # --- applying actions ----------------------------------------------------------------
    def apply_unchecked(self, action: int) -> None:
        """Apply an action already known to be legal (the env checks it on the mask):
        the env's hot path, so the dispatch is here rather than in a call to ``_apply``."""
        phase = self.phase
        if phase == PLACE:
            if action == self.dismiss:
                self._placed(self.current_player, -1)
            else:
                self._place(self.current_player, action - PLACE_BASE)
        elif phase == KEEP:
            p = self.current_player
            index = action - KEEP_BASE
            self.picked[p] = index
            self.kept[p] = self.hands[p][index]
            self._mv[self._picked_at[p] + index] = 1.0
            if p:
                self._reveal()
            else:
                self.current_player = 1
        else:
            p = self.current_player
            self._order(p if action == ME_FIRST else 1 - p)
        self.history.append(action)

    def _reveal(self) -> None:
        mvb = self._mvb
        k0, k1 = kept = self.kept
        seen, classes = self.seen, self._classes
        self.to_place = [True, True]
        # both halves' kept blocks (own seat first), then the unseen counts
        (at0, at1), (to0, to1) = self._kept_span
        mvb[at0:to0] = self._kept_bytes[k0 * NUM_TYPES + k1]
        mvb[at1:to1] = self._kept_bytes[k1 * NUM_TYPES + k0]
        mv = self._mv
        at0, at1 = self._unseen_at
        seen[1][k0] += 1
        mv[at1 + k0] = _UNSEEN[seen[1][k0]]
        seen[0][k1] += 1
        mv[at0 + k1] = _UNSEEN[seen[0][k1]]
        size = self._plane_len
        done = -1
        for p in (0, 1):
            rule = RULE_OF_TYPE[kept[p]]
            self._plane_rule[p] = rule
            cells = classes[rule]
            if cells:  # the plane is all zeros until now
                if rule != done:
                    raw = b"".join(map(_PLANE_BYTES.__getitem__,
                                       cells.to_bytes(self._nbytes, "little")))
                    if self._trim:
                        raw = raw[:size]
                    done = rule
                at0, at1 = self._plane_at[p]
                mvb[at0 : at0 + size] = raw
                mvb[at1 : at1 + size] = raw
        if self.options.placing_order == "choose":
            at0, at1 = self._phase_at
            raw = self._phase_bytes[ORDER]
            mvb[at0 : at0 + _PHASE_LEN] = raw
            mvb[at1 : at1 + _PHASE_LEN] = raw
            self.phase = ORDER
            self.current_player = self.leader
            self._legal = 0b11 << ORDER_BASE
        else:
            self._order(self.leader)

    def _order(self, first: int) -> None:
        mv, mvb = self._mv, self._mvb
        self.first = first
        at0, at1 = self._first_at[first]
        mv[at0] = 1.0
        mv[at1] = 1.0
        at0, at1 = self._phase_at
        raw = self._phase_bytes[PLACE]
        mvb[at0 : at0 + _PHASE_LEN] = raw
        mvb[at1 : at1 + _PHASE_LEN] = raw
        self.phase = PLACE
        self.current_player = first
        cells = self._classes[RULE_OF_TYPE[self.kept[first]]]
        # [S] a card is dismissed only when it cannot be placed anywhere.
        self._legal = cells << PLACE_BASE if cells else 1 << self.dismiss

    def _place(self, p: int, cell: int) -> None:
        kind = self.kept[p]
        bit = 1 << cell
        boards = self.boards
        boards[kind] |= bit
        self.grid[cell] = kind
        # the new piece joins every part it touches (parts only ever merge)
        near = self._near[cell]
        joined, parts = bit, []
        for part in self._parts:
            if part & near:
                joined |= part
            else:
                parts.append(part)
        parts.append(joined)
        self._parts = parts
        mv = self._mv
        size = self.observation_size
        at = self._grid_at + kind * self.num_cells + cell
        mv[at] = 1.0
        mv[at + size] = 1.0

        # what counts: the ground-connected structure, and the parts within reach of it
        rules = self.rules
        row0 = rules.row0
        before = counted = self.counted
        if joined & row0:  # the piece stands on the ground structure (or the floor)
            ground = self._ground
            lifted = joined & ~ground  # the piece, and the parts it joined to the ground
            self._ground = ground | joined
            reach = self._reach = self._reach | (
                self._reach_of[cell] if lifted == bit else rules.ball(lifted, rules.detach_steps))
            for part in parts:
                if part & reach:
                    counted |= part
        elif joined & self._reach:
            counted |= joined

        # the holders of a pipe's sides, and the placement classes' carriers
        occ = self._occ = self._occ | bit
        carriers, hangers = self._carriers, self._hangers
        if _IS_CARRIER[kind]:
            carriers = self._carriers = carriers | bit
        if _IS_HANGER[kind]:
            hangers = self._hangers = hangers | bit

        if counted != before:
            if counted == before | bit:  # the piece alone joins what counts
                if _PLAIN[kind] and not boards[PIPE] & counted & near:
                    # no group and no pipe beside it: its own points
                    total = self.total + BASE_POINTS[kind] * (2 if bit & rules.alt else 1)
                else:
                    points_, self._toy_points = gain(boards, kind, bit, counted,
                                                     occ if rules.pipe_any else hangers,
                                                     self._toy_points, rules)
                    total = self.total + points_
            else:  # parts joined the tree: score it all again
                total = points(boards, counted, rules)
                toys = boards[TOY] & counted
                self._toy_points = toy_points(toys, rules) if toys else 0
            self.counted = counted
            if total != self.total:
                self.total = total
                value = min(total / SCORE_SCALE, 4.0)
                at = self._score_at
                mv[at] = value
                mv[at + size] = value
            diff = counted ^ before
            at = self._counted_at
            if diff == bit:
                at += cell
                mv[at] = 1.0
                mv[at + size] = 1.0
                diff = 0
            while diff:
                low = diff & -diff
                i = at + low.bit_length() - 1
                mv[i] = 1.0  # counted cells only ever join
                mv[i + size] = 1.0
                diff ^= low

        # the legal cells of each placement class on the new grid
        empty = rules.full ^ occ
        flat = (row0 | (carriers << rules.width)) & empty
        sides = ((hangers << 1) & rules.not_col0) & ((hangers >> 1) & rules.not_last) & empty
        old = self._classes
        classes = self._classes = (flat, sides, flat | sides, empty & ~row0)
        # the other player's plane, if still to place, follows its class cell by cell
        other = 1 - p
        if self.to_place[other]:
            rule = self._plane_rule[other]
            bits = classes[rule]
            diff = old[rule] ^ bits
            if diff:
                at0, at1 = self._plane_at_f[other]
                while diff:
                    low = diff & -diff
                    i = low.bit_length() - 1
                    value = 1.0 if bits & low else 0.0
                    mv[at0 + i] = value
                    mv[at1 + i] = value
                    diff ^= low
        self._placed(p, cell, old)

    def _placed(self, p: int, cell: int, classes=None) -> None:
        kind = self.kept[p]
        self.placements.append((self.turn, p, kind, cell))
        to_place = self.to_place
        to_place[p] = False
        mv = self._mv
        at0, at1 = self._kept_at[p]
        mv[at0 + kind] = 0.0
        mv[at1 + kind] = 0.0
        # clear the plane (it is already all zeros when the card had no legal cell)
        if (classes or self._classes)[self._plane_rule[p]]:
            mvb, size, zeros = self._mvb, self._plane_len, self._zero_plane
            at0, at1 = self._plane_at[p]
            mvb[at0 : at0 + size] = zeros
            mvb[at1 : at1 + size] = zeros
        self._plane_rule[p] = -1
        other = 1 - p
        if to_place[other]:
            self.current_player = other
            cells = self._classes[RULE_OF_TYPE[self.kept[other]]]
            self._legal = cells << PLACE_BASE if cells else 1 << self.dismiss
            return
        self.turn += 1
        if self.turn == self.options.turns:
            self.current_player = TERMINAL
            self._legal = 0
            return
        self._start_turn()

    # --- results ------------------------------------------------------------------------
    def scores(self) -> list[float]:
        """The shared score, the same for both partners."""
        return [self.total, self.total]

    def returns(self) -> np.ndarray:
        """[D] Both partners get the final score divided by 100 (cooperative reward)."""
        return np.full(2, self.total / SCORE_SCALE, dtype=np.float64)

    def teams(self) -> tuple[tuple[int, ...], ...]:
        # [S] the two players build one tree together and share its score.
        return ((0, 1),)

    # --- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self._views[player].copy()

    def state_vector(self) -> np.ndarray:
        """The master vector of the layout (every private block too)."""
        return self._buf.take(self._master_index)

    # --- copies and determinization -----------------------------------------------------------
    def clone(self) -> CatTreeState:
        c = type(self).__new__(type(self))
        c.__dict__.update(self.__dict__)
        for name in ("boards", "grid", "chance", "history", "placements", "hands", "picked",
                     "kept", "to_place", "_parts", "_plane_rule"):
            setattr(c, name, list(getattr(self, name)))
        c.seen = [list(s) for s in self.seen]  # _classes: replaced, never mutated
        c._attach(self._buf.copy())
        c.rng = self._rng_copy()
        return c

    def __getstate__(self) -> dict:
        # memoryviews do not pickle (nor deep-copy): they are rebuilt from the buffers
        state = dict(self.__dict__)
        for name in ("_mv", "_mvb", "_views", "_own_plane"):
            state.pop(name, None)
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._attach(self._buf)

    def resample(self, player: int, rng: random.Random) -> CatTreeState:
        """Re-deal every card ``player`` has not seen (the deck, the partner's current
        hand and past discards) uniformly, keeping what ``player`` saw: their own deals
        and the partner's revealed kept cards. The partner's logged picks are rewritten so
        that the action log still replays this re-dealt game."""
        if self.is_terminal():
            return self.clone()
        q = 1 - player
        deck = list(self.deck)
        fixed = set()
        for t in range(self.turn + 1):
            own = t * CARDS_PER_TURN + 2 * player
            fixed.update((own, own + 1))
            revealed = t < self.turn or self.phase != KEEP
            if revealed:
                slot = t * CARDS_PER_TURN + 2 * q
                kept = self._kept_of(t, q)
                # the kept card goes to the first slot of the partner's deal (order is free)
                other = deck[slot + 1] if deck[slot] == kept else deck[slot]
                deck[slot], deck[slot + 1] = kept, other
                fixed.add(slot)
        hidden = [i for i in range(DECK_SIZE) if i not in fixed]
        pool = [deck[i] for i in hidden]
        rng.shuffle(pool)
        for i, kind in zip(hidden, pool):
            deck[i] = kind
        history = list(self.history)
        # every turn logs the same actions: 2 keeps (player 0 first), the order (when
        # chosen) and 2 placements or dismissals
        per_turn = 5 if self.options.placing_order == "choose" else 4
        for t in range(self.turn + 1):
            revealed = t < self.turn or self.phase != KEEP
            if revealed:
                at = t * per_turn + q
                history[at] = KEEP_BASE + deal_of(deck, t, q).index(self._kept_of(t, q))
        c = type(self).new(self.options, seed=self.seed, chance=[tuple(deck)])
        for action in history:
            c.apply(action)
        c.rng.setstate(self.rng.getstate())
        return c

    def _kept_of(self, turn: int, p: int) -> int:
        if turn == self.turn:
            return self.kept[p]
        for t, who, kind, _ in self.placements:
            if t == turn and who == p:
                return kind
        raise AssertionError("kept card not found")

    # --- text -----------------------------------------------------------------------------
    def action_to_string(self, action: int) -> str:
        if action < ORDER_BASE:
            p = max(self.current_player, 0)
            which = ("lower", "higher")[action - KEEP_BASE]
            if self.phase == KEEP and p >= 0:
                return f"keep the {TYPE_NAMES[self.hands[p][action - KEEP_BASE]]} ({which} card)"
            return f"keep the {which} card"
        if action < PLACE_BASE:
            return "I place first" if action == ME_FIRST else "my partner places first"
        if action == self.dismiss:
            return "dismiss the kept card"
        row, col = self.rules.row_col(action - PLACE_BASE)
        return f"place at row {row}, column {col}"

    def render(self) -> str:
        from catzoo.games.cat_tree.render import render_text

        return render_text(self)


class _Static:
    """What every game with the same options shares: sizes, masks, where each feature
    lies in the two observations, the buffer of a game's start and the bytes written at
    each turn's start (built once, so that a reset stays cheap)."""

    def __init__(self, options: CatTreeOptions):
        n = options.width * options.height
        L = layout_for(n)
        rules = rules_for(options)
        size = L.obs_size
        num_actions = PLACE_BASE + n + 1
        keep_mask = np.zeros(num_actions, dtype=np.int8)
        keep_mask[KEEP_BASE : KEEP_BASE + 2] = 1
        order_mask = np.zeros(num_actions, dtype=np.int8)
        order_mask[ORDER_BASE : ORDER_BASE + 2] = 1
        base = L.base

        # where master feature i lies in viewer v's observation (-1: not shown to v)
        inverse = []
        for v in range(2):
            where = np.full(L.master_size, -1, dtype=np.intp)
            where[L.view_index[v]] = np.arange(size)
            inverse.append(where)

        def at(v: int, i: int) -> int:
            """Index in the buffer of master feature i in viewer v's half."""
            j = int(inverse[v][i])
            assert j >= 0, (v, i)
            return v * size + j

        def both(i: int) -> tuple[int, int]:
            return at(0, i), at(1, i)

        def region(v: int, names) -> tuple[int, int]:
            """The buffer range of viewer v's half holding these blocks (contiguous)."""
            cells = sorted(int(inverse[v][i]) for name in names
                           for i in range(L.span(name).start, L.span(name).stop)
                           if inverse[v][i] >= 0)
            assert cells == list(range(cells[0], cells[-1] + 1)), names
            return v * size + cells[0], v * size + cells[-1] + 1

        def turn_master(t: int) -> np.ndarray:
            m = np.zeros(L.master_size, dtype=np.float32)
            m[L.span("unseen")] = 1.0
            m[base["deck"]] = (DECK_SIZE - CARDS_PER_TURN * (t + 1)) / DECK_SIZE
            m[base["turn"] + t] = 1.0
            m[base["phase"] + KEEP] = 1.0
            m[base["leader"] + t % 2] = 1.0
            return m

        def buffer_of(m: np.ndarray) -> np.ndarray:
            return np.concatenate([m.take(L.view_index[v]) for v in range(2)])

        start = buffer_of(turn_master(0))
        cleared = [region(v, ("hand", "picked", "kept")) for v in range(2)]
        tail = [region(v, ("deck", "turn", "phase", "leader", "first")) for v in range(2)]
        assert cleared[0][1] - cleared[0][0] == cleared[1][1] - cleared[1][0]
        hand_bytes = []  # the hand, picked and kept blocks of a half, by the hand dealt
        for lower in range(NUM_TYPES):
            for higher in range(NUM_TYPES):
                half = np.zeros(cleared[0][1] - cleared[0][0], dtype=np.float32)
                half[lower] = half[NUM_TYPES + higher] = 1.0
                hand_bytes.append(half.tobytes())
        for v in range(2):
            assert cleared[v][0] == at(v, base["hand"] + v * 2 * NUM_TYPES)
        kept = [region(v, ("kept",)) for v in range(2)]
        kept_bytes = []  # a half's kept block after the reveal, by its own and the other card
        for own in range(NUM_TYPES):
            for other in range(NUM_TYPES):
                half = np.zeros(2 * NUM_TYPES, dtype=np.float32)
                half[own] = half[NUM_TYPES + other] = 1.0
                kept_bytes.append(half.tobytes())
        for v in range(2):
            assert kept[v][0] == at(v, base["kept"] + v * NUM_TYPES)
        turn_bytes = []
        for t in range(options.turns):
            buf = buffer_of(turn_master(t))
            turn_bytes.append(((4 * tail[0][0], 4 * tail[1][0]), (4 * tail[0][1], 4 * tail[1][1]),
                               tuple(buf[lo:hi].tobytes() for lo, hi in tail)))
        phase_bytes = []
        for phase in range(3):
            one_hot = np.zeros(3, dtype=np.float32)
            one_hot[phase] = 1.0
            phase_bytes.append(one_hot.tobytes())
        plane_at_f = [both(base["kept_legal"] + p * n) for p in range(2)]
        master_index = np.array(
            [at(0, i) if inverse[0][i] >= 0 else at(1, i) for i in range(L.master_size)],
            dtype=np.intp)

        self.start = start
        dismiss_mask = np.zeros(num_actions, dtype=np.int8)
        dismiss_mask[PLACE_BASE + n] = 1
        self.fields = {
            "rules": rules,
            "num_cells": n,
            "num_actions": num_actions,
            "dismiss": PLACE_BASE + n,
            "layout": L,
            "observation_size": size,
            "_keep_mask": keep_mask,
            "_order_mask": order_mask,
            "_grid_at": at(0, base["grid"]),
            "_counted_at": at(0, base["counted"]),
            "_score_at": at(0, base["score"]),
            "_picked_at": tuple(at(p, base["picked"] + p * 2) for p in range(2)),
            "_unseen_at": tuple(at(p, base["unseen"] + p * NUM_TYPES) for p in range(2)),
            "_kept_at": tuple(both(base["kept"] + p * NUM_TYPES) for p in range(2)),
            "_first_at": tuple(both(base["first"] + p) for p in range(2)),
            "_phase_at": tuple(4 * i for i in both(base["phase"])),
            "_phase_bytes": tuple(phase_bytes),
            "_plane_at_f": tuple(plane_at_f),
            "_plane_at": tuple((4 * a, 4 * b) for a, b in plane_at_f),
            "_own_plane_f": tuple(plane_at_f[p][p] for p in range(2)),
            "_place_mask": np.zeros(num_actions, dtype=np.int8),
            "_dismiss_mask": dismiss_mask,
            "_plane_len": 4 * n,
            "_zero_plane": bytes(4 * n),
            "_nbytes": (n + 7) // 8,
            "_trim": n % 8 != 0,
            "_turn_bytes": tuple(turn_bytes),
            "_hand_bytes": tuple(hand_bytes),
            "_kept_bytes": tuple(kept_bytes),
            "_kept_span": ((4 * kept[0][0], 4 * kept[1][0]), (4 * kept[0][1], 4 * kept[1][1])),
            "_hand_span": ((4 * cleared[0][0], 4 * cleared[1][0]),
                           (4 * cleared[0][1], 4 * cleared[1][1])),
            "_master_index": master_index,
            "_near": tuple(rules.ball(1 << c, 1) for c in range(n)),
            "_reach_of": tuple(rules.ball(1 << c, rules.detach_steps) for c in range(n)),
            "_classes": legal_classes([0] * NUM_TYPES, rules),
        }
        for p in range(2):  # a seat block's two copies: own seat in p's half, seat 1 in the other
            assert inverse[p][base["kept_legal"] + p * n] == inverse[0][base["kept_legal"]]


@lru_cache(maxsize=64)
def _static_for(options: CatTreeOptions) -> _Static:
    return _Static(options)


_STATIC_OF_ID: dict[int, tuple[CatTreeOptions, _Static]] = {}


def _static_of(options: CatTreeOptions) -> _Static:
    """``_static_for`` without hashing the options on every reset (by identity; the
    options object is kept alive with its entry, so its id is not reused)."""
    got = _STATIC_OF_ID.get(id(options))
    if got is not None and got[0] is options:
        return got[1]
    static = _static_for(options)
    if len(_STATIC_OF_ID) >= 256:
        _STATIC_OF_ID.clear()
    _STATIC_OF_ID[id(options)] = (options, static)
    return static


def _shuffled_deck(rng: random.Random) -> tuple[int, ...]:
    deck = list(DECK)
    shuffle_as_random(deck, rng)
    return tuple(deck)
