"""The Cat Tree heuristic: greedy on the shared score after placing.

It reads only its own observation (decoded through the game's layout): the grid planes,
its two cards, the revealed kept cards and the phase. It assumes the default options
unless given others (the grid size must match the observation).

* keep: for each of its two cards, the best score that card alone could reach if placed
  now on the current grid (the partner's pick is hidden); it keeps the better, the lower
  card on a tie;
* order (as the turn's leader): it plays both orders out greedily with the two revealed
  cards and picks the order with the better score, itself first on a tie;
* place: the legal cell with the best score just after placing; ties go to the higher
  row (towards the altitude bonus), then the column nearer the middle, then the lower
  cell. It dismisses only when the mask allows nothing else.

It never looks ahead to future cards, so it rarely builds up to the altitude bonus: the
oracle (``catzoo.analysis.cat_tree.oracle``) measures how far that leaves it from the best
achievable score.
"""

from __future__ import annotations

import numpy as np

from catzoo.games.cat_tree.greedy import best_cell, greedy_keep, greedy_order
from catzoo.games.cat_tree.layout import layout_for
from catzoo.games.cat_tree.options import NUM_TYPES, CatTreeOptions
from catzoo.games.cat_tree.placement import rules_for
from catzoo.games.cat_tree.state import KEEP_BASE, ME_FIRST, PARTNER_FIRST, PLACE_BASE
from catzoo.policies.base import Policy, legal_actions


class CatTreeHeuristic(Policy):
    name = "heuristic"

    def __init__(self, num_players: int = 2, seed: int | None = None,
                 options: CatTreeOptions | None = None):
        if num_players != 2:
            raise ValueError(f"cat_tree is a 2-player game, got num_players={num_players}")
        self.options = options or CatTreeOptions()
        self.rules = rules_for(self.options)
        self.cells = self.options.width * self.options.height
        self.layout = layout_for(self.cells)
        self.seed = seed  # the bot is deterministic; the seed is accepted for the interface

    def _decode(self, obs: np.ndarray) -> dict:
        if obs.shape[0] != self.layout.obs_size:
            raise ValueError(
                f"cat_tree heuristic: observation of size {obs.shape[0]}, expected "
                f"{self.layout.obs_size} for a {self.options.width} x {self.options.height} "
                "grid; pass the env's options to CatTreeHeuristic(options=...)"
            )
        return self.layout.decode(obs)

    def boards(self, parts: dict) -> list[int]:
        planes = parts["grid"].reshape(NUM_TYPES, self.cells) > 0.5
        return [_bits(planes[t]) for t in range(NUM_TYPES)]

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        if legal.size == 1:
            return int(legal[0])
        parts = self._decode(np.asarray(observation["observation"]))
        boards = self.boards(parts)
        if legal[0] < ME_FIRST:  # keep phase
            hand = parts["hand"].reshape(2, NUM_TYPES).argmax(axis=1)
            return KEEP_BASE + greedy_keep(boards, (int(hand[0]), int(hand[1])), self.rules)
        if legal[0] < PLACE_BASE:  # order phase
            kept = parts["kept"].reshape(2, NUM_TYPES).argmax(axis=1)
            me_first = greedy_order(boards, int(kept[0]), int(kept[1]), self.rules)
            return ME_FIRST if me_first else PARTNER_FIRST
        kind = int(parts["kept"][0].argmax())
        cell = best_cell(boards, kind, self.rules)[1]
        return PLACE_BASE + cell


def _bits(flags: np.ndarray) -> int:
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


__all__ = ["CatTreeHeuristic"]
