"""The arena's rounds as Ray tasks: ``run_arena(..., backend="ray")``, ``catzoo arena --ray``.

Every game is a pure function of its seating (see runner.py), so the cluster may play the
rounds anywhere, in any order, and as often as it must: the driver commits results in game
order and the table is the one ``--workers 1`` prints. Policies travel as data, never as
pickled objects: a spec string, or a checkpoint directory's JSON and safetensors files (as
bytes) that the worker writes to a private folder and loads as the spec of that folder
(``load_policy``), so the loader's checks (SHA-256, shapes, env version) run where it plays.

A task holds whole rounds. A worker that dies loses only the rounds of the task it was
playing: Ray runs that task again elsewhere (``max_retries``) and, the games being pure,
the retry returns the same records. A policy failure is not an exception in Ray's sense
but a report returned by the task, so it is never retried and stops the arena as locally.

Ray conventions: ``address`` is passed to ``ray.init`` (``None``: Ray's own default, which
honours ``RAY_ADDRESS`` or starts a local instance; ``"auto"``, ``"ray://host:10001"``...).
A Ray already initialised by the caller is used as it is and left running; a connection
or an instance this module made is shut down when the arena ends.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import tempfile
import uuid
from pathlib import Path

from catzoo.arena.runner import Lineup, SeatedPolicies, progress_and_estimate
from catzoo.arena.schedule import ArenaSetupError, Seating

# A checkpoint travels as its data files: the weights (safetensors) and the metadata (JSON),
# formats that hold no code; whatever else its folder holds stays behind.
CHECKPOINT_SUFFIXES = (".json", ".safetensors")
TASK_RETRIES = 5  # a task whose worker died is run again up to this many times
GAMES_PER_TASK = 8  # at most (whole rounds may make a task longer): see chunks()
# per worker process: lineup key -> its policies and their checkpoints' private folder
_SEATED: dict[str, tuple[SeatedPolicies, str | None]] = {}


def ray_available() -> bool:
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def _require_ray():
    try:
        import ray
    except ImportError:
        raise ArenaSetupError("the Ray backend needs Ray: pip install 'catzoo[ray]'") from None
    return ray


# --- what travels ---------------------------------------------------------------------------
def ship_lineup(lineup: Lineup) -> dict:
    """The lineup as plain data: spec strings, and checkpoints as their files' bytes."""
    from catzoo.policies.base import Policy
    from catzoo.policies.registry import HEURISTICS, SEARCH, is_checkpoint_spec

    bots = set(HEURISTICS.get(lineup.game, {})) | set(SEARCH) | {"random"}
    shipped = []
    for spec, name in zip(lineup.policies, lineup.names):
        if isinstance(spec, Policy):
            raise ArenaSetupError(
                f"policy {name!r} is a Python object: the Ray backend ships policies as data "
                "(a spec, a checkpoint directory, or a bot class by import path "
                "package.module:Class), never pickled; save it as a checkpoint "
                "(catzoo.training.checkpoint.save_policy) or pass its spec")
        head = spec.partition(":")[0].strip()
        if head not in bots and is_checkpoint_spec(spec) and os.path.isdir(spec):
            # run_arena has loaded it once already (a clear error there, not on a worker).
            folder = Path(spec)
            files = {f.name: f.read_bytes() for f in sorted(folder.iterdir())
                     if f.is_file() and f.suffix in CHECKPOINT_SUFFIXES}
            shipped.append({"checkpoint": {"name": folder.resolve().name, "files": files}})
        else:
            shipped.append({"spec": spec})
    return {"game": lineup.game, "num_players": lineup.num_players, "names": list(lineup.names),
            "options": dict(lineup.options), "seed": lineup.seed, "policies": shipped}


def _unpack(wire: dict) -> tuple[Lineup, str | None]:
    """On a worker: the lineup with checkpoints written to a private folder (removed when
    the lineup's policies are dropped or the process exits)."""
    folder = None
    specs = []
    for k, item in enumerate(wire["policies"]):
        if "spec" in item:
            specs.append(item["spec"])
            continue
        if folder is None:
            folder = tempfile.mkdtemp(prefix="catzoo-arena-")
            atexit.register(shutil.rmtree, folder, True)
        ckpt = Path(folder) / f"{k}-{item['checkpoint']['name']}"
        ckpt.mkdir()
        for name, data in item["checkpoint"]["files"].items():
            if Path(name).name != name or Path(name).suffix not in CHECKPOINT_SUFFIXES:
                raise ValueError(f"checkpoint file name {name!r} is not a plain data file")
            (ckpt / name).write_bytes(data)
        specs.append(str(ckpt))
    lineup = Lineup(wire["game"], wire["num_players"], specs, list(wire["names"]),
                    dict(wire["options"]), wire["seed"])
    return lineup, folder


def play_rounds(wire: dict, key: str, chunk: list[Seating]) -> tuple[list[dict], dict | None]:
    """The Ray task: the chunk's records in order, and the failure report that stopped it.
    The seated policies (one per policy and seat, as locally) stay in the worker for the
    arena's later tasks."""
    if key not in _SEATED:
        for old in list(_SEATED):  # one arena at a time per worker: drop the previous ones
            _, folder = _SEATED.pop(old)
            if folder:
                shutil.rmtree(folder, ignore_errors=True)
        lineup, folder = _unpack(wire)
        _SEATED[key] = (SeatedPolicies(lineup), folder)
    return _SEATED[key][0].play_chunk(chunk)


def chunks(seatings: list[Seating], cpus: int) -> list[list[Seating]]:
    """Whole rounds per task, about as many games as the local workers' chunks hold."""
    size = max(1, min(GAMES_PER_TASK, len(seatings) // (cpus * 8)))
    out: list[list[Seating]] = []
    for s in seatings:
        if out and (len(out[-1]) < size or out[-1][-1].round == s.round):
            out[-1].append(s)
        else:
            out.append([s])
    return out


# --- the driver ---------------------------------------------------------------------------------
def init_local(ray, **kwargs) -> None:
    """``ray.init(**kwargs)`` starting a local instance whose workers run at the caller's
    priority. Ray starts its workers at nice 15 (``RAY_worker_niceness``), so beside any
    other busy process (a test worker, another run) they get a thirtieth of a core and a
    run takes many times as long. A value the user set stays."""
    os.environ.setdefault("RAY_worker_niceness", "0")
    ray.init(**kwargs)


def join(ray, address: str | None) -> None:
    """``ray.init(address=address)``, a running cluster; ``ArenaSetupError`` in one line
    when none is there. A ``host:port`` nothing listens on is found out at once: Ray
    itself retries such an address for minutes."""
    where = address or os.environ.get("RAY_ADDRESS", "")
    fix = ("start one with `ray start --head` (then --ray auto), or give --ray no address "
           "to start a local instance for this arena")
    target = where.removeprefix("ray://")
    host, _, port = target.rpartition(":")
    if host and port.isdigit():
        try:
            socket.create_connection((host.strip("[]"), int(port)), timeout=5).close()
        except OSError as err:
            raise ArenaSetupError(f"no Ray cluster at {where!r} ({err.strerror or err}): "
                                  f"{fix}") from None
    try:
        ray.init(address=address)
    except ConnectionError:
        raise ArenaSetupError(f"no Ray cluster at {where or 'auto'!r} (none answered): "
                              f"{fix}") from None


@contextlib.contextmanager
def connection(address: str | None, num_cpus: int | None):
    """Ray, connected: the caller's, or one made here (and shut down on the way out).
    ``num_cpus`` sizes a local instance started here; an existing cluster has its own."""
    ray = _require_ray()
    if ray.is_initialized():
        yield ray, False
        return
    joins = address not in (None, "local") or (address is None and os.environ.get("RAY_ADDRESS"))
    if joins:
        join(ray, address)
    else:
        init_local(ray, address=address, **({} if num_cpus is None else {"num_cpus": num_cpus}))
    try:
        yield ray, True
    finally:
        ray.shutdown()


def play_all_ray(lineup: Lineup, seatings: list[Seating], workers: int | None = None,
                 address: str | None = None, progress: bool = True, on_start=None,
                 estimate=None):
    """Records in game order, the failure report that stopped them, and the CPUs used.

    ``workers``: the CPUs of a local instance started here; on a running cluster, the most
    tasks in flight at once (default: the cluster's CPUs). ``on_start()`` is called once
    connected, before the first task (the arena times its games from there);
    ``estimate(text)`` as for the local arena (runner.play_all).
    """
    wire = ship_lineup(lineup)
    with connection(address, workers) as (ray, _):
        cluster = int(ray.cluster_resources().get("CPU", 1))
        cpus = min(workers, cluster) if workers else cluster
        # Twice the CPUs in flight keeps every one busy between a result and the next task;
        # a cap below the cluster's CPUs is a cap.
        window = cpus if workers and cluster > workers else cpus * 2
        task = ray.remote(num_cpus=1, max_retries=TASK_RETRIES, retry_exceptions=False)(
            play_rounds)
        wire_ref = ray.put(wire)
        key = uuid.uuid4().hex
        parts = chunks(seatings, cpus)
        if on_start is not None:
            on_start()
        bar, clock = progress_and_estimate(len(seatings), lineup.game, cpus, progress,
                                           estimate)
        records, failure = _drive(ray, task, wire_ref, key, parts, window, bar, clock)
    return records, failure, cpus


def _drive(ray, task, wire_ref, key, parts, window, bar, clock):
    records: list[dict] = []
    failure = None
    pending: dict = {}  # ref -> part index
    done: dict[int, tuple] = {}
    submitted = committed = 0
    try:
        while committed < len(parts) and failure is None:
            while submitted < len(parts) and len(pending) < window:
                pending[task.remote(wire_ref, key, parts[submitted])] = submitted
                submitted += 1
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                index = pending.pop(ref)
                try:
                    done[index] = ray.get(ref)
                except ray.exceptions.RayTaskError as err:
                    # A worker that cannot seat a policy (a bot's module missing on that
                    # node...): raise what it raised, as the local arena would.
                    raise err.as_instanceof_cause() from None
            while committed in done and failure is None:
                got, failure = done.pop(committed)
                records.extend(got)
                bar.update(len(got))
                clock.update(len(records))
                committed += 1
    finally:
        for ref in pending:  # after a failure (or an interrupt): the rounds not needed
            ray.cancel(ref)
        bar.close()
    return records, failure

