"""A trained actor as a ``Policy``: the masked MLP over ``Actor`` (training/actor.py), which
plays in numpy: a checkpoint plays without torch, and a batch-of-one forward pass in numpy
is several times cheaper than torch's.

SB3's ``MaskableActorCriticPolicy`` (flatten -> hidden layers -> logits) exports its actor
under the same names (``export_actor``), so its policies play through the same class.
"""

from __future__ import annotations

import numpy as np

from catzoo.policies import features
from catzoo.policies.base import NoLegalActionError, Policy, legal_actions
from catzoo.training.actor import ACTIVATIONS, Actor, expected_shapes

__all__ = ["ACTIVATIONS", "MLPPolicy", "expected_shapes", "export_actor"]


def export_actor(sb3_policy) -> dict[str, np.ndarray]:
    """The actor's weights of an SB3 (Maskable)ActorCriticPolicy as float32 arrays."""
    state = sb3_policy.state_dict()
    out: dict[str, np.ndarray] = {}
    linear = [k[: -len(".weight")] for k in state
              if k.startswith("mlp_extractor.policy_net.") and k.endswith(".weight")]
    linear.sort(key=lambda k: int(k.rsplit(".", 1)[1]))
    for i, prefix in enumerate(linear):
        out[f"pi.{i}.weight"] = state[prefix + ".weight"].detach().cpu().numpy().astype(np.float32)
        out[f"pi.{i}.bias"] = state[prefix + ".bias"].detach().cpu().numpy().astype(np.float32)
    out["action.weight"] = state["action_net.weight"].detach().cpu().numpy().astype(np.float32)
    out["action.bias"] = state["action_net.bias"].detach().cpu().numpy().astype(np.float32)
    return out


class MLPPolicy(Policy):
    """Masked MLP actor. ``deterministic``: the most likely legal action (for play and
    evaluation); otherwise a sample from the masked softmax (for training opponents)."""

    def __init__(self, weights: dict[str, np.ndarray] | Actor, hidden: list[int] | None = None,
                 activation: str | None = None, *, deterministic: bool = True,
                 seed: int | None = None, name: str = "mlp", meta: dict | None = None):
        if not isinstance(weights, Actor):
            if hidden is None or activation is None:
                raise TypeError("MLPPolicy: weights as a mapping need hidden and activation")
            weights = Actor(weights, hidden, activation)
        self.actor = weights
        self.input_size = self.actor.input_size
        self.num_actions = self.actor.num_actions
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        self.name = name
        self.meta = meta or {}
        # A network with input features (catzoo.policies.features) reads them after the
        # observation, computed here from the observation and the mask.
        self.features = self.meta.get("features")
        self.obs_size = self.input_size - features.width(self.features,
                                                         self.meta.get("num_players", 0))
        self._options = None  # the checkpoint's env options, built when first needed

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def _observation_from(self, state, player) -> np.ndarray:
        """The observation this policy was trained on, made from the engine state when
        the table's env options differ from the checkpoint's only in what observations
        hold (the ledges aiming features): so it can sit at any table of its game."""
        from catzoo.games.base import OptionsError, options_from_json

        if self.meta.get("game") != state.game_name:
            raise ValueError(f"{self.name}: a {self.meta.get('game')} policy cannot play "
                             f"{state.game_name}")
        if self._options is None:
            try:
                self._options = options_from_json(
                    type(state.options), state.game_name,
                    {**self.meta["env_options"], "num_players": self.meta.get("num_players")})
            except (OptionsError, TypeError) as err:
                raise ValueError(f"{self.name}: its env options are not valid here: {err}") from None
        try:
            return state.observation_as(state.current_player if player is None else player,
                                        self._options)
        except ValueError as err:
            raise ValueError(f"{self.name}: trained with other env options; {err}") from None

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The action logits of one input vector ``(in,)`` or of a batch ``(B, in)``."""
        return self.actor.logits(x)

    def _inputs(self, x: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """Observations ``(B, size)`` with the network's input features after them."""
        if self.features is None:
            return x
        return features.augment(self.features, x, masks, self.meta["num_players"],
                                self.meta.get("env_options"))

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The most likely legal action of each row in one forward pass (the search bots'
        rollouts); a sampling policy draws row by row, as ``act`` does."""
        if not self.deterministic:
            return super().act_batch(observations, masks)
        x = np.asarray(observations, dtype=np.float32)
        masks = np.asarray(masks)
        if x.ndim != 2 or x.shape[1] != self.obs_size or masks.shape != (x.shape[0], self.num_actions):
            raise ValueError(
                f"{self.name}: expects observations (B, {self.obs_size}) and masks (B, "
                f"{self.num_actions}), got {x.shape} and {masks.shape}: this policy was "
                "trained for another game or player count"
            )
        legal = masks.astype(bool)
        if not legal.any(axis=1).all():
            raise NoLegalActionError("a row's action mask has no legal action")
        return np.where(legal, self.logits(self._inputs(x, masks)), -np.inf).argmax(axis=1)

    def action_probabilities(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The masked softmax ``(B, actions)`` of a batch (a search's prior over moves)."""
        x = np.asarray(observations, dtype=np.float32)
        legal = np.asarray(masks).astype(bool)
        logits = np.where(legal, self.logits(self._inputs(x, np.asarray(masks))), -np.inf)
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def act(self, observation, *, state=None, player=None) -> int:
        x = observation["observation"]
        mask = observation["action_mask"]
        if x.shape != (self.obs_size,) and state is not None and "env_options" in self.meta:
            x = self._observation_from(state, player)
        if x.shape != (self.obs_size,) or mask.shape != (self.num_actions,):
            raise ValueError(
                f"{self.name}: expects an observation of size {self.obs_size} and a mask of "
                f"size {self.num_actions}, got {x.shape} and {mask.shape}: this policy was "
                "trained for another game or player count"
            )
        legal = legal_actions(observation)
        x = x.astype(np.float32, copy=False)
        logits = self.logits(self._inputs(x[None], mask[None])[0])
        masked = logits[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(masked))])
        p = np.exp(masked - masked.max())
        p /= p.sum()
        return int(legal[min(int(np.searchsorted(np.cumsum(p), self.rng.random())), legal.size - 1)])
