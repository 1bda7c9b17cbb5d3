"""One learner seat of any CatZoo AEC env, as a single-agent Gymnasium env.

Why not the PettingZoo SB3 tutorial's wrapper: it lets one model act for every seat in
turn, so consecutive transitions in its rollout buffer belong to different players and
GAE bootstraps one player's value from the opponent's next state; and it returns the
reward of whoever moves next, so when the game ends on the opponent's move the learner's
final reward (often the loss) never reaches the buffer. Here:

* the learner holds one seat, drawn per episode; the other seats are played inside
  ``step()`` by opponent policies until it is the learner's turn again, so each
  transition goes from one learner decision to its next;
* the reward of a step is everything the learner received in the meantime, including
  what other players' moves caused (``reward="score"``) and the final standing when the
  game ends on someone else's move;
* ``action_masks()`` is a method of this env, so ``MaskablePPO`` reads it through
  ``env_method`` in both ``DummyVecEnv`` and ``SubprocVecEnv``.

An illegal learner action (only an unmasked algorithm or a checker sends one) either
raises ``IllegalActionError`` (``illegal_action="raise"``) or, by default, ends the
episode with ``illegal_reward`` and ``info["illegal_action"]`` (PettingZoo's classic
convention), so that plain Gymnasium tools such as SB3's ``check_env`` can drive it.

Episode statistics (``info["episode"]``: return, length, time) are SB3's ``Monitor`` /
``VecMonitor``'s job; the trainer wraps its vector env in ``VecMonitor``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np

from catzoo.games.base import IllegalActionError
from catzoo.games.registry import get_game
from catzoo.policies.base import Policy

# (learner seat, number of seats, numpy Generator) -> one (policy, tag) per seat; the
# learner's entry is ignored. ``tag`` names a league snapshot (results are reported back) or is None.
SeatFiller = Callable[[int, int, np.random.Generator], Sequence[tuple[Policy | None, str | None]]]


def fixed_opponents(make: Callable[[int], Policy]) -> SeatFiller:
    """Every other seat played by ``make(seat)`` (built once per seat and reused)."""
    cache: dict[int, Policy] = {}

    def fill(learner: int, num_players: int, rng: np.random.Generator):
        return [(None, None) if s == learner else (cache.setdefault(s, make(s)), None)
                for s in range(num_players)]

    return fill


class SingleAgentEnv(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, game: str, num_players: int, seat_filler: SeatFiller, *,
                 reward: str = "standing", options: dict | None = None,
                 seat: int | None = None, illegal_action: str = "penalize",
                 illegal_reward: float = -1.0):
        if illegal_action not in ("penalize", "raise"):
            raise ValueError(f"illegal_action={illegal_action!r}; use 'penalize' or 'raise'")
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self._over = True
        info = get_game(game)
        self.game_name = info.name
        self.raw = info.load_env_module().raw_env(num_players=num_players, reward=reward,
                                                  **(options or {}))
        self.num_players = len(self.raw.possible_agents)
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"seat {seat} is out of range 0..{self.num_players - 1}")
        self.fixed_seat = seat
        self.seat_filler = seat_filler
        space = self.raw.observation_space(self.raw.possible_agents[0])
        self.observation_space = space["observation"]
        self.action_space = self.raw.action_space(self.raw.possible_agents[0])
        self.seat = 0
        self._mask = np.zeros(self.raw.num_actions, dtype=np.bool_)
        self._seats: list = []

    # --- helpers --------------------------------------------------------------------------
    def _play_others(self) -> float:
        """Let the other seats act until the learner's turn or the end; the learner's
        reward received meanwhile."""
        raw, me = self.raw, self.raw.possible_agents[self.seat]
        got = 0.0
        game = raw.game
        while not game.is_terminal() and game.current_player != self.seat:
            p = game.current_player
            agent = raw.possible_agents[p]
            action = self._seats[p][0].act(raw.observe(agent), state=game, player=p)
            raw.step(action)
            got += raw.rewards[me]
        return got

    def _observe(self) -> np.ndarray:
        obs = self.raw.observe(self.raw.possible_agents[self.seat])
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]

    def action_masks(self) -> np.ndarray:
        return self._mask

    # --- gymnasium API --------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        rng = self.np_random
        while True:
            self.raw.reset(seed=int(rng.integers(2**62)))
            self.seat = (self.fixed_seat if self.fixed_seat is not None
                         else int(rng.integers(self.num_players)))
            self._seats = list(self.seat_filler(self.seat, self.num_players, rng))
            for s, (policy, _) in enumerate(self._seats):
                if s != self.seat:
                    policy.reset(int(rng.integers(2**62)))
            self._play_others()
            self._over = self.raw.game.is_terminal()
            if not self._over:
                return self._observe(), {"seat": self.seat}
            # The game ended before the learner's first decision: nothing to learn from.

    def step(self, action):
        raw, game = self.raw, self.raw.game
        if self._over:
            raise RuntimeError("step() after the end of the episode; call reset()")
        action = int(action)
        if not (0 <= action < self.raw.num_actions and self._mask[action]):
            reason = (f"{self.game_name}: learner action {action} is not legal; legal "
                      f"actions: {np.flatnonzero(self._mask).tolist()}")
            if self.illegal_action == "raise":
                raise IllegalActionError(reason)
            self._over = True
            obs = game.observation(self.seat)
            self._mask = np.zeros_like(self._mask)
            return obs, self.illegal_reward, True, False, {"illegal_action": True,
                                                           "reason": reason}
        me = raw.possible_agents[self.seat]
        raw.step(action)
        reward = raw.rewards[me] + self._play_others()
        terminated = self._over = game.is_terminal()
        info: dict = {}
        if terminated:
            self._mask = np.zeros_like(self._mask)
            obs = game.observation(self.seat)
            info["learner_return"] = float(game.returns()[self.seat])
            info["opponents"] = [tag for s, (_, tag) in enumerate(self._seats)
                                 if s != self.seat and tag is not None]
        else:
            obs = self._observe()
        return obs, float(reward), terminated, False, info
