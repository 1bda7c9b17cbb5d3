"""The random-legal policy: uniform over the legal actions, seeded."""

from __future__ import annotations

import numpy as np

from catzoo.policies.base import Policy, legal_actions


class RandomPolicy(Policy):
    name = "random"

    def __init__(self, seed: int | None = None):
        self._seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
