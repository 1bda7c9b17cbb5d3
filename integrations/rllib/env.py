"""Any CatZoo game as an RLlib ``MultiAgentEnv`` (new API stack), turn by turn.

Each step returns the observation of the one player to act next, as RLlib's action-masking
module reads it: ``{"observations": float32 vector, "action_mask": float32 0/1 vector}``
(CatZoo's AEC env names them ``observation`` and ``action_mask``, the mask as int8; the
float mask is what the module takes the log of). Rewards come as the AEC env gives them,
to every player they concern, acting or not: RLlib adds a waiting player's rewards to its
next transition. When the game ends every player gets its last observation, its reward and
``infos["standing"]``, its standing return (``GameState.returns``), whatever ``reward`` the
env was made with.

An illegal action (a masked module never sends one; RLlib's env check, which steps random
actions, and unmasked algorithms do) ends the game with ``illegal_reward`` for the
offender and ``infos[agent]["illegal_action"]``, PettingZoo's classic convention; with
``illegal_action="raise"`` it raises ``IllegalActionError`` instead.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from catzoo.games.registry import get_game


def observation_space(raw) -> spaces.Dict:
    inner = raw.observation_space(raw.possible_agents[0])
    n = raw.action_space(raw.possible_agents[0]).n
    return spaces.Dict({"observations": inner["observation"],
                        "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})


class CatZooMultiAgentEnv(MultiAgentEnv):
    """``config``: ``game`` (a name from ``catzoo list``), ``num_players`` (default: the
    game's), ``reward`` (``standing`` or ``score``), ``options`` (the game's own),
    ``illegal_action`` (``penalize`` or ``raise``), ``illegal_reward`` (default -1)."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        info = get_game(config["game"])
        self.game_name = info.name
        n = config.get("num_players") or info.default_players
        # The AEC env with its wrappers: they hold the illegal-action convention.
        self.aec = info.load_env_module().env(
            num_players=n, reward=config.get("reward", "standing"),
            illegal_action=config.get("illegal_action", "penalize"),
            illegal_reward=float(config.get("illegal_reward", -1.0)),
            **dict(config.get("options") or {}))
        self.raw = self.aec.unwrapped
        self.possible_agents = list(self.raw.possible_agents)
        self.agents = list(self.possible_agents)
        space = observation_space(self.raw)
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {a: self.raw.action_space(a) for a in self.possible_agents}

    def _obs(self, agent: str) -> dict:
        obs = self.aec.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed)
        self.agents = list(self.possible_agents)
        first = self.raw.agent_selection
        return {first: self._obs(first)}, {}

    def step(self, action_dict: dict):
        raw = self.raw
        agent = raw.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{self.game_name}: it is {agent}'s turn; got actions for "
                             f"{sorted(action_dict)}")
        self.aec.step(int(action_dict[agent]))
        rewards = {a: float(r) for a, r in raw.rewards.items() if r}
        if all(raw.terminations.values()):  # the game's end, or an illegal action's
            obs = {a: self._obs(a) for a in self.possible_agents}
            infos = {a: dict(raw.infos[a]) for a in self.possible_agents}
            if raw.game.is_terminal():
                for a, r in zip(self.possible_agents, raw.game.returns()):
                    infos[a]["standing"] = float(r)
            done = {a: True for a in self.possible_agents}
            return obs, {a: rewards.get(a, 0.0) for a in self.possible_agents}, \
                {**done, "__all__": True}, {"__all__": False}, infos
        nxt = raw.agent_selection
        rewards.setdefault(nxt, 0.0)  # RLlib wants a reward with every observation
        return {nxt: self._obs(nxt)}, rewards, {"__all__": False}, {"__all__": False}, {}

    def render(self) -> str:
        return self.raw.game.render()
