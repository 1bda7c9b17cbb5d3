"""CatZoo in stable-baselines3: ``vec_env``, a ``VecEnv`` of N games on the batched engine
that ``sb3_contrib.MaskablePPO`` trains on directly (needs the ``train`` extra).

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from catzoo.integrations.sb3 import export_policy, vec_env

    env = VecMonitor(vec_env("cat_in_the_box", num_envs=64, num_players=4,
                             opponents=("heuristic", "random")))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256).learn(200_000)
    export_policy(model, env, "runs/my-policy")    # a CatZoo checkpoint: arena, play, serve

It is ``catzoo.vector.single_agent`` (the same arguments; docs/vector.md) behind SB3's
``VecEnv`` interface: the learner holds one seat of every game and the opponents play the
others inside ``step``; a game that ends is dealt the next at once (SB3's convention),
its last observation in ``infos[i]["terminal_observation"]``, with ``learner_return`` (the
learner's final standing), ``scores`` and ``opponent`` (the spec that held the table).
``env_method("action_masks")`` gives each game's legal actions, which MaskablePPO reads;
``VecMonitor`` adds the episode statistics SB3 logs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices

from catzoo.vector.single_agent_env import SingleAgentVectorEnv

__all__ = ["CatZooVecEnv", "export_policy", "vec_env"]


class CatZooVecEnv(VecEnv):
    """SB3's ``VecEnv`` over a ``SingleAgentVectorEnv`` in Gymnasium's SAME_STEP autoreset
    (``envs``). ``set_opponents`` changes the opponents of the games dealt from then on."""

    def __init__(self, envs: SingleAgentVectorEnv):
        if envs.autoreset_mode is not AutoresetMode.SAME_STEP:
            raise ValueError("CatZooVecEnv needs a SingleAgentVectorEnv with "
                             "autoreset_mode=SAME_STEP (SB3 deals the next game at once)")
        self.envs = envs
        self.render_mode = None
        super().__init__(envs.num_envs, envs.single_observation_space, envs.single_action_space)
        self._actions: np.ndarray | None = None

    # --- the VecEnv API -------------------------------------------------------------------
    def reset(self):
        seed = self._seeds[0]
        obs, _ = self.envs.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        obs, rewards, terminated, truncated, infos = self.envs.step(self._actions)
        self._actions = None
        dones = terminated | truncated
        out: list[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones).tolist():
            out[i] = {"terminal_observation": infos["final_obs"][i],
                      "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                      "learner_return": float(infos["standing"][i]),
                      "scores": infos["scores"][i], "opponent": infos["opponent"][i]}
        return obs, rewards, dones, out

    def close(self) -> None:
        self.envs.close()

    def action_masks(self) -> np.ndarray:
        """bool [N, A]: each game's legal actions now."""
        return self.envs.action_masks()

    def set_opponents(self, opponents: Sequence[str] | Mapping[str, float],
                      partner: str | None = None) -> None:
        self.envs.set_opponents(opponents, partner)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None,
                   **method_kwargs) -> list:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.envs.action_masks()
            return [masks[i] for i in rows]
        raise AttributeError(f"CatZooVecEnv has no per-env method {method_name!r} "
                             "(its games have action_masks)")

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list:
        rows = list(self._get_indices(indices))
        if attr_name == "action_masks":
            masks = self.envs.action_masks
            return [masks] * len(rows)
        if attr_name == "render_mode":
            return [None] * len(rows)
        if attr_name in ("game", "num_players", "options", "reward_mode", "opponent_specs"):
            return [getattr(self.envs, attr_name)] * len(rows)
        if attr_name == "seat":
            return [int(self.envs.seats[i]) for i in rows]
        raise AttributeError(f"CatZooVecEnv's games have no attribute {attr_name!r}")

    def set_attr(self, attr_name: str, value, indices: VecEnvIndices = None) -> None:
        raise AttributeError(f"CatZooVecEnv's games take no attribute {attr_name!r}; "
                             "use set_opponents for the opponents")

    def env_is_wrapped(self, wrapper_class, indices: VecEnvIndices = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))

    def get_images(self):
        raise NotImplementedError("CatZoo's batched games do not render; render a game with "
                                  "envs.state(i).render() or catzoo replay")


def vec_env(game: str, num_envs: int, num_players: int | None = None,
            opponents: Sequence[str] | Mapping[str, float] = ("heuristic",),
            seed: int | None = 0, threads: int = 1, reward: str = "standing",
            **options) -> CatZooVecEnv:
    """A stable-baselines3 ``VecEnv`` of ``num_envs`` games of ``game``: the arguments of
    ``catzoo.vector.single_agent`` (and its keyword options ``partner``, ``seat``,
    ``sample_opponents``), with SB3's autoreset."""
    if "autoreset_mode" in options:
        raise ValueError("vec_env's autoreset is SB3's (SAME_STEP); it takes no autoreset_mode")
    return CatZooVecEnv(SingleAgentVectorEnv(game, num_envs, num_players, opponents, seed,
                                             threads, reward,
                                             autoreset_mode=AutoresetMode.SAME_STEP, **options))


ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu"}


def export_policy(model, env, path: str | Path, extra: dict | None = None) -> Path:
    """Write ``model``'s policy (a MaskablePPO on a ``vec_env``, or on a wrapper of one) as
    a CatZoo policy checkpoint at ``path`` (safetensors + JSON, atomically): it loads with
    ``load_policy`` and plays in the arena, the terminal and the browser table."""
    from catzoo.training.checkpoint import save_policy
    from catzoo.training.policy_net import export_actor
    from catzoo.training.run_dir import policy_meta

    envs = getattr(env, "unwrapped", env)
    envs = envs.envs if isinstance(envs, CatZooVecEnv) else envs
    if not isinstance(envs, SingleAgentVectorEnv):
        raise TypeError(f"export_policy needs the vec_env the model trained on, got {env!r}")
    name = type(model.policy.activation_fn()).__name__
    if name not in ACTIVATIONS:
        raise ValueError(f"a CatZoo checkpoint's MLP uses tanh or relu, not {name}")
    weights = export_actor(model.policy)
    hidden = [weights[f"pi.{i}.bias"].shape[0] for i in range(len(weights) // 2 - 1)]
    options = {k: (list(v) if isinstance(v, tuple) else v)
               for k, v in _asdict(envs.options).items() if k != "num_players"}
    config = {"game": envs.game, "env": {"num_players": envs.num_players, "options": options,
                                         "reward": envs.reward_mode},
              "teams": [list(t) for t in envs.state_cls.new(envs.options, seed=0).teams()
                        if len(t) > 1],
              "network": {"hidden": hidden, "activation": ACTIVATIONS[name]}}
    meta = policy_meta(config, envs.obs_size, envs.num_actions, int(model.num_timesteps),
                       {}, {}, "stable-baselines3 MaskablePPO on catzoo.integrations.sb3.vec_env",
                       opponents=list(envs.opponent_specs), **(extra or {}))
    return save_policy(path, weights, meta)


def _asdict(options) -> dict:
    import dataclasses

    return dataclasses.asdict(options)
