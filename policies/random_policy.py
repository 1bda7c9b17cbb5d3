"""The random-legal policy, and the base of the bots that draw from a generator of their own
(to break ties or to move at random)."""

from __future__ import annotations

import numpy as np

from catzoo.policies.base import Policy, legal_actions


class SeededPolicy(Policy):
    """A policy with its own generator, ``rng``: seeded when built and again by
    ``reset(seed)``; ``reset()`` without a seed lets it run on."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)


class RandomPolicy(SeededPolicy):
    """Uniform over the legal actions."""

    name = "random"

    def act(self, observation, *, state=None, player=None) -> int:
        legal = legal_actions(observation)
        return int(legal[self.rng.integers(legal.size)])
