"""The one AEC adapter: turns any CatZoo rules engine into a PettingZoo ``AECEnv``.

Masks, rewards, seeding, turn order, error handling and rendering live here once; each
game's env module only names its engine class and documents itself.

Options shared by every CatZoo env (on top of the game's own options):

* ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"``
  (prints it), or ``"rgb_array"`` for games whose engine draws images (``render_rgb``)
  and whose env lists it in ``metadata["render_modes"]``.
* ``reward``: ``"standing"`` (default: at the end of the game each player gets the
  zero-sum result of the final standing, see ``GameState.returns``; both partners of a
  team get the same), or ``"score"`` (dense: each change of a player's game score, as it
  happens).
* ``illegal_action``: ``"raise"`` (default: an illegal action raises
  ``IllegalActionError`` and leaves the game untouched) or ``"penalize"`` (PettingZoo's
  classic convention: the game ends, the offender gets ``illegal_reward``, others 0).
* ``illegal_reward``: the offender's reward under ``"penalize"`` (default -1).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from catzoo.games.base import TERMINAL, GameState, IllegalActionError, OptionsError, build_options

REWARDS = ("standing", "score")
ILLEGAL = ("raise", "penalize")
RENDER_MODES = ("human", "ansi")
OBS_BOUND = 4.0  # engines scale every feature into [-4, 4]


class GameOverError(RuntimeError):
    """A step after the game has ended and every agent has been removed."""


class CatZooAECEnv(AECEnv):
    """Base class of every CatZoo env; subclasses set ``state_cls`` and ``metadata``."""

    state_cls: type[GameState]
    metadata = {"render_modes": list(RENDER_MODES), "name": "catzoo", "is_parallelizable": False}

    def __init__(
        self,
        render_mode: str | None = None,
        reward: str = "standing",
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        **game_options,
    ):
        super().__init__()
        name = self.state_cls.game_name
        modes = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise OptionsError(
                f"{name}: render_mode={render_mode!r} is not supported; use one of "
                f"{', '.join(modes)} or None"
            )
        if reward not in REWARDS:
            raise OptionsError(f"{name}: reward={reward!r}; choose one of {', '.join(REWARDS)}")
        if illegal_action not in ILLEGAL:
            raise OptionsError(
                f"{name}: illegal_action={illegal_action!r}; choose one of {', '.join(ILLEGAL)}"
            )
        self.render_mode = render_mode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.game_options = build_options(self.state_cls.options_cls, name, game_options)

        probe = self.state_cls.new(self.game_options, seed=0)
        n = probe.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.num_actions = probe.num_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(
                        -OBS_BOUND, OBS_BOUND, (probe.observation_size,), np.float32
                    ),
                    "action_mask": spaces.Box(0, 1, (probe.num_actions,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(probe.num_actions) for a in self.possible_agents}
        self._no_moves = np.zeros(probe.num_actions, dtype=np.int8)
        self._seeds: np.random.Generator | None = np.random.default_rng()
        self._seed_origin: int | None = None
        self.game: GameState | None = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # --- episode --------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. ``seed`` fixes every chance event of this game and seeds the
        stream from which later unseeded resets draw their games' seeds."""
        if seed is not None:
            game_seed = int(seed)
            self._seeds = None  # the stream for later unseeded resets, made when needed
            self._seed_origin = game_seed
        else:
            if self._seeds is None:
                self._seeds = np.random.default_rng(self._seed_origin)
            game_seed = int(self._seeds.integers(2**63 - 1))
        self.game = self.state_cls.new(self.game_options, seed=game_seed)
        self.agents = agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(agents, 0.0)
        self.terminations = dict.fromkeys(agents, False)
        self.truncations = dict.fromkeys(agents, False)
        self.infos = {a: {} for a in agents}
        self._scores = self.game.scores()
        self.agent_selection = self.possible_agents[self.game.current_player]

    def observe(self, agent):
        game = self.game
        assert game is not None, "observe() before reset()"  # OrderEnforcing refuses it
        p = self.agent_name_mapping[agent]
        mask = game.legal_mask() if p == game.current_player else self._no_moves.copy()
        return {"observation": game.observation(p), "action_mask": mask}

    def state(self) -> np.ndarray:
        if self.game is None:
            raise RuntimeError(f"{self.state_cls.game_name}: call reset() before state()")
        return self.game.state_vector()

    def step(self, action) -> None:
        if not self.agents:
            raise GameOverError(
                f"{self.state_cls.game_name}: the game is over and every agent has left; "
                "call reset() to start a new game"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        assert game is not None  # agents exist, so reset() made the game
        if type(action) is not int:
            action = self._as_action(action)
        # Bits past the action space are never set, so one test covers the range too.
        if action < 0 or not (game._legal >> action) & 1:
            try:
                game.check_action(action)  # raises, with the full explanation
            except IllegalActionError as err:
                if self.illegal_action == "raise":
                    raise IllegalActionError(f"{agent}: {err}") from None
                self._end_for_illegal_action(agent, str(err))
                return
        game.apply_unchecked(action)  # engines may give it a faster path than apply()
        if self.render_mode == "human":
            self.render()
        nxt = game.current_player
        sparse = self.reward_mode == "standing"  # no reward before the end of the game
        if nxt != TERMINAL and sparse:
            # The common step: under standing rewards nothing is accumulated before the
            # end, so every cumulative reward is still 0 and nothing needs writing.
            self.agent_selection = self.possible_agents[nxt]
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self.rewards
        if not sparse:
            scores = game.scores()
            for i, a in enumerate(self.possible_agents):
                rewards[a] = float(scores[i] - self._scores[i])
            self._scores = scores
        if nxt == TERMINAL:
            if sparse:
                for a, r in zip(self.possible_agents, game.returns()):
                    rewards[a] = float(r)
            final = game.scores()
            winners = game.winners()
            for i, a in enumerate(self.possible_agents):
                self.terminations[a] = True
                self.infos[a] = {"score": final[i], "winner": i in winners}
            self.agent_selection = self.possible_agents[(self.agent_name_mapping[agent] + 1)
                                                        % len(self.possible_agents)]
        else:
            self.agent_selection = self.possible_agents[nxt]
        self._accumulate_rewards()

    def _as_action(self, action) -> int:
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"{self.agent_selection}: an action must be an integer in "
                f"0..{self.num_actions - 1}, got {action!r} of type {type(action).__name__}"
            )
        return int(action)

    def _end_for_illegal_action(self, agent: str, reason: str) -> None:
        for a in self.possible_agents:
            self.rewards[a] = self.illegal_reward if a == agent else 0.0
            self.terminations[a] = True
            self.infos[a] = {"illegal_action": a == agent, "reason": reason if a == agent else ""}
        self._cumulative_rewards[agent] = 0.0
        self._accumulate_rewards()

    # --- rendering --------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn("render() called without a render_mode; pass render_mode='ansi' or 'human'")
            return None
        if self.render_mode == "rgb_array":
            # Before reset() there is no game yet: draw a fresh one's set-up.
            game = self.game or self.state_cls.new(self.game_options, seed=0)
            return game.render_rgb()
        if self.game is None:
            text = f"{self.state_cls.game_name}: call reset() to start a game"
        else:
            text = self.game.render()
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing (reset before step, observe or render), except that a
    step after the game has ended raises ``GameOverError`` instead of a mere warning."""

    def step(self, action) -> None:
        if self._has_reset and not self.env.agents:
            self.env.step(action)  # raises GameOverError, naming the game
        super().step(action)


def wrap(raw: AECEnv):
    """The wrapper every ``env()`` applies. Bounds and legality are checked by the adapter
    itself (PettingZoo's assertion wrappers would only say "assert failed"), with messages
    naming the agent, the action and the legal actions."""
    return OrderEnforcing(raw)
