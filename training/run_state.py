"""A training run's resumable state as safetensors + JSON, with no pickle anywhere.

``save_state(dir, tensors, info)`` writes ``state.safetensors`` (network weights, the
optimizer's moment estimates, torch's generator state) and ``state.json`` (counters, the
league, numpy's generator state, the optimizer's hyper-parameters) into a temporary
sibling directory renamed into place, so a kill leaves the previous state or the new one.
``load_state`` reads them back through parsers that cannot run code, refusing files larger
than any run writes.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np
import torch

TENSORS = "state.safetensors"
INFO = "state.json"
MAX_INFO_BYTES = 16 * 2**20
MAX_TENSOR_BYTES = 2 * 2**30


class StateError(ValueError):
    """A run state that cannot be read back, naming the file and why."""


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def save_state(path: str | Path, tensors: dict[str, torch.Tensor], info: dict) -> Path:
    from safetensors.torch import save

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = save({k: v.detach().cpu().contiguous() for k, v in tensors.items()})
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".tmp-{path.name}-"))
    try:
        for name, data in ((TENSORS, blob), (INFO, json.dumps(info).encode())):
            with open(tmp / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        _fsync_dir(tmp)
        if path.exists():
            shutil.rmtree(path)
        os.rename(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def load_state(path: str | Path) -> tuple[dict[str, torch.Tensor], dict]:
    from safetensors import SafetensorError
    from safetensors.torch import load

    path = Path(path)
    for name, limit in ((INFO, MAX_INFO_BYTES), (TENSORS, MAX_TENSOR_BYTES)):
        f = path / name
        if not f.is_file():
            raise StateError(f"run state {str(path)!r} is missing {name}")
        if f.stat().st_size > limit:
            raise StateError(f"run state {str(path)!r}: {name} is larger than any run writes")
    try:
        info = json.loads((path / INFO).read_text())
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise StateError(f"run state {str(path)!r}: {INFO} is not valid JSON ({err})") from None
    if not isinstance(info, dict):
        raise StateError(f"run state {str(path)!r}: {INFO} is not a JSON object")
    try:
        tensors = load((path / TENSORS).read_bytes())
    except (SafetensorError, ValueError, OSError) as err:
        raise StateError(f"run state {str(path)!r}: {TENSORS} is not valid ({err})") from None
    return tensors, info


# --- the optimizer's state, flattened ------------------------------------------------------------
def optimizer_tensors(opt: torch.optim.Optimizer) -> tuple[dict[str, torch.Tensor], dict]:
    """Adam's per-parameter tensors as named tensors, the rest (hyper-parameters) as JSON."""
    sd = opt.state_dict()
    tensors = {}
    for index, per in sd["state"].items():
        for key, value in per.items():
            tensors[f"optimizer.{index}.{key}"] = torch.as_tensor(value)
    return tensors, {"param_groups": sd["param_groups"]}


def load_optimizer(opt: torch.optim.Optimizer, tensors: dict[str, torch.Tensor],
                   info: dict) -> None:
    state: dict[int, dict] = {}
    for name, value in tensors.items():
        if name.startswith("optimizer."):
            _, index, key = name.split(".", 2)
            state.setdefault(int(index), {})[key] = value
    opt.load_state_dict({"state": state, "param_groups": info["param_groups"]})


# --- generators ----------------------------------------------------------------------------------------
def numpy_rng_state(rng: np.random.Generator) -> dict:
    return dict(rng.bit_generator.state)


def numpy_rng_from(state: dict) -> np.random.Generator:
    bits = getattr(np.random, state["bit_generator"])()
    bits.state = state
    return np.random.Generator(bits)
