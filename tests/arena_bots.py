"""Bots for the arena's tests, named by import path (``tests.arena_bots:Bomb``) so that they
travel to Ray workers as text, as a user's own bots do."""

from __future__ import annotations

import numpy as np

from catzoo.policies.base import Policy, legal_actions


class Bomb(Policy):
    """Plays randomly, then fails on its ``after``-th move of a game, in the games whose
    deal number is a multiple of ``every``: raises, or with ``illegal=true`` returns an
    action its mask forbids. Every move is a function of the game (``reset(seed)``), so it
    fails in the same game and at the same step wherever the game is played."""

    def __init__(self, num_players: int, seed: int | None = None, after: str = "10",
                 every: str = "1", illegal: str = "false"):
        self.after, self.every, self.illegal = int(after), int(every), illegal == "true"
        self.armed = True
        self.moves = 0
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        self.moves = 0
        self.rng = np.random.default_rng(seed)
        # play_match seeds seat i with deal * 1000 + i: the deal is seed // 1000.
        self.armed = seed is None or (seed // 1000) % self.every == 0

    def act(self, observation, *, state=None, player=None) -> int:
        self.moves += 1
        legal = legal_actions(observation)
        if self.armed and self.moves >= self.after:
            if self.illegal:
                return int(np.flatnonzero(observation["action_mask"] == 0)[0])
            raise ZeroDivisionError("the bomb went off")
        return int(legal[self.rng.integers(legal.size)])
