"""RLModules for CatZoo games: the masked actor-critic PPO trains, and bots as modules.

``MaskedMLPModule`` is CatZoo's own network in RLlib's terms: an actor MLP (the layers a
CatZoo checkpoint stores: ``pi.{i}``, then ``action``) and a separate critic MLP, as SB3's
``MaskableActorCriticPolicy`` builds them for the CatZoo trainer, so that a trained module
exports to the checkpoint format exactly (export.py). It reads the observation dict the env
gives (``{"observations", "action_mask"}``) and pushes the logits of illegal actions to the
float minimum, as RLlib's action-masking example does, so neither sampling nor the greedy
action can pick one. Why not that example's module: it wraps RLlib's default encoder and
heads, whose layout would have to be guessed at to export.

``BotModule`` seats a CatZoo bot (``random``, ``heuristic``, any spec whose bot decides from
the observation alone) as a frozen module: league opponents that are not snapshots.
"""

from __future__ import annotations

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN

ACTIVATIONS = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}


def mlp(sizes: list[int], activation: str, out_gain: float) -> torch.nn.Sequential:
    """Linear layers with the activation between them; orthogonal initialisation with the
    gains SB3 uses (sqrt(2) inside, ``out_gain`` on the last layer)."""
    layers: list[torch.nn.Module] = []
    for i in range(len(sizes) - 1):
        linear = torch.nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        torch.nn.init.orthogonal_(linear.weight, out_gain if last else np.sqrt(2))
        torch.nn.init.zeros_(linear.bias)
        layers.append(linear)
        if not last:
            layers.append(ACTIVATIONS[activation]())
    return torch.nn.Sequential(*layers)


def split_obs(batch: dict) -> tuple[torch.Tensor, torch.Tensor]:
    obs = batch[Columns.OBS]
    return obs["observations"], obs["action_mask"]


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI, InferenceOnlyAPI):
    """``model_config``: ``hidden`` (list of widths, default [128, 128]) and ``activation``
    (``tanh`` or ``relu``)."""

    def setup(self):
        cfg = self.model_config or {}
        self.hidden = [int(h) for h in cfg.get("hidden", [128, 128])]
        self.activation = cfg.get("activation", "tanh")
        if self.activation not in ACTIVATIONS:
            raise ValueError(f"activation {self.activation!r}; use {', '.join(ACTIVATIONS)}")
        size = int(self.observation_space["observations"].shape[0])
        self.pi = mlp([size, *self.hidden, int(self.action_space.n)], self.activation, 0.01)
        if not self.inference_only:
            self.vf = mlp([size, *self.hidden, 1], self.activation, 1.0)

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf"]

    def _logits(self, batch: dict) -> torch.Tensor:
        x, mask = split_obs(batch)
        logits = self.pi(x)
        # log(1) = 0 keeps a legal logit; log(0) = -inf, clamped to the float minimum.
        return logits + torch.clamp(torch.log(mask), min=FLOAT_MIN)

    def _forward(self, batch: dict, **kwargs) -> dict:
        return {Columns.ACTION_DIST_INPUTS: self._logits(batch)}

    def compute_values(self, batch: dict, embeddings=None) -> torch.Tensor:
        x, _ = split_obs(batch)
        return self.vf(x).squeeze(-1)


class BotModule(RLModule):
    """A CatZoo bot as a frozen module. ``model_config``: ``spec`` (a policy spec),
    ``game``, ``num_players``, ``seed``. It acts from the observation alone (no engine
    state), so search bots, which simulate the game, cannot sit here."""

    def setup(self):
        from catzoo.policies.registry import make_policy

        cfg = self.model_config
        self.policy = make_policy(cfg["spec"], cfg["game"], int(cfg["num_players"]),
                                  seed=cfg.get("seed"))

    def _forward(self, batch: dict, **kwargs) -> dict:
        x, mask = (np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t)
                   for t in split_obs(batch))
        actions = [self.policy.act({"observation": x[i], "action_mask": mask[i] > 0.5})
                   for i in range(len(x))]
        return {Columns.ACTIONS: np.asarray(actions, dtype=np.int64)}

    def _forward_train(self, batch: dict, **kwargs):
        raise NotImplementedError(f"{self.model_config['spec']} is a bot: it is not trained "
                                  "(leave it out of policies_to_train)")

    def get_state(self, *args, **kwargs) -> dict:
        return {}

    def set_state(self, state) -> None:
        pass
