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
"""

from __future__ import annotations

import copy
import random
from functools import lru_cache

import numpy as np

from catzoo.games.base import TERMINAL, GameState
from catzoo.games.cat_tree.layout import SCORE_SCALE, layout_for
from catzoo.games.cat_tree.options import (
    CARDS_PER_TURN,
    COPIES,
    DECK_SIZE,
    NUM_TYPES,
    TYPE_NAMES,
    CatTreeOptions,
)
from catzoo.games.cat_tree.placement import RULE_OF_TYPE, legal_classes, rules_for
from catzoo.games.cat_tree.scoring import counted_of_parts, points

KEEP, ORDER, PLACE = 0, 1, 2
PHASES = ("keep", "order", "place")
KEEP_BASE, ORDER_BASE, PLACE_BASE = 0, 2, 4
ME_FIRST, PARTNER_FIRST = ORDER_BASE, ORDER_BASE + 1
DECK = tuple(t for t in range(NUM_TYPES) for _ in range(COPIES))
# _BYTE_BITS[b] = the 8 bits of byte b, lowest first: bit sets to 0/1 planes in one lookup.
_BYTE_BITS = np.unpackbits(np.arange(256, dtype=np.uint8)[:, None], axis=1, bitorder="little")


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
        static = _static_for(self.options)
        self.__dict__.update(static.fields)
        self.num_players = 2
        self.master = np.zeros(self.layout.master_size, dtype=np.float32)
        self.deck = tuple(self._draw_chance(_shuffled_deck))
        if self._pinned_chance and sorted(self.deck) != list(DECK):
            raise ValueError("cat_tree: a pinned deck must hold each of the 8 types 4 times")
        self.boards = [0] * NUM_TYPES
        self._parts: list[int] = []  # orthogonally connected groups of pieces, as bit sets
        self.grid = [-1] * self.num_cells
        self.total = 0
        self.counted = 0
        self.turn = 0
        self.phase = KEEP
        self.seen = [[0] * NUM_TYPES for _ in range(2)]
        self.placements: list[tuple[int, int, int, int]] = []  # (turn, player, type, cell/-1)
        self._keep_at: dict[tuple[int, int], int] = {}
        self.master[self._unseen_span] = 1.0
        self._plane_rule = [-1, -1]  # the kept_legal planes start at zero
        self._class_planes = [None, None, None, None]
        self._start_turn()

    def _plane(self, rule: int) -> np.ndarray:
        """The legal cells of a placement class as a 0/1 vector over the cells (built at
        most once per grid and class, when a plane is written whole or a mask asked)."""
        plane = self._class_planes[rule]
        if plane is None:
            raw = self._classes[rule].to_bytes(self._nbytes, "little")
            plane = _BYTE_BITS[np.frombuffer(raw, dtype=np.uint8)].reshape(-1)[: self.num_cells]
            self._class_planes[rule] = plane
        return plane

    def _set_plane(self, plane: int, rule: int) -> None:
        """Point the kept_legal plane of player ``plane`` at a placement class, or at
        nothing (-1), and write it whole."""
        if self._plane_rule[plane] == rule:
            return
        self._plane_rule[plane] = rule
        start = self._plane_at[plane]
        if rule < 0:
            self.master[start : start + self.num_cells] = 0.0
        else:
            self.master[start : start + self.num_cells] = self._plane(rule)

    def _grid_changed(self) -> None:
        """After a placement: rescore, and rewrite only the plane cells that changed."""
        m, rules = self.master, self.rules
        counted = counted_of_parts(self._parts, rules)
        total = self.total = points(self.boards, counted, rules)
        m[self._score_at] = min(total / SCORE_SCALE, 4.0)
        diff = counted ^ self.counted
        if diff:
            start = self._counted_at
            while diff:
                low = diff & -diff
                cell = low.bit_length() - 1
                m[start + cell] = 1.0 if counted & low else 0.0
                diff ^= low
            self.counted = counted
        old, new = self._classes, legal_classes(self.boards, rules)
        self._classes = new
        self._class_planes = [None, None, None, None]
        plane_rule, plane_at = self._plane_rule, self._plane_at
        for rule in range(4):
            diff = old[rule] ^ new[rule]
            if not diff:
                continue
            starts = [plane_at[j] for j in range(2) if plane_rule[j] == rule]
            if not starts:
                continue
            bits = new[rule]
            while diff:
                low = diff & -diff
                cell = low.bit_length() - 1
                value = 1.0 if bits & low else 0.0
                for start in starts:
                    m[start + cell] = value
                diff ^= low

    def _start_turn(self) -> None:
        L, m, t = self.layout, self.master, self.turn
        base = L.base
        self.hands = [deal_of(self.deck, t, p) for p in range(2)]
        self.picked = [-1, -1]
        self.kept = [-1, -1]
        self.to_place = [False, False]
        self.first = TERMINAL
        self.leader = t % 2  # [D] the leader alternates, player 0 on the first turn
        m[self._turn_reset] = 0.0
        hb = base["hand"]
        for p in range(2):
            for i, kind in enumerate(self.hands[p]):
                m[hb + p * 2 * NUM_TYPES + i * NUM_TYPES + kind] = 1.0
                self._see(p, kind)
        m[base["deck"]] = (DECK_SIZE - CARDS_PER_TURN * (t + 1)) / DECK_SIZE
        m[base["turn"] + t] = 1.0
        m[base["phase"] + KEEP] = 1.0
        m[base["leader"] + self.leader] = 1.0
        self.phase = KEEP
        self.current_player = 0
        self._legal = 0b11 << KEEP_BASE

    def _see(self, p: int, kind: int) -> None:
        self.seen[p][kind] += 1
        self.master[self._unseen_at + p * NUM_TYPES + kind] -= 1.0 / COPIES

    # --- legal moves ---------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        phase = self.phase
        if self.current_player == TERMINAL:
            return np.zeros(self.num_actions, dtype=np.int8)
        if phase == KEEP:
            return self._keep_mask.copy()
        if phase == ORDER:
            return self._order_mask.copy()
        mask = np.zeros(self.num_actions, dtype=np.int8)
        rule = RULE_OF_TYPE[self.kept[self.current_player]]
        if self._classes[rule]:
            mask[PLACE_BASE : self.dismiss] = self._plane(rule)
        else:
            mask[self.dismiss] = 1
        return mask

    def _place_legal(self) -> int:
        cells = self._classes[RULE_OF_TYPE[self.kept[self.current_player]]]
        # [S] a card is dismissed only when it cannot be placed anywhere.
        return cells << PLACE_BASE if cells else 1 << self.dismiss

    # --- applying actions ----------------------------------------------------------------
    def _apply(self, action: int) -> None:
        p = self.current_player
        if self.phase == KEEP:
            self._keep(p, action - KEEP_BASE)
        elif self.phase == ORDER:
            self._order(p if action == ME_FIRST else 1 - p)
        elif action == self.dismiss:
            self._placed(p, -1)
        else:
            self._place(p, action - PLACE_BASE)

    def _keep(self, p: int, index: int) -> None:
        self.picked[p] = index
        self.kept[p] = self.hands[p][index]
        self._keep_at[(self.turn, p)] = len(self.history)
        self.master[self.layout.base["picked"] + p * 2 + index] = 1.0
        if p == 0:
            self.current_player = 1
            return
        self._reveal()

    def _reveal(self) -> None:
        L, m = self.layout, self.master
        kb = L.base["kept"]
        for p in range(2):
            self.to_place[p] = True
            m[kb + p * NUM_TYPES + self.kept[p]] = 1.0
            self._see(1 - p, self.kept[p])
            self._set_plane(p, RULE_OF_TYPE[self.kept[p]])
        m[L.base["phase"] + KEEP] = 0.0
        if self.options.placing_order == "choose":
            m[L.base["phase"] + ORDER] = 1.0
            self.phase = ORDER
            self.current_player = self.leader
            self._legal = 0b11 << ORDER_BASE
        else:
            self._order(self.leader)

    def _order(self, first: int) -> None:
        L, m = self.layout, self.master
        self.first = first
        m[L.base["first"] + first] = 1.0
        m[L.base["phase"] + self.phase] = 0.0
        m[L.base["phase"] + PLACE] = 1.0
        self.phase = PLACE
        self.current_player = first
        self._legal = self._place_legal()

    def _place(self, p: int, cell: int) -> None:
        kind = self.kept[p]
        bit = 1 << cell
        self.boards[kind] |= bit
        self.grid[cell] = kind
        # the new piece joins every part it touches (parts only ever merge)
        near = self.rules.ball(bit, 1)
        joined, parts = bit, []
        for part in self._parts:
            if part & near:
                joined |= part
            else:
                parts.append(part)
        parts.append(joined)
        self._parts = parts
        self.master[self._grid_at + kind * self.num_cells + cell] = 1.0
        self._grid_changed()
        self._placed(p, cell)

    def _placed(self, p: int, cell: int) -> None:
        self.placements.append((self.turn, p, self.kept[p], cell))
        self.to_place[p] = False
        kb = self.layout.base["kept"] + p * NUM_TYPES
        self.master[kb : kb + NUM_TYPES] = 0.0
        self._set_plane(p, -1)
        other = 1 - p
        if self.to_place[other]:
            self.current_player = other
            self._legal = self._place_legal()
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
        return self.master.take(self.layout.view_index[player])  # faster than m[index]

    def state_vector(self) -> np.ndarray:
        return self.master.copy()

    # --- copies and determinization -----------------------------------------------------------
    def clone(self) -> CatTreeState:
        c = copy.copy(self)
        c.master = self.master.copy()
        for name in ("boards", "grid", "chance", "history", "placements", "hands", "picked",
                     "kept", "to_place", "_parts"):
            setattr(c, name, list(getattr(self, name)))
        c.seen = [list(s) for s in self.seen]  # _classes: replaced, never mutated
        c._plane_rule = list(self._plane_rule)
        c._class_planes = list(self._class_planes)
        c._keep_at = dict(self._keep_at)
        c.rng = random.Random()
        c.rng.setstate(self.rng.getstate())
        return c

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
        for (t, p), at in self._keep_at.items():
            if p != q:
                continue
            revealed = t < self.turn or self.phase != KEEP
            if revealed:
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
            p = self.current_player if self.current_player >= 0 else 0
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
    """What every game with the same options shares: sizes, masks, index arrays and the
    planes of the empty grid (built once, so that a reset stays cheap)."""

    def __init__(self, options: CatTreeOptions):
        n = options.width * options.height
        L = layout_for(n)
        num_actions = PLACE_BASE + n + 1
        keep_mask = np.zeros(num_actions, dtype=np.int8)
        keep_mask[KEEP_BASE : KEEP_BASE + 2] = 1
        order_mask = np.zeros(num_actions, dtype=np.int8)
        order_mask[ORDER_BASE : ORDER_BASE + 2] = 1
        self.fields = {
            "rules": rules_for(options),
            "num_cells": n,
            "num_actions": num_actions,
            "dismiss": PLACE_BASE + n,
            "layout": L,
            "observation_size": L.obs_size,
            "_plane_at": [L.base["kept_legal"] + p * n for p in range(2)],
            "_grid_at": L.base["grid"],
            "_counted_at": L.base["counted"],
            "_score_at": L.base["score"],
            "_keep_mask": keep_mask,
            "_order_mask": order_mask,
            "_turn_reset": np.concatenate(
                [np.arange(L.span(name).start, L.span(name).stop)
                 for name in ("hand", "picked", "kept", "leader", "first", "turn", "phase")]
            ).astype(np.intp),
            "_unseen_span": L.span("unseen"),
            "_unseen_at": L.base["unseen"],
        }
        self.fields["_nbytes"] = (n + 7) // 8
        self.fields["_classes"] = legal_classes([0] * NUM_TYPES, self.fields["rules"])


@lru_cache(maxsize=64)
def _static_for(options: CatTreeOptions) -> _Static:
    return _Static(options)


def _shuffled_deck(rng: random.Random) -> tuple[int, ...]:
    deck = list(DECK)
    rng.shuffle(deck)
    return tuple(deck)
