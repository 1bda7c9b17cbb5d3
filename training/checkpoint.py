"""Policy checkpoints: a directory holding ``policy.safetensors`` and ``policy.json``.

Loading reads those two files and nothing else, through parsers that cannot run code
(JSON, and safetensors, whose format is a JSON header followed by raw tensor bytes): a
checkpoint from a stranger can at worst fail to load, never execute anything. The SB3
``.zip`` (which holds pickles) stays inside run directories, for resuming only.

Writes are atomic: the files are written and flushed into a temporary sibling directory
that is then renamed into place, so a killed process leaves either the previous
checkpoint or the new one, never a half-written one.

The policies shipped with CatZoo are package data (``catzoo.checkpoints``, the
repository's ``checkpoints/GAME/``): ``shipped:GAME`` names one from any working
directory, in ``load_policy`` and in every command's policy spec (``resolve``).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from catzoo.games import safe_json
from catzoo.training.policy_net import ACTIVATIONS, MLPPolicy, expected_shapes

FORMAT = 1
WEIGHTS = "policy.safetensors"
META = "policy.json"
REQUIRED = ("format", "game", "env_version", "num_players", "env_options", "reward",
            "observation_size", "num_actions", "architecture", "weights_sha256")
MAX_WEIGHTS_BYTES = 512 * 2**20
# policy.json holds names, sizes and a few figures (a few KB): anything past this is refused
# before it is parsed (a 20 MB one cost 430 MB of memory to parse).
MAX_META_BYTES = 2**20
# The type of each required field (bool is refused where an int is wanted); the
# architecture is checked whole by load_policy.
FIELD_TYPES = {"format": int, "game": str, "env_version": int, "num_players": int,
               "env_options": dict, "reward": str, "observation_size": int,
               "num_actions": int, "weights_sha256": str}
SHIPPED = "shipped:"


class CheckpointError(ValueError):
    """A checkpoint that cannot be loaded; the message says which file and why."""


class _Unreadable(Exception):
    pass


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` atomically (temporary file, fsync, rename)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def save_policy(path: str | Path, weights: dict[str, np.ndarray], meta: dict) -> Path:
    """Write a policy checkpoint directory at ``path`` atomically; ``meta`` must hold every
    key of ``REQUIRED`` except ``format`` and ``weights_sha256``, which are filled in."""
    from safetensors.numpy import save

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    blob = save({k: np.ascontiguousarray(v, dtype=np.float32) for k, v in weights.items()})
    meta = {"format": FORMAT, **meta, "weights_sha256": hashlib.sha256(blob).hexdigest()}
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise ValueError(f"checkpoint metadata lacks {', '.join(missing)}")
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.tmp-"))
    try:
        for name, data in ((WEIGHTS, blob), (META, json.dumps(meta, indent=2).encode())):
            with open(tmp / name, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        _fsync_dir(tmp)
        if path.exists():
            # A directory cannot be replaced in one rename: move the old one aside first.
            old = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.old-"))
            os.rename(path, old / "x")
            os.rename(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, path)
        _fsync_dir(path.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def shipped_root() -> Path | None:
    """The folder of the shipped checkpoints inside the installed package (None when the
    package was installed without them)."""
    from importlib import resources

    try:
        root = Path(str(resources.files("catzoo.checkpoints")))
    except ModuleNotFoundError:
        return None
    return root if root.is_dir() else None


def shipped_games() -> list[str]:
    """The games with a policy shipped in the package (``shipped:GAME`` loads it)."""
    root = shipped_root()
    if root is None:
        return []
    return sorted(p.name for p in root.iterdir() if (p / META).is_file())


def resolve(spec: str | Path) -> Path:
    """The checkpoint directory a spec names: ``shipped:GAME`` (the policy shipped with
    CatZoo for GAME, from any working directory) or a path."""
    text = str(spec)
    if not text.startswith(SHIPPED):
        return Path(spec)
    from catzoo.games.suggest import did_you_mean

    game = text[len(SHIPPED):].strip().replace("-", "_")
    games = shipped_games()
    root = shipped_root()
    if game not in games or root is None:
        raise CheckpointError(
            f"no shipped policy {game!r}{did_you_mean(game, games)}; CatZoo ships "
            + (", ".join(SHIPPED + g for g in games) if games else "none in this installation"))
    return root / game


def read_meta(path: str | Path) -> dict:
    """The checked JSON metadata of the checkpoint at ``path`` (a directory, or a
    ``shipped:GAME`` spec)."""
    path = resolve(path)
    if path.is_file() and path.name in (META, WEIGHTS):
        path = path.parent
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {str(path)!r}: the directory does not exist")
    if not path.is_dir():
        raise CheckpointError(
            f"{str(path)!r} is not a checkpoint directory (expected a directory holding "
            f"{WEIGHTS} and {META})"
        )
    for name in (META, WEIGHTS):
        if not (path / name).is_file():
            raise CheckpointError(f"checkpoint {str(path)!r} is missing {name}")
    where = f"checkpoint {str(path)!r}"
    try:
        meta = safe_json.load_file(path / META, limit=MAX_META_BYTES, source="it",
                                   error=_Unreadable)
    except _Unreadable as err:
        raise CheckpointError(f"{where}: {META} is corrupt ({err})") from None
    if not isinstance(meta, dict):
        raise CheckpointError(f"{where}: {META} is corrupt (not a JSON object)")
    missing = [k for k in REQUIRED if k not in meta]
    if missing:
        raise CheckpointError(f"{where}: {META} lacks {', '.join(missing)}")
    for key, kind in FIELD_TYPES.items():
        value = meta[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise CheckpointError(f"{where}: {META} field {key!r} must be a "
                                  f"{'JSON object' if kind is dict else kind.__name__}, "
                                  f"got {type(value).__name__}")
    if meta["format"] != FORMAT:
        raise CheckpointError(
            f"checkpoint {str(path)!r} has format {meta['format']!r}; this CatZoo reads {FORMAT}"
        )
    return meta


def check_fits(meta: dict, game: str | None = None, num_players: int | None = None,
               env_options: dict | None = None, where: str = "checkpoint") -> None:
    """Whether a checkpoint (its ``policy.json``) may play ``game`` with ``num_players``
    under ``env_options`` (the table's options; None: not checked): the one place that
    decides it, for ``load_policy`` and so for the arena, play, serve and the oracle.

    The game, player count, env version and observation and action sizes must be the
    checkpoint's, and every option that changes the game too: only the options that
    change what an observation holds (``observation_options``, the ledges aiming
    features) may differ, since the policy re-encodes those itself. Raises
    ``CheckpointError`` naming what differs.
    """
    from catzoo.games.base import OptionsError, options_from_json
    from catzoo.games.registry import GAMES

    if meta["game"] not in GAMES:
        raise CheckpointError(f"{where} is for game {meta['game']!r}, which is not installed "
                              f"(installed: {', '.join(GAMES)})")
    if game is not None and game.replace("-", "_") != meta["game"]:
        raise CheckpointError(f"{where} is for game {meta['game']!r}, not {game!r}")
    if num_players is not None and num_players != meta["num_players"]:
        raise CheckpointError(
            f"{where} was trained for {meta['num_players']} players, not {num_players}")
    state_cls = GAMES[meta["game"]].engine_class()
    if meta["env_version"] != state_cls.env_version:
        raise CheckpointError(
            f"{where} was trained on {meta['game']} env version {meta['env_version']}, "
            f"the installed env is version {state_cls.env_version}")
    try:
        options = options_from_json(state_cls.options_cls, meta["game"],
                                    {**meta["env_options"], "num_players": meta["num_players"]})
        probe = state_cls.new(options, seed=0)
    except (OptionsError, TypeError) as err:
        raise CheckpointError(f"{where}: its env options are not valid here: {err}") from None
    if env_options is not None:
        # Compare resolved options, so defaults given explicitly on one side still match.
        mine = dataclasses.asdict(options)
        try:
            theirs = dataclasses.asdict(options_from_json(
                state_cls.options_cls, meta["game"],
                {**dict(env_options), "num_players": num_players or meta["num_players"]}))
        except OptionsError as err:
            raise CheckpointError(f"{where}: {err}") from None
        diff = sorted(k for k in mine if mine[k] != theirs.get(k)
                      and k not in state_cls.observation_options)
        if diff:
            raise CheckpointError(
                f"{where} was trained with env options that differ: "
                + ", ".join(f"{k}={mine[k]!r} (checkpoint) vs {theirs.get(k)!r} (table)"
                            for k in diff)
                + "; play it under the options it was trained with (its policy.json)")
    if probe.observation_size != meta["observation_size"]:
        raise CheckpointError(
            f"{where} expects observations of size {meta['observation_size']}; the installed "
            f"{meta['game']} env produces {probe.observation_size} with these options")
    if probe.num_actions != meta["num_actions"]:
        raise CheckpointError(
            f"{where} expects {meta['num_actions']} actions; the installed env has "
            f"{probe.num_actions}")


def load_policy(path: str | Path, *, game: str | None = None, num_players: int | None = None,
                env_options: dict | None = None, deterministic: bool = True,
                seed: int | None = None) -> MLPPolicy:
    """Load a policy checkpoint as a ``Policy`` usable in training, the arena and play:
    ``path`` is its directory or ``shipped:GAME`` (the policy shipped with CatZoo).

    ``game``, ``num_players`` and ``env_options``, when given, must match the ones the
    checkpoint was trained with. The installed env must have the checkpoint's env version
    and observation size. Every failure raises ``CheckpointError`` saying what is wrong.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load

    spec, path = path, resolve(path)
    meta = read_meta(path)
    if path.is_file():
        path = path.parent
    shipped = str(spec).startswith(SHIPPED)
    where = f"checkpoint {str(spec) if shipped else str(path)!r}"
    check_fits(meta, game, num_players, env_options, where)
    arch = meta["architecture"]
    if (not isinstance(arch, dict) or arch.get("type") != "mlp"
            or arch.get("activation") not in ACTIVATIONS
            or not isinstance(arch.get("hidden"), list)
            or not all(isinstance(h, int) and h > 0 for h in arch["hidden"])):
        raise CheckpointError(f"{where}: unsupported architecture {arch!r} in {META}")
    size = (path / WEIGHTS).stat().st_size
    if size > MAX_WEIGHTS_BYTES:
        raise CheckpointError(f"{where}: {WEIGHTS} is {size} bytes, larger than any CatZoo policy")
    blob = (path / WEIGHTS).read_bytes()
    if hashlib.sha256(blob).hexdigest() != meta["weights_sha256"]:
        raise CheckpointError(
            f"{where}: {WEIGHTS} does not match the SHA-256 recorded in {META} "
            "(the file was truncated, corrupted or replaced)")
    try:
        weights = load(blob)
    except (SafetensorError, ValueError, OSError) as err:
        raise CheckpointError(f"{where}: {WEIGHTS} is not a valid safetensors file ({err})") from None
    shapes = expected_shapes(meta["observation_size"], meta["num_actions"], arch["hidden"])
    if set(weights) != set(shapes):
        raise CheckpointError(
            f"{where}: {WEIGHTS} holds tensors {sorted(weights)}, expected {sorted(shapes)}")
    for k, shape in shapes.items():
        if weights[k].shape != shape or weights[k].dtype != np.float32:
            raise CheckpointError(
                f"{where}: tensor {k} has shape {weights[k].shape} {weights[k].dtype}, "
                f"expected {shape} float32 (architecture {arch})")
        if not np.all(np.isfinite(weights[k])):
            raise CheckpointError(f"{where}: tensor {k} holds NaN or infinite values")
    name = str(spec) if shipped else f"checkpoint:{path.name}"
    return MLPPolicy(weights, arch["hidden"], arch["activation"], deterministic=deterministic,
                     seed=seed, name=name, meta=meta)


# --- training state: what a run resumes from, without pickle -------------------------------
# A trainer's state (weights, optimizer moments, counters, random generators) is a tree of
# dicts, lists, tuples, scalars and arrays. It is written as safetensors (the arrays) plus
# JSON (the tree, each array replaced by its name), the two formats a policy checkpoint
# already uses, so resuming a run directory from a stranger can at worst fail, never run
# code (SB3's own .zip holds pickles). Dict keys keep their type (optimizer states are keyed
# by int), so dicts are written as lists of [key, value] pairs.
TRAINER_TENSORS = "trainer.safetensors"
TRAINER_STATE = "trainer.json"
TRAINER_FORMAT = 1
MAX_TRAINER_BYTES = 4 * MAX_WEIGHTS_BYTES  # weights, two Adam moments and some
MAX_TRAINER_JSON_BYTES = 16 * 2**20


def pack_state(obj) -> tuple[object, dict[str, np.ndarray]]:
    """``obj`` as a JSON tree and the arrays (numpy or torch) it holds, by name."""
    tensors: dict[str, np.ndarray] = {}

    def pack(value):
        if value is None or isinstance(value, (bool, int, str)):
            return value
        if isinstance(value, float):
            if not np.isfinite(value):
                return {"float": repr(value)}  # JSON has no NaN or infinity
            return value
        if isinstance(value, np.generic):
            return pack(value.item())
        if isinstance(value, np.ndarray) or hasattr(value, "detach"):
            name = f"t{len(tensors)}"
            kind = "numpy" if isinstance(value, np.ndarray) else "torch"
            array = value if kind == "numpy" else value.detach().cpu().numpy()
            tensors[name] = np.array(array, copy=True, order="C")  # keeps 0-d arrays 0-d
            return {"tensor": name, "kind": kind}
        if isinstance(value, dict):
            return {"dict": [[pack(k), pack(v)] for k, v in value.items()]}
        if isinstance(value, tuple):
            return {"tuple": [pack(v) for v in value]}
        if isinstance(value, list):
            return [pack(v) for v in value]
        raise TypeError(f"cannot write a {type(value).__name__} into a training state")

    return pack(obj), tensors


def unpack_state(tree, tensors: dict[str, np.ndarray], as_torch=None):
    """The inverse of ``pack_state``; ``as_torch`` turns arrays written from torch tensors
    back into tensors (``torch.from_numpy``). A malformed tree raises ``CheckpointError``."""

    def unpack(value):
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, list):
            return [unpack(v) for v in value]
        if isinstance(value, dict) and len(value) in (1, 2):
            if "tensor" in value:
                array = tensors.get(value["tensor"])
                if array is None:
                    raise CheckpointError(f"{TRAINER_STATE} names a tensor "
                                          f"{value['tensor']!r} that {TRAINER_TENSORS} lacks")
                return as_torch(array) if value.get("kind") == "torch" and as_torch else array
            if "dict" in value and isinstance(value["dict"], list):
                pairs = [unpack(p) for p in value["dict"]]
                if not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                    raise CheckpointError(f"{TRAINER_STATE}: a mapping is not a list of pairs")
                return {k: v for k, v in pairs}
            if "tuple" in value and isinstance(value["tuple"], list):
                return tuple(unpack(v) for v in value["tuple"])
            if value.get("float") in ("nan", "inf", "-inf"):
                return float(value["float"])
        raise CheckpointError(f"{TRAINER_STATE}: unexpected value {str(value)[:80]!r}")

    try:
        return unpack(tree)
    except RecursionError:
        raise CheckpointError(f"{TRAINER_STATE} is nested too deeply") from None


def save_trainer_state(directory: str | Path, state) -> None:
    """Write ``state`` into ``directory`` (which exists) as TRAINER_TENSORS + TRAINER_STATE,
    each flushed to disk; the JSON holds the tensors' SHA-256."""
    from safetensors.numpy import save

    directory = Path(directory)
    tree, tensors = pack_state(state)
    blob = save(tensors)
    record = {"format": TRAINER_FORMAT, "tensors_sha256": hashlib.sha256(blob).hexdigest(),
              "state": tree}
    for name, data in ((TRAINER_TENSORS, blob), (TRAINER_STATE, json.dumps(record).encode())):
        with open(directory / name, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())


def load_trainer_state(directory: str | Path, as_torch=None):
    """The state ``save_trainer_state`` wrote in ``directory``; every size is bounded and
    the tensors must match their recorded SHA-256, else ``CheckpointError``."""
    from safetensors import SafetensorError
    from safetensors.numpy import load

    directory = Path(directory)
    where = f"training checkpoint {str(directory)!r}"
    for name in (TRAINER_STATE, TRAINER_TENSORS):
        if not (directory / name).is_file():
            raise CheckpointError(f"{where} is missing {name}")
    try:
        record = safe_json.load_file(directory / TRAINER_STATE, limit=MAX_TRAINER_JSON_BYTES,
                                     source="it", error=_Unreadable)
    except _Unreadable as err:
        raise CheckpointError(f"{where}: {TRAINER_STATE} is corrupt ({err})") from None
    if (not isinstance(record, dict) or record.get("format") != TRAINER_FORMAT
            or not isinstance(record.get("tensors_sha256"), str) or "state" not in record):
        raise CheckpointError(f"{where}: {TRAINER_STATE} is not a CatZoo training state "
                              f"(format {TRAINER_FORMAT})")
    size = (directory / TRAINER_TENSORS).stat().st_size
    if size > MAX_TRAINER_BYTES:
        raise CheckpointError(f"{where}: {TRAINER_TENSORS} is {size} bytes, more than any "
                              "CatZoo training state")
    blob = (directory / TRAINER_TENSORS).read_bytes()
    if hashlib.sha256(blob).hexdigest() != record["tensors_sha256"]:
        raise CheckpointError(f"{where}: {TRAINER_TENSORS} does not match the SHA-256 "
                              f"recorded in {TRAINER_STATE} (truncated, corrupted or replaced)")
    try:
        tensors = load(blob)
    except (SafetensorError, ValueError, OSError) as err:
        raise CheckpointError(f"{where}: {TRAINER_TENSORS} is not valid safetensors ({err})") \
            from None
    try:
        return unpack_state(record["state"], tensors, as_torch)
    except CheckpointError as err:
        raise CheckpointError(f"{where}: {err}") from None


# --- checkpoint directories: atomic, and what a kill leaves behind --------------------------
TEMPORARY_PREFIX = ".tmp-"


def write_directory(final: str | Path, write) -> Path:
    """Build the directory ``final`` atomically: ``write(tmp)`` fills a temporary sibling
    (``.tmp-<name>-<pid>``), which is renamed into place once complete. On any failure (a
    full disk) the temporary directory is removed and the error raised; a kill leaves it
    behind, and ``remove_temporaries`` clears it at the next start."""
    final = Path(final)
    tmp = final.parent / f"{TEMPORARY_PREFIX}{final.name}-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir()
        write(tmp)
        _fsync_dir(tmp)
        os.rename(tmp, final)
        _fsync_dir(final.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def remove_temporaries(directory: str | Path) -> list[str]:
    """Remove what interrupted atomic writes left in ``directory`` (``.tmp-*`` checkpoint
    directories, ``save_policy``'s ``.<name>.tmp-*`` and ``.<name>.old-*``, and
    ``atomic_write_text``'s ``.<name>.*.tmp``): never complete, so never resumed from.
    Returns their names."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    removed = []
    for entry in directory.iterdir():
        name = entry.name
        if name.startswith(TEMPORARY_PREFIX) or (name.startswith(".") and (
                ".tmp-" in name or ".old-" in name or name.endswith(".tmp"))):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
            removed.append(name)
    return sorted(removed)
