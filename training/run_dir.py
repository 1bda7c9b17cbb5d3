"""A training run's directory, the same for every trainer (``ppo``, ``sb3``).

::

    config.yaml        the resolved configuration (every hyper-parameter)
    seeds.json         the seed of the run and of each session (the first and every resume)
    league/            snapshots (policy checkpoints), partner copies, league.json
    checkpoints/       step_XXXXXXXXXX/ (what the trainer writes, and state.json: the step,
                       the league, the CPU seconds so far), latest.json
    logs/              the trainer's CSV rows (train.csv, eval.csv, ...), TensorBoard
                       events, imitation.json (the warm start's figures, when it ran)
    policy/            the final policy checkpoint (safetensors + JSON)

A checkpoint directory is written into a temporary sibling and renamed into place once
complete; ``latest.json`` is then replaced atomically, and only the newest
``KEEP_CHECKPOINTS`` are kept. A run killed at any moment resumes from ``latest()``: the
checkpoint ``latest.json`` names if it is complete, else (a pointer that is missing,
corrupt or names an incomplete directory) the newest complete one. What a kill left
half-written (``.tmp-*``) is removed at the next start and never resumed from. Resuming
from step S drops the log rows written after S, so no row is ever duplicated.

Nothing here is a pickle: every file is JSON, YAML, CSV or safetensors, read through
parsers that cannot run code and refuse files larger than any run writes.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Self

from catzoo.games import safe_json
from catzoo.training import config as config_mod
from catzoo.training.checkpoint import (
    TRAINER_STATE,
    TRAINER_TENSORS,
    atomic_write_text,
    remove_temporaries,
    write_directory,
)
from catzoo.training.league import League

KEEP_CHECKPOINTS = 2
STATE = "state.json"
MAX_RUN_JSON_BYTES = 16 * 2**20


class RunError(ValueError):
    """A run directory that cannot be started or resumed, with the reason."""


def read_json(path: Path):
    return safe_json.load_file(path, limit=MAX_RUN_JSON_BYTES, error=RunError)


def cpu_seconds() -> float:
    """This process's CPU seconds, with its children that have exited."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def next_multiple(step: int, interval: int) -> int:
    """The first multiple of ``interval`` after ``step``: when a periodic task runs next."""
    return (step // interval + 1) * interval


def safe_checkpoint(path: Path) -> bool:
    """A checkpoint written by a trainer of this version: training state as safetensors +
    JSON (checkpoint.save_trainer_state) beside its state.json."""
    return (path / STATE).is_file() and (path / TRAINER_STATE).is_file() and (
        path / TRAINER_TENSORS).is_file()


def _rewrite_csv(path: Path, fields, rows) -> None:
    """Replace a CSV log atomically by ``rows`` under the header ``fields``."""
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
    atomic_write_text(path, out.getvalue())


class RunDir:
    """One run directory: ``create`` a new one or ``open`` one to resume. ``complete``
    says whether a checkpoint directory holds everything its trainer resumes from."""

    def __init__(self, path: str | Path, config: dict,
                 complete: Callable[[Path], bool] = safe_checkpoint):
        self.dir = Path(path)
        self.config = config
        self.complete = complete
        self.ckpt_dir, self.logs = self.dir / "checkpoints", self.dir / "logs"
        self.ckpt_dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.league = League(self.dir / "league")
        seeds = self.dir / "seeds.json"
        self.seeds = read_json(seeds) if seeds.exists() else {"seed": config["seed"],
                                                              "sessions": []}
        imitation = self.logs / "imitation.json"
        self.imitation = read_json(imitation) if imitation.exists() else None
        self.removed: list[str] = []  # what interrupted writes left, cleared at the start
        self.cpu_base, self.cpu_start = 0.0, cpu_seconds()

    @classmethod
    def create(cls, path, config: dict, **kwargs) -> Self:
        return cls(config_mod.new_run_dir(path, config, RunError), config, **kwargs)

    @classmethod
    def open(cls, path, overrides=(), **kwargs) -> Self:
        """A run to resume, with ``overrides`` of the keys a resumed run may change
        (config.RESUMABLE); what a kill or a full disk left half-written goes first (it is
        never resumed from, and on a full disk it holds the space the next writes need)."""
        path = Path(path)
        stored = config_mod.stored_config(path, RunError)
        for o in overrides:
            if not o.split("=", 1)[0].strip().startswith(config_mod.RESUMABLE):
                raise RunError(f"override {o!r} cannot change a run being resumed; only "
                               f"{', '.join(config_mod.RESUMABLE)} can")
        config = config_mod.resolve(stored, overrides)
        removed = [f"{folder}/{name}" for folder in ("checkpoints", "league")
                   for name in remove_temporaries(path / folder)]
        atomic_write_text(path / "config.yaml", config_mod.dump(config))
        run = cls(path, config, **kwargs)
        run.removed = removed
        return run

    def clear_temporaries(self, log=print) -> None:
        """Remove (and say) what interrupted writes left in checkpoints/ and league/."""
        for folder in (self.ckpt_dir, self.league.dir):
            self.removed += [f"{folder.name}/{name}" for name in remove_temporaries(folder)]
        for name in self.removed:
            log(f"removed {name}, left incomplete by an interrupted write")
        self.removed = []

    # --- checkpoints ------------------------------------------------------------------------
    def checkpoints(self) -> list[Path]:
        """The complete checkpoints, oldest first."""
        return sorted(p for p in self.ckpt_dir.glob("step_*") if p.is_dir() and self.complete(p))

    def latest(self, log=None) -> Path | None:
        """The checkpoint to resume from (see the module's docstring), or None."""
        pointer = self.ckpt_dir / "latest.json"
        if pointer.exists():
            try:
                data = read_json(pointer)
            except RunError:
                data = None
            name = data.get("dir") if isinstance(data, dict) else None
            if isinstance(name, str) and name.startswith("step_") and "/" not in name:
                target = self.ckpt_dir / name
                if target.is_dir() and self.complete(target):
                    return target
            done = self.checkpoints()
            if log is not None:
                log(f"warning: {pointer} names no complete checkpoint; "
                    + (f"resuming from the newest complete one, {done[-1].name}" if done
                       else "no complete checkpoint: starting afresh"))
            return done[-1] if done else None
        done = self.checkpoints()
        return done[-1] if done else None

    def checkpoint_state(self, ckpt: Path) -> dict:
        """A checkpoint's state.json: a mapping with its ``step``."""
        state = read_json(ckpt / STATE)
        if isinstance(state, dict) and "step" not in state and isinstance(
                state.get("num_timesteps"), int):
            state["step"] = state["num_timesteps"]  # the SB3 trainer's name before
        if not isinstance(state, dict) or not isinstance(state.get("step"), int) or isinstance(
                state.get("step"), bool):
            raise RunError(f"checkpoint {str(ckpt)!r}: {STATE} is not a checkpoint state")
        return state

    def write_checkpoint(self, step: int, write: Callable[[Path], None], state: dict) -> Path:
        """Write checkpoint ``step``: ``write(tmp)`` fills the directory, ``state`` (the
        step, the league and the CPU seconds are added) becomes its state.json; then
        ``latest.json`` names it and the oldest beyond ``KEEP_CHECKPOINTS`` go."""
        name = f"step_{step:010d}"
        final = self.ckpt_dir / name
        if final.is_dir() and self.complete(final):
            return final
        shutil.rmtree(final, ignore_errors=True)
        record = {**state, "step": step, "league": self.league.data,
                  "cpu_seconds": self.cpu_used()}

        def fill(tmp: Path) -> None:
            write(tmp)
            atomic_write_text(tmp / STATE, json.dumps(record))

        write_directory(final, fill)
        atomic_write_text(self.ckpt_dir / "latest.json", json.dumps({"dir": name, "step": step}))
        for old in sorted(p for p in self.ckpt_dir.glob("step_*") if p.is_dir())[:-KEEP_CHECKPOINTS]:
            shutil.rmtree(old, ignore_errors=True)
        return final

    def done_step(self) -> int | None:
        """The step of the checkpoint a resume starts from (None: a new run)."""
        ckpt = self.latest()
        return None if ckpt is None else self.checkpoint_state(ckpt)["step"]

    # --- sessions and CPU ---------------------------------------------------------------------
    def begin_session(self, step: int, cpu_before: float = 0.0, **seeds) -> tuple[int, int]:
        """Record a new session starting at ``step`` (``seeds``: what it seeded, by name)
        and start its CPU clock on top of ``cpu_before``; returns (session, its seed).
        Each session draws new games: a resumed run does not replay the games it saw."""
        session = len(self.seeds["sessions"])
        seed = self.config["seed"] + 7919 * session
        self.seeds["sessions"].append({"session": session, "start_step": step,
                                       **{k: v(seed) if callable(v) else v
                                          for k, v in seeds.items()}})
        atomic_write_text(self.dir / "seeds.json", json.dumps(self.seeds, indent=1))
        self.cpu_base, self.cpu_start = float(cpu_before), cpu_seconds()
        return session, seed

    def cpu_used(self) -> float:
        """CPU seconds of the whole run so far: the earlier sessions' and this one's."""
        return self.cpu_base + cpu_seconds() - self.cpu_start

    # --- logs -----------------------------------------------------------------------------------
    def append_row(self, name: str, fields: list[str], row: dict) -> None:
        path = self.logs / name
        new = not path.exists()
        if not new:
            fields = self._widen(path, fields)
        with open(path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            if new:
                w.writeheader()
            w.writerow(row)

    @staticmethod
    def _widen(path: Path, fields: list[str]) -> list[str]:
        """The log's columns for a row of ``fields``: a run resumed by a newer CatZoo may log
        columns its older rows lack; the file is rewritten once under the wider header (the
        old rows keep their values, blank in the new columns)."""
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            have = list(reader.fieldnames or [])
            missing = [k for k in fields if k not in have]
            if not missing:
                return have
            rows = list(reader)
        _rewrite_csv(path, have + missing, rows)
        return have + missing

    def truncate_rows(self, step: int, names=None) -> None:
        """Drop the rows logged after ``step`` in these CSV logs (all of logs/*.csv by
        default): a resumed run writes them again."""
        paths = ([self.logs / n for n in names] if names is not None
                 else sorted(self.logs.glob("*.csv")))
        for path in paths:
            if not path.exists():
                continue
            with open(path, newline="") as f:
                reader = csv.DictReader(f)
                fields = reader.fieldnames or []
                rows = list(reader)
            kept = [r for r in rows if r.get("step") not in (None, "") and int(r["step"]) <= step]
            if len(kept) != len(rows):
                _rewrite_csv(path, fields, kept)

    def save_imitation(self, figures: dict) -> None:
        self.imitation = figures
        atomic_write_text(self.logs / "imitation.json", json.dumps(figures, indent=1))

    # --- the policy ------------------------------------------------------------------------------
    def policy_meta(self, step: int, obs_size: int, num_actions: int, evals: dict,
                    trainer: str, **extra) -> dict:
        """What a policy checkpoint of this run records (policy.json); ``extra``: what only
        this trainer records."""
        return policy_meta(self.config, obs_size, num_actions, step, self.seeds, evals,
                           trainer, cpu_seconds=self.cpu_used(), imitation=self.imitation,
                           **extra)

    def finished(self, ckpt: Path, step: int, policy_of: Callable[[Path], Path], log) -> Path:
        """A run already at its step target: nothing is trained, evaluated or logged
        again (no new session); the final policy is copied from ``policy_of(ckpt)`` if a
        kill left it missing."""
        path = self.dir / "policy"
        if not (path / "policy.json").is_file():
            tmp = self.dir / f".policy-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(policy_of(ckpt), tmp)
            shutil.rmtree(path, ignore_errors=True)
            os.rename(tmp, path)
        log(f"{self.dir} is already finished: step {step} of total_steps "
            f"{self.config['total_steps']}; nothing to do (to train on, resume with a "
            f"higher target: --steps N). The policy is {path}")
        return path


def policy_meta(config: dict, obs_size: int, num_actions: int, steps: int, seeds: dict,
                evals: dict, trainer: str, *, cpu_seconds: float | None = None,
                imitation: dict | None = None, **extra) -> dict:
    """The policy.json of a policy trained by ``config`` (every trainer writes this one):
    the table it fits (game, env version, players, options, reward, teams), its network
    (sizes, architecture, input features), how long it trained and what it measured."""
    from catzoo.games.registry import get_game
    from catzoo.policies import features
    from catzoo.training import imitation as imitation_mod

    meta = {
        "game": config["game"],
        "env_version": get_game(config["game"]).engine_class().env_version,
        "num_players": config["env"]["num_players"],
        "env_options": config["env"]["options"],
        "reward": config["env"]["reward"],
        "teams": config["teams"],
        "observation_size": obs_size,
        "num_actions": num_actions,
        "architecture": {"type": "mlp", "hidden": list(config["network"]["hidden"]),
                         "activation": config["network"]["activation"]},
        # The input features the network reads after the observation (None: none).
        "features": features.configured(config),
        **extra,
        "steps": steps,
        "seeds": seeds,
        "eval": evals,
        **({} if cpu_seconds is None else {"cpu_seconds": round(cpu_seconds, 1)}),
        "trainer": trainer,
    }
    if imitation is not None:
        meta["imitation"] = {k: imitation[k] for k in imitation_mod.META_KEYS}
    return meta
