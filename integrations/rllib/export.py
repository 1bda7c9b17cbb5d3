"""An RLlib-trained ``MaskedMLPModule`` as a CatZoo policy checkpoint (safetensors + JSON).

The module's actor is the MLP a checkpoint stores, layer for layer: ``pi.{i}.weight``/
``.bias`` for the hidden layers, ``action.weight``/``.bias`` for the logits. The
checkpoint is written by ``save_policy`` (atomically) and reads back with ``load_policy``
as any CatZoo policy: the arena, the terminal and the browser table play it, with numpy
alone.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from catzoo.training.checkpoint import save_policy


def actor_weights(state: dict) -> dict[str, np.ndarray]:
    """The actor's arrays from a ``MaskedMLPModule`` state dict (``module.get_state()``,
    tensors or arrays keyed ``pi.<layer index>.weight``...)."""
    layers = sorted({int(k.split(".")[1]) for k in state if k.startswith("pi.")})
    if not layers:
        raise ValueError("the module state holds no actor layers (pi.*): not a MaskedMLPModule")
    out: dict[str, np.ndarray] = {}
    for i, index in enumerate(layers):
        name = "action" if i == len(layers) - 1 else f"pi.{i}"
        for part in ("weight", "bias"):
            value = state[f"pi.{index}.{part}"]
            if isinstance(value, torch.Tensor):
                value = value.detach().cpu().numpy()
            out[f"{name}.{part}"] = np.asarray(value, dtype=np.float32)
    return out


def export_policy(module_or_state, path: str | Path, meta: dict) -> Path:
    """Write the checkpoint at ``path``; ``meta`` as ``catzoo.training.run_dir.policy_meta``
    makes it (game, env version, players, options, sizes, architecture...)."""
    state = module_or_state if isinstance(module_or_state, dict) else module_or_state.get_state()
    weights = actor_weights(state)
    hidden = [weights[f"pi.{i}.bias"].shape[0] for i in range(len(weights) // 2 - 1)]
    if hidden != list(meta["architecture"]["hidden"]):
        raise ValueError(f"the module's hidden layers {hidden} are not the architecture "
                         f"{meta['architecture']} of the metadata")
    return save_policy(path, weights, meta)
