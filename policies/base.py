"""The one policy interface: an observation dict (with its action mask) in, an action out.

Every bot (random, heuristic, search) and every loaded checkpoint implements ``Policy``,
so any of them can sit at any seat: in training, in the arena, at the table.

``act`` receives the PettingZoo observation dict of the player to act,
``{"observation": float32 vector, "action_mask": int8 vector}``. Search bots also need
the rules engine to simulate; callers that have it pass ``state`` (the engine's state)
and ``player`` (the seat to act). A search bot must look at ``state`` only through
``state.resample(player, rng)`` (a determinization from that player's view), never at
the cards hidden from it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping

import numpy as np


class Policy(ABC):
    name: str = "policy"

    @abstractmethod
    def act(self, observation: Mapping[str, np.ndarray], *, state=None, player=None) -> int:
        """The action to take; it must be legal under ``observation["action_mask"]``."""

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The actions for a batch of observation vectors ``(B, size)`` and their masks
        ``(B, actions)``, of bots that read only the observation (the batched trainer's
        opponents). One ``act`` per row unless a bot has a vectorised form; the actions
        are the ones ``act`` would take, row by row in order."""
        return np.array([self.act({"observation": observations[j], "action_mask": masks[j]})
                         for j in range(observations.shape[0])], dtype=np.int64)

    def reset(self, seed: int | None = None) -> None:
        """Start of a new game (bots with memory or their own randomness reset here)."""

    def __call__(self, observation, **kwargs) -> int:
        return self.act(observation, **kwargs)


class NoLegalActionError(ValueError):
    pass


def legal_actions(observation: Mapping[str, np.ndarray]) -> np.ndarray:
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise NoLegalActionError("the action mask has no legal action: it is not this player's turn")
    return legal
