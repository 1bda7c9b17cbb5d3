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

The whole game is the compiled core ``core.pyx`` (the deal from the seed, every phase, the
scoring, both observations and the legal moves), which the batched engine
(``catzoo.vector``) steps too; this state owns a ``Core`` (``games/compiled.py``) and keeps
in Python what is not per step: the options, the chance record and action history, text,
and the search bots' resample. What the game holds (``boards``, ``grid``, ``kept``,
``placements``...) is read back from the core. The observation layout (``layout.py``) is
one master vector gathered per viewer; the core keeps instead both observations ready side
by side (``master``: viewer 0's, then viewer 1's), so ``observation`` is one copy and
``state_vector`` gathers the master vector back from them.
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.base import TERMINAL  # noqa: F401  (re-exported: state.TERMINAL)
from catzoo.games.cat_tree.core import (  # noqa: F401  (the game's constants, exported here)
    DECK,
    KEEP,
    KEEP_BASE,
    ME_FIRST,
    ORDER,
    ORDER_BASE,
    PARTNER_FIRST,
    PHASES,
    PLACE,
    PLACE_BASE,
)
from catzoo.games.cat_tree.layout import layout_for
from catzoo.games.cat_tree.options import CARDS_PER_TURN, DECK_SIZE, TYPE_NAMES, CatTreeOptions
from catzoo.games.cat_tree.placement import rules_for
from catzoo.games.compiled import CompiledState


def dismiss_action(options: CatTreeOptions) -> int:
    return PLACE_BASE + options.width * options.height


def deal_of(deck, turn: int, player: int) -> tuple[int, int]:
    """The two cards (types, lower first) ``player`` is dealt at ``turn`` from ``deck``."""
    start = turn * CARDS_PER_TURN + 2 * player
    a, b = deck[start], deck[start + 1]
    return (a, b) if a <= b else (b, a)


class CatTreeState(CompiledState):
    game_name = "cat_tree"
    env_version = 0
    options_cls = CatTreeOptions
    generic_standing = False  # cooperative: both partners get the score / 100
    _core_views = ("master", "_views", "_mask")  # numpy views of the core's memory

    # --- set-up ------------------------------------------------------------------------
    def _setup(self) -> None:
        self.__dict__.update(_static_of(self.options))
        self.num_players = 2
        self.deck = self._core.deck

    def _use_core(self, core) -> None:
        """Use ``core``: numpy views of its two observations (``master``) and of its mask."""
        super()._use_core(core)
        size = core.config.obs_size
        self._views = (self.master[:size], self.master[size:])
        self._mask = np.frombuffer(core.mask_memory(), np.int8)

    # --- the game, read back from the core (each field's docstring is the core reader's) ---
    core_fields = ("boards", "grid", "total", "counted", "turn", "phase", "leader", "first",
                   "hands", "picked", "kept", "to_place", "seen", "placements")

    # --- legal moves ---------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        self._core.fill_mask()
        return self._mask.copy()

    def legal_actions(self) -> list[int]:
        return self._core.legal_actions()

    # --- results (scores, returns: the core's; the shared score, and for both partners
    # the final score / 100) ------------------------------------------------------------
    def teams(self) -> tuple[tuple[int, ...], ...]:
        # [S] the two players build one tree together and share its score.
        return ((0, 1),)

    # --- observations ---------------------------------------------------------------------
    def observation(self, player: int) -> np.ndarray:
        return self._views[player].copy()

    def state_vector(self) -> np.ndarray:
        """The master vector of the layout (every private block too)."""
        return self.master.take(self._master_index)

    # --- copies and determinization -----------------------------------------------------------
    def resample(self, player: int, rng: random.Random, rewind: bool = False) -> CatTreeState:
        """Re-deal every card ``player`` has not seen (the deck, the partner's current
        hand and past discards) uniformly, keeping what ``player`` saw: their own deals
        and the partner's revealed kept cards. The partner's logged picks are rewritten so
        that the action log still replays this re-dealt game, and a pick of this turn not
        yet revealed (player 1 keeping after player 0) is drawn anew, lower or higher card
        at even odds: its logged index would tell which of its cards the partner kept.
        With ``rewind``, the re-deal stops before that pick (``before_unseen_pick`` of the
        re-deal with it, built once: a search makes the pick its own way), the generator
        drawn from as for the pick, so that the re-deal is otherwise the same.

        The re-deal is a function of what ``player`` saw and of ``rng`` alone: two games
        that look the same to ``player`` re-deal alike (the unseen cards are shuffled from
        a sorted pool)."""
        if self.is_terminal():
            return self.clone()
        q = 1 - player
        deck = list(self.deck)
        turn, phase = self.turn, self.phase
        kept, placements = self.kept, self.placements
        fixed = set()
        for t in range(turn + 1):
            own = t * CARDS_PER_TURN + 2 * player
            fixed.update((own, own + 1))
            revealed = t < turn or phase != KEEP
            if revealed:
                slot = t * CARDS_PER_TURN + 2 * q
                kind = _kept_of(t, q, turn, kept, placements)
                # the kept card goes to the first slot of the partner's deal (order is free)
                other = deck[slot + 1] if deck[slot] == kind else deck[slot]
                deck[slot], deck[slot + 1] = kind, other
                fixed.add(slot)
        deal_anew(deck, [i for i in range(DECK_SIZE) if i not in fixed], rng)
        history = list(self.history)
        per_turn = self._actions_per_turn
        for t in range(turn + 1):
            revealed = t < turn or phase != KEEP
            if revealed:
                at = t * per_turn + q
                kind = _kept_of(t, q, turn, kept, placements)
                history[at] = KEEP_BASE + deal_of(deck, t, q).index(kind)
        unseen = self.unseen_pick(player)
        if unseen is not None:
            pick = KEEP_BASE + rng.randrange(2)
            if rewind:
                del history[unseen:]
            else:
                history[unseen] = pick
        c = type(self)._rebuilt(self.options, self.seed, [tuple(deck)], history)
        c._core.copy_generator(self._core)  # this game's generator (``rng``), as a copy
        return c

    @property
    def _actions_per_turn(self) -> int:
        # every turn logs the same actions: 2 keeps (player 0 first), the order (when
        # chosen) and 2 placements or dismissals
        return 5 if self.options.placing_order == "choose" else 4

    def unseen_pick(self, player: int) -> int | None:
        """Where the action log holds the partner's pick of this turn that ``player`` has
        not seen (player 0 picked, the kept cards not yet revealed), or None."""
        at = self.turn * self._actions_per_turn + 1 - player
        return at if self.phase == KEEP and at < len(self.history) else None

    def before_unseen_pick(self, player: int) -> CatTreeState | None:
        """This game rewound to the partner's pick that ``player`` has not seen
        (``unseen_pick``), on a new core with this game's generator, or None: a search
        whose re-deals gave the partner a new hand makes that pick anew in each (SPARTA:
        the partner's, by the blueprint), and playing the logged pick there gives this
        game back."""
        at = self.unseen_pick(player)
        if at is None:
            return None
        c = type(self)._rebuilt(self.options, self.seed, [tuple(self.deck)], self.history[:at])
        c._core.copy_generator(self._core)
        return c

    def _kept_of(self, turn: int, p: int) -> int:
        return _kept_of(turn, p, self.turn, self.kept, self.placements)

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


def deal_anew(deck: list[int], slots: list[int], rng: random.Random) -> None:
    """Deal the cards of ``deck``'s ``slots`` among them anew, in place: shuffled from a
    sorted pool, so that the result depends on which cards those slots hold, not on how
    they were dealt (a re-deal reads nothing its viewer did not see)."""
    pool = sorted(deck[i] for i in slots)
    rng.shuffle(pool)
    for i, kind in zip(slots, pool):
        deck[i] = kind


def _kept_of(turn: int, p: int, now: int, kept, placements) -> int:
    """The card ``p`` kept at ``turn`` (``now`` the game's turn, ``kept`` its kept cards)."""
    if turn == now:
        return kept[p]
    for t, who, kind, _ in placements:
        if t == turn and who == p:
            return kind
    raise AssertionError("kept card not found")


def _static(options: CatTreeOptions) -> dict:
    """What every game with the same options shares: the rules, sizes, and where each
    feature of the master vector lies in the core's two observations."""
    n = options.width * options.height
    layout = layout_for(n)
    rules = rules_for(options)
    size = layout.obs_size
    master_index = np.full(layout.master_size, -1, dtype=np.intp)
    for v in (1, 0):  # a feature shown to both viewers is read from viewer 0's half
        master_index[layout.view_index[v]] = v * size + np.arange(size)
    assert (master_index >= 0).all()
    return {
        "rules": rules,
        "num_cells": n,
        "num_actions": rules.num_actions,
        "dismiss": PLACE_BASE + n,
        "layout": layout,
        "observation_size": size,
        "_master_index": master_index,
    }


_STATIC_OF_ID: dict[int, tuple[CatTreeOptions, dict]] = {}


def _static_of(options: CatTreeOptions) -> dict:
    """``_static`` once per options (by identity, so that a reset does not hash the
    options; the options object is kept alive with its entry, so its id is not reused)."""
    got = _STATIC_OF_ID.get(id(options))
    if got is not None and got[0] is options:
        return got[1]
    static = _STATIC_BY_VALUE.get(options)
    if static is None:
        if len(_STATIC_BY_VALUE) >= 64:
            _STATIC_BY_VALUE.clear()
        static = _STATIC_BY_VALUE[options] = _static(options)
    if len(_STATIC_OF_ID) >= 256:
        _STATIC_OF_ID.clear()
    _STATIC_OF_ID[id(options)] = (options, static)
    return static


_STATIC_BY_VALUE: dict[CatTreeOptions, dict] = {}
