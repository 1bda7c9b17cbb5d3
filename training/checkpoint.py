"""Policy checkpoints: a directory holding ``policy.safetensors`` and ``policy.json``.

Loading reads those two files and nothing else, through parsers that cannot run code
(JSON, and safetensors, whose format is a JSON header followed by raw tensor bytes): a
checkpoint from a stranger can at worst fail to load, never execute anything. The SB3
``.zip`` (which holds pickles) stays inside run directories, for resuming only.

Writes are atomic: the files are written and flushed into a temporary sibling directory
that is then renamed into place, so a killed process leaves either the previous
checkpoint or the new one, never a half-written one.

The policies shipped with CatZoo are package data (``catzoo.checkpoints``, the
repository's ``checkpoints/GAME/<N>p/``, one per player count): ``shipped:GAME`` names
the one for the table's player count from any working directory, in ``load_policy`` and
in every command's policy spec (``resolve``); ``shipped:GAME:Np`` names a count itself.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import numpy as np

from catzoo.games import safe_json
from catzoo.policies import features
from catzoo.policies.registry import COUNT_FOLDER
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
# A game's shipped policies sit one folder per player count: GAME/4p/ (COUNT_FOLDER); a spec
# may name the count, shipped:GAME:4p (COUNT_SPEC, the "p" optional).
COUNT_SPEC = re.compile(r"^\s*([1-9][0-9]*)\s*p?\s*$")


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


def counts_in(folder: Path) -> list[int]:
    """The player counts of the checkpoints under ``folder`` in the shipped layout
    (``<N>p/policy.json``), lowest first."""
    if not folder.is_dir():
        return []
    return sorted(int(m.group(1)) for p in folder.iterdir()
                  if (m := COUNT_FOLDER.match(p.name)) and (p / META).is_file())


def shipped_counts(game: str) -> list[int]:
    """The player counts CatZoo ships a policy of ``game`` for (``GAME/<N>p/``), lowest
    first; empty when none is shipped."""
    root = shipped_root()
    return [] if root is None else counts_in(root / game.strip().replace("-", "_"))


def shipped_games() -> list[str]:
    """The games with a policy shipped in the package for at least one player count
    (``shipped:GAME`` loads one)."""
    root = shipped_root()
    if root is None:
        return []
    return sorted(p.name for p in root.iterdir() if counts_in(p))


def default_count(game: str, counts: list[int]) -> int:
    """The count ``shipped:GAME`` means when no table says one: the game's usual count
    (its record's ``default_players``) when shipped, else the lowest shipped."""
    from catzoo.games.registry import GAMES

    info = GAMES.get(game)
    if info is not None and info.default_players in counts:
        return info.default_players
    return counts[0]


def parse_shipped(spec: str) -> tuple[str, int | None]:
    """``"shipped:lunar"`` -> ``("lunar", None)``; ``"shipped:lunar:4p"`` -> ``("lunar", 4)``."""
    game, _, count = str(spec)[len(SHIPPED):].partition(":")
    game = game.strip().replace("-", "_")
    if not count.strip():
        return game, None
    m = COUNT_SPEC.match(count)
    if m is None:
        raise CheckpointError(f"shipped policy spec {str(spec)!r}: after the game comes a "
                              f"player count such as {SHIPPED}{game}:4p, not {count.strip()!r}")
    return game, int(m.group(1))


def _counts_text(counts: list[int]) -> str:
    """``[3, 4, 5]`` -> ``"3, 4 or 5"``."""
    head = ", ".join(map(str, counts[:-1]))
    return f"{head} or {counts[-1]}" if head else str(counts[-1])


def resolve(spec: str | Path, num_players: int | None = None) -> Path:
    """The checkpoint directory a spec names: a path, or ``shipped:GAME``, the policy
    shipped with CatZoo for GAME (from any working directory) at ``num_players``, the
    count of the table it is loaded for (None: ``default_count``'s). ``shipped:GAME:Np``
    names a count itself; whether it fits the table is ``check_fits``'s to say."""
    text = str(spec)
    if not text.startswith(SHIPPED):
        return Path(spec)
    from catzoo.games.suggest import did_you_mean

    game, named = parse_shipped(text)
    games = shipped_games()
    root = shipped_root()
    if game not in games or root is None:
        raise CheckpointError(
            f"no shipped policy {game!r}{did_you_mean(game, games)}; CatZoo ships "
            + (", ".join(SHIPPED + g for g in games) if games else "none in this installation"))
    counts = counts_in(root / game)
    n = named if named is not None else num_players
    if n is None:
        n = default_count(game, counts)
    if n not in counts:
        raise CheckpointError(
            f"CatZoo ships no {game} policy for {n} players: "
            + (f"its {game} policy was" if len(counts) == 1 else f"its {game} policies were")
            + f" trained for {_counts_text(counts)} players, not {n} ("
            + ", ".join(f"{SHIPPED}{game}:{c}p" for c in counts) + ")")
    return root / game / f"{n}p"


def read_meta(path: str | Path, num_players: int | None = None) -> dict:
    """The checked JSON metadata of the checkpoint at ``path`` (a directory, or a
    ``shipped:GAME`` spec, resolved at ``num_players`` as ``resolve`` does)."""
    spec, path = path, resolve(path, num_players)
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
    if str(spec).startswith(SHIPPED):
        # The folder is what picks a shipped policy for a table: a policy.json that says
        # another game or count would seat a policy where its shapes cannot fit.
        folder = f"{path.parent.name}/{path.name}/"
        if (meta["game"], f"{meta['num_players']}p") != (path.parent.name, path.name):
            raise CheckpointError(
                f"{where}: {META} records {meta['game']} at {meta['num_players']} players, "
                f"but it is shipped in {folder}")
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
    ``path`` is its directory or ``shipped:GAME`` (the policy shipped with CatZoo for
    ``num_players``, the default count's without it; ``resolve``).

    ``game``, ``num_players`` and ``env_options``, when given, must match the ones the
    checkpoint was trained with. The installed env must have the checkpoint's env version
    and observation size. Every failure raises ``CheckpointError`` saying what is wrong.
    """
    from safetensors import SafetensorError
    from safetensors.numpy import load

    spec = path
    shipped = str(spec).startswith(SHIPPED)
    count = num_players
    if shipped and game is not None and parse_shipped(str(spec))[0] != game.replace("-", "_"):
        # Another game's policy fits at no count: check_fits says so, rather than that
        # this count is not shipped for it.
        count = None
    path = resolve(spec, count)
    meta = read_meta(spec, count)
    if path.is_file():
        path = path.parent
    where = f"checkpoint {str(spec) if shipped else str(path)!r}"
    check_fits(meta, game, num_players, env_options, where)
    arch = meta["architecture"]
    if (not isinstance(arch, dict) or arch.get("type") != "mlp"
            or arch.get("activation") not in ACTIVATIONS
            or not isinstance(arch.get("hidden"), list)
            or not all(isinstance(h, int) and h > 0 for h in arch["hidden"])):
        raise CheckpointError(f"{where}: unsupported architecture {arch!r} in {META}")
    feature_set = meta.get("features")
    if feature_set is not None:
        try:
            features.get(feature_set, meta["game"])
        except features.FeatureError as err:
            raise CheckpointError(f"{where}: {META} field 'features': {err}") from None
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
    shapes = expected_shapes(
        meta["observation_size"] + features.width(feature_set, meta["num_players"]),
        meta["num_actions"], arch["hidden"])
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
    # A folder named for its player count (GAME/4p) is named with its game's folder.
    name = str(spec) if shipped else "checkpoint:" + (
        f"{path.parent.name}/{path.name}" if COUNT_FOLDER.match(path.name) else path.name)
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


def numpy_rng_state(rng: np.random.Generator) -> dict:
    """A numpy generator's state as plain values (for a training state)."""
    return dict(rng.bit_generator.state)


def numpy_rng_from(state: dict) -> np.random.Generator:
    """The generator ``numpy_rng_state`` recorded; a bad record raises ``ValueError``."""
    name = state.get("bit_generator") if isinstance(state, dict) else None
    if name not in ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64"):
        raise ValueError(f"not a numpy generator state: bit generator {name!r}")
    bits = getattr(np.random, name)()
    bits.state = state
    return np.random.Generator(bits)


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
