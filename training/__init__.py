"""Self-play training for every CatZoo game (needs the ``train`` extra).

``load_policy(path)`` loads a policy checkpoint (safetensors + JSON, never pickle) as a
``catzoo.policies.base.Policy``; it needs numpy and safetensors only. Training itself
(``catzoo.training.trainer``, ``catzoo train``) needs torch, SB3 and sb3-contrib.
"""

from catzoo.training.checkpoint import CheckpointError, load_policy, read_meta, save_policy

__all__ = ["CheckpointError", "load_policy", "read_meta", "save_policy"]
