"""What the engines whose round in progress is compiled (Cat in the Box, Lunar) share.

Such an engine keeps the round in a ``RoundCore`` extension type (its ``round_core.pyx``)
at ``self._core``, writing into the state's master vector; the Python state deals,
starts and ends rounds (``_end_round``, called when the core reports a round over) and
mirrors the player to act and the legal moves as plain attributes, which the env reads
on every step.
"""

from __future__ import annotations

import copy
import random
from typing import Any, ClassVar

from catzoo.games.base import GameState


class CompiledRoundState(GameState):
    _core: Any
    # lists of the game (not of the round) that a copy must not share with the original;
    # what they hold is never changed in place
    _game_lists: ClassVar[tuple[str, ...]] = ("chance", "history")

    def _end_round(self) -> None:
        raise NotImplementedError

    def apply_unchecked(self, action: int) -> None:
        self.history.append(action)
        core = self._core
        if core.apply(action):
            self._end_round()
        else:
            self.current_player = core.current_player
            self._legal = core.legal

    def _compute_legal(self) -> int:
        self._core.refresh_legal()
        return self._core.legal

    def clone(self):
        return self._copy(self._rng_copy())

    def _copy(self, rng: random.Random):
        """A copy dealing its later rounds from ``rng`` (``resample`` gives it a fresh one,
        and copying the generator's state costs most of a clone)."""
        c = copy.copy(self)
        c._set_master(self.master.copy())
        c._core = self._core.copy(c.master)
        for name in self._game_lists:
            setattr(c, name, list(getattr(self, name)))
        c.rng = rng
        return c
