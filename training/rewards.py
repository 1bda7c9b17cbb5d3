"""The reward transform the batched trainer (and its warm start) may apply before learning
(``ppo.zero_sum``)."""

from __future__ import annotations

import numpy as np


def zero_sum(rewards: np.ndarray) -> np.ndarray:
    """Each seat's reward minus the mean of the other seats' rewards (last axis: seats).

    A seat's own score says nothing of where it finishes: in a 3-5 player game a policy
    that only adds to its own board lets a card that would sink a rival go by. Minus the
    others' mean the rewards sum to zero over the seats, and with ``gamma`` 1 a seat's
    return is its final margin over the table, a dense signal that ranks as finishing
    ahead does. For a team, whose seats share a score, the partner's share cancels in
    proportion: at 4 players the return is 2/3 of the team's margin.
    """
    rewards = np.asarray(rewards)
    p = rewards.shape[-1]  # every game seats at least 2
    others = (rewards.sum(-1, keepdims=True) - rewards) / (p - 1)
    return (rewards - others).astype(rewards.dtype, copy=False)
