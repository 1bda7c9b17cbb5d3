"""The one MLP actor: its weights, and a numpy and a torch forward pass over the same arrays.

An actor is hidden layers (``pi.{i}.weight``, ``pi.{i}.bias``, activation after each) and an
action head (``action.weight``, ``action.bias``), float32, as a policy checkpoint stores them
(``policy.safetensors``). Every tool plays through this class: the learner (its parameters
are torch views of these arrays, so an optimizer step is seen by the numpy pass at once), a
league snapshot or a checkpoint read from disk (numpy arrays, whose torch views cost no
copy), the training tables' opponents (torch, batched), the arena and the tables (numpy,
which needs no torch installed and is cheaper than torch for a batch of one).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh, "relu": lambda x: np.maximum(x, 0.0)}


def expected_shapes(obs_size: int, num_actions: int, hidden: list[int]) -> dict[str, tuple]:
    shapes: dict[str, tuple] = {}
    width = obs_size
    for i, h in enumerate(hidden):
        shapes[f"pi.{i}.weight"] = (h, width)
        shapes[f"pi.{i}.bias"] = (h,)
        width = h
    shapes["action.weight"] = (num_actions, width)
    shapes["action.bias"] = (num_actions,)
    return shapes


# A batch of at least SPARSE_BATCH rows takes the first layer in blocks of SPARSE_BLOCK rows,
# each over the columns its rows set when they are at most SPARSE_SHARE of the input
# (``Actor._first_layer``).
SPARSE_BATCH, SPARSE_BLOCK, SPARSE_SHARE = 64, 256, 0.5


class Actor:
    """An MLP actor's weights with two forward passes that agree (tests: to 1e-6)."""

    def __init__(self, weights: dict, hidden: list[int], activation: str):
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}; use {', '.join(ACTIVATIONS)}")
        names = [(f"pi.{i}.weight", f"pi.{i}.bias") for i in range(len(hidden))]
        names.append(("action.weight", "action.bias"))
        self.hidden, self.activation = list(hidden), activation
        self._np_activation = ACTIVATIONS[activation]
        self.layers: list[tuple[np.ndarray, np.ndarray]] = [
            (self._array(weights[w]), self._array(weights[b])) for w, b in names]
        self.input_size = self.layers[0][0].shape[1]
        self.num_actions = self.layers[-1][0].shape[0]
        self._tensors: list | None = None

    @staticmethod
    def _array(value) -> np.ndarray:
        if hasattr(value, "detach"):  # a torch tensor: a view of its memory, not a copy
            value = value.detach().numpy()
        return np.ascontiguousarray(value, dtype=np.float32)

    @classmethod
    def of_parameters(cls, parameters: list, hidden: list[int], activation: str) -> Actor:
        """An actor over live torch parameters (weight, bias, weight, bias, ..., head): the
        numpy arrays are views of their memory and the torch pass uses the parameters
        themselves, so gradients flow through it."""
        names = [f"pi.{i}.{k}" for i in range(len(hidden)) for k in ("weight", "bias")]
        names += ["action.weight", "action.bias"]
        actor = cls(dict(zip(names, parameters)), hidden, activation)
        actor._tensors = list(parameters)
        return actor

    def weights(self) -> dict[str, np.ndarray]:
        """The weights by their checkpoint names (the arrays themselves, not copies)."""
        out = {}
        for i, (w, b) in enumerate(self.layers[:-1]):
            out[f"pi.{i}.weight"], out[f"pi.{i}.bias"] = w, b
        out["action.weight"], out["action.bias"] = self.layers[-1]
        return out

    def copy(self) -> Actor:
        """A frozen copy (a league snapshot of a learner that trains on)."""
        return Actor({k: v.copy() for k, v in self.weights().items()}, self.hidden,
                     self.activation)

    # --- numpy ----------------------------------------------------------------------------
    def hidden_np(self, x: np.ndarray) -> np.ndarray:
        layers = self.layers[:-1]
        if layers:
            x = self._np_activation(self._first_layer(x))
        for w, b in layers[1:]:
            x = self._np_activation(x @ w.T + b)
        return x

    def _first_layer(self, x: np.ndarray) -> np.ndarray:
        """``x @ w.T + b`` of the first hidden layer. The card games' observations are mostly
        zeros (Cat Tree's: some 45 of 763 set), and a search's batch of rollouts holds the
        copies of one re-deal in neighbouring rows, so each block of SPARSE_BLOCK rows reads
        only the columns one of its rows sets (BLAS has no sparse product; scipy's needs the
        nonzeros found first, which costs more than the product): the same sums without the
        zero terms, in a third to a half of the time on such a batch
        (benchmarks/sparta_speed.py)."""
        w, b = self.layers[0]
        if x.ndim != 2 or x.shape[0] < SPARSE_BATCH or x.dtype != np.float32:
            return x @ w.T + b
        out = np.empty((x.shape[0], w.shape[0]), dtype=np.float32)
        for start in range(0, x.shape[0], SPARSE_BLOCK):
            block, rows = x[start:start + SPARSE_BLOCK], out[start:start + SPARSE_BLOCK]
            cols = np.flatnonzero(block.any(axis=0))
            if cols.size > SPARSE_SHARE * x.shape[1]:
                np.matmul(block, w.T, out=rows)
            else:  # (the weights gathered at every call: a learner's change under it)
                np.matmul(block[:, cols], w[:, cols].T, out=rows)
        out += b
        return out

    def logits(self, x: np.ndarray) -> np.ndarray:
        """The action logits of one input vector ``(in,)`` or of a batch ``(B, in)``."""
        w, b = self.layers[-1]
        return self.hidden_np(x) @ w.T + b

    # --- torch ----------------------------------------------------------------------------
    def tensors(self) -> list:
        """The weights as torch tensors sharing the arrays' memory (made once)."""
        if self._tensors is None:
            import torch

            self._tensors = [torch.from_numpy(a) for layer in self.layers for a in layer]
        return self._tensors

    def hidden_torch(self, x):
        import torch

        act = torch.tanh if self.activation == "tanh" else torch.relu
        t = self.tensors()
        for i in range(len(self.layers) - 1):
            x = act(torch.addmm(t[2 * i + 1], x, t[2 * i].T))
        return x

    def head_torch(self, h):
        import torch

        t = self.tensors()
        return torch.addmm(t[-1], h, t[-2].T)

    def logits_torch(self, x):
        return self.head_torch(self.hidden_torch(x))
