"""The one AEC adapter: turns any CatZoo rules engine into a PettingZoo ``AECEnv``.

Masks, rewards, seeding, turn order, error handling and rendering live here once; each
game's env module only documents itself and takes its ``raw_env`` and ``env`` from
``env_api``, naming its engine class.

Options shared by every CatZoo env (on top of the game's own options):

* ``render_mode``: ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"``
  (prints it), or ``"rgb_array"`` for games whose engine draws images (``render_rgb``)
  and whose env lists it in ``metadata["render_modes"]``.
* ``reward``: ``"standing"`` (default: at the end of the game each player gets the
  zero-sum result of the final standing, see ``GameState.returns``; both partners of a
  team get the same), or ``"score"`` (dense: each change of a player's game score, as it
  happens).
* ``illegal_action``: ``"penalize"`` (default: PettingZoo's classic convention, by its
  own ``TerminateIllegalWrapper``: an action the mask forbids ends the game, the offender
  gets ``illegal_reward`` and the others 0, PettingZoo logs a warning, and the infos
  name the offender and the reason) or ``"raise"`` (for debugging: ``IllegalActionError``
  naming the agent, the action and the legal actions, the game untouched). Either way an
  action of the wrong type or outside the action space raises ``IllegalActionError``.
  These choose ``env()``'s wrappers: ``raw_env`` itself always raises.
* ``illegal_reward``: the offender's reward under ``"penalize"`` (default -1).

``state()`` is the global view (every hidden card too), in ``state_space``, a ``Box`` of
the same bounds as the observations.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from catzoo.games.base import (
    TERMINAL,
    GameState,
    IllegalActionError,
    OptionsError,
    build_options,
    check_seed,
)

REWARDS = ("standing", "score")
ILLEGAL = ("penalize", "raise")
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
        illegal_action: str = "penalize",
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
        self.state_space = spaces.Box(-OBS_BOUND, OBS_BOUND, (probe.state_size,), np.float32)
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
        stream from which later unseeded resets draw their games' seeds.

        A seed follows gymnasium's rule (``np_random``: a non-negative integer or None);
        anything else (negative, bool, float, string, NaN, a list) raises ``SeedError``
        naming it, and leaves the env as it was."""
        seed = check_seed(seed, f"{self.state_cls.game_name}: seed")
        if seed is not None:
            game_seed = seed
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
                raise IllegalActionError(f"{agent}: {err}") from None
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
        return as_action(action, self.agent_selection, self.num_actions)

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


def as_action(action, agent: str, num_actions: int | np.integer) -> int:
    """``action`` as an int in ``0..num_actions - 1``, else ``IllegalActionError`` naming
    the agent and what was wrong (PettingZoo's assertion wrapper says only "action is not
    in action space")."""
    if type(action) is not int:
        if isinstance(action, np.ndarray) and action.ndim == 0:
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"{agent}: an action must be an integer in 0..{num_actions - 1}, got "
                f"{action!r} of type {type(action).__name__}"
            )
        action = int(action)
    if not 0 <= action < num_actions:
        raise IllegalActionError(f"{agent}: action {action} is out of range 0..{num_actions - 1}")
    return action


class TerminateIllegal(wrappers.TerminateIllegalWrapper):
    """PettingZoo's classic convention, by PettingZoo's own wrapper: an action the mask
    forbids ends the game (every agent terminated and truncated), the offender gets
    ``illegal_reward`` and the others 0, with PettingZoo's warning. On top of it, the
    infos name the offender (``illegal_action``) and the ``reason``."""

    # PettingZoo's wrappers forward attributes through ``__getattr__``, after a failed
    # lookup: about half a microsecond a layer, and the AEC API reads a dozen a step. The
    # hot ones go straight to the env here (the wrapper itself only reads them).
    agent_selection = property(lambda self: self.env.agent_selection)
    agents = property(lambda self: self.env.agents)
    terminations = property(lambda self: self.env.terminations)
    truncations = property(lambda self: self.env.truncations)
    rewards = property(lambda self: self.env.rewards)
    infos = property(lambda self: self.env.infos)
    _cumulative_rewards = property(lambda self: self.env._cumulative_rewards)

    def step(self, action) -> None:
        agent = self.agent_selection
        ended_before = self._terminated
        super().step(action)
        if self._terminated and not ended_before:
            raw = self.env.unwrapped
            legal = np.flatnonzero(cast(dict, raw.observe(agent))["action_mask"]).tolist()
            reason = f"{agent}: action {action} is not legal; legal actions: {legal}"
            for a in raw.agents:
                raw.infos[a] = {"illegal_action": a == agent, "reason": reason if a == agent else ""}


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order enforcing (reset before step, observe or render), except that a
    step after the game has ended raises ``GameOverError`` instead of a mere warning, and
    that an action of the wrong type or out of range raises ``IllegalActionError`` before
    ``TerminateIllegal`` reads the mask at it."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action) -> None:
        if self._has_reset:
            raw = self._raw
            if not raw.agents:
                raw.step(action)  # raises GameOverError, naming the game
            agent = raw.agent_selection
            if not (raw.terminations[agent] or raw.truncations[agent]):
                # int(): gymnasium 1.2 types Discrete.n loosely (RLlib's pin), 1.4 as int64.
                n = int(cast(spaces.Discrete, raw.action_space(agent)).n)
                action = as_action(action, agent, n)
        super().step(action)


def wrap(raw: AECEnv):
    """The wrappers every ``env()`` applies: PettingZoo's classic convention for illegal
    actions (``TerminateIllegal``) unless the env was made with ``illegal_action="raise"``,
    then order enforcing. Types, bounds and (under "raise") legality are checked by
    CatZoo itself, with messages naming the agent, the action and the legal actions."""
    env = raw
    if getattr(raw, "illegal_action", "penalize") == "penalize":
        env = TerminateIllegal(env, illegal_reward=getattr(raw, "illegal_reward", -1.0))
    return OrderEnforcing(env)


def env_api(module: str, state_cls: type[GameState], *, render_modes=RENDER_MODES,
            **metadata: Any) -> tuple[type[CatZooAECEnv], Callable[..., AECEnv]]:
    """The ``raw_env`` class and the ``env()`` function of the env module ``module`` (its
    ``__name__``, e.g. ``catzoo.envs.lunar_v0``), for the engine ``state_cls``.

    ``raw_env`` carries PettingZoo's metadata (the name is the module's, ``lunar_v0``;
    ``render_modes``; any other ``metadata`` entries) and is the module's own class, so
    its instances pickle; ``env(**options)`` is ``raw_env(**options)`` with ``wrap``'s
    wrappers, PettingZoo's convention for an env module."""
    name = module.rpartition(".")[2]
    raw_env = type("raw_env", (CatZooAECEnv,), {
        "__module__": module,
        "__qualname__": "raw_env",
        "__doc__": f"The {name} env without the wrappers ``env()`` adds.",
        "state_cls": state_cls,
        "metadata": {"render_modes": list(render_modes), "name": name,
                     "is_parallelizable": False, **metadata},
    })

    def env(**options) -> AECEnv:
        return wrap(raw_env(**options))

    env.__module__, env.__qualname__ = module, "env"
    env.__doc__ = f"The {name} env (see the module's docstring for its options)."
    return raw_env, env
