"""MaskablePPO self-play for any CatZoo game, in a run directory (training.run_dir: the same
layout, checkpoints, resume and logs as the batched trainer's), with a league.

Each checkpoint holds the model's training state (the policy's and the optimizer's
tensors, the counters, the random generators) as safetensors + JSON
(``checkpoint.save_trainer_state``), its policy, and ``state.json``; SB3's own logs go to
``logs/session-K/`` (progress.csv and TensorBoard), the evaluations to ``logs/eval.csv``.
Nothing in a run directory is a pickle, so resuming someone else's run directory cannot
run their code. Runs written before held SB3's ``model.zip`` (pickles); those resume only
with ``trust_run_dir`` (``--trust-run-dir``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecEnvWrapper

from catzoo.games.registry import get_game
from catzoo.training import imitation
from catzoo.training.checkpoint import (
    CheckpointError,
    load_trainer_state,
    save_policy,
    save_trainer_state,
)
from catzoo.training.league import League, LeagueSeats
from catzoo.training.policy_net import MLPPolicy, export_actor
from catzoo.training.run_dir import (
    STATE,
    RunDir,
    RunError,
    next_multiple,
    read_json,
    safe_checkpoint,
)
from catzoo.training.single_agent import SingleAgentEnv

if TYPE_CHECKING:
    from tqdm import tqdm

__all__ = ["SB3_ZIP", "LeagueVecEnv", "Run", "RunError", "build_model", "make_vec_env", "resume",
           "train"]

TRAINER = "catzoo.training (MaskablePPO self-play with league)"
SB3_ZIP = "model.zip"  # the pickled format of runs written before; resumed only if trusted


def sb3_training_state(model) -> dict:
    """What resuming a MaskablePPO model needs, as a tree of tensors and plain values."""
    import random

    import numpy as np
    import torch

    return {
        "policy": model.policy.state_dict(),
        "optimizer": model.policy.optimizer.state_dict(),
        "counters": {"num_timesteps": int(model.num_timesteps),
                     "n_updates": int(model._n_updates),
                     "episode_num": int(model._episode_num)},
        "rng": {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
                "python": random.getstate()},
    }


def restore_sb3_training_state(model, state, where: str) -> None:
    """Load ``sb3_training_state``'s tree into a model built from the run's config."""
    import random

    import numpy as np
    import torch

    try:
        model.policy.load_state_dict(state["policy"])
        model.policy.optimizer.load_state_dict(state["optimizer"])
        counters = state["counters"]
        model.num_timesteps = int(counters["num_timesteps"])
        model._n_updates = int(counters["n_updates"])
        model._episode_num = int(counters["episode_num"])
        rng = state["rng"]
        torch.set_rng_state(rng["torch"])
        np.random.set_state(rng["numpy"])
        random.setstate(rng["python"])
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise RunError(f"{where}: its training state does not fit this run's model "
                       f"({type(err).__name__}: {str(err)[:300]})") from None


def _env_factory(config: dict, league_dir: Path, rank: int, seed: int):
    def make():
        seats = LeagueSeats(league_dir, config["game"], config["env"]["num_players"],
                            config["env"]["options"], config["teams"], config["league"],
                            seed=seed + rank)
        return SingleAgentEnv(config["game"], config["env"]["num_players"], seats,
                              reward=config["env"]["reward"], options=config["env"]["options"])
    return make


def make_vec_env(config: dict, league_dir: Path, seed: int, batched: bool | None = None):
    """The learner's vector env, in SB3's ``VecMonitor`` (which records each episode's
    return and length, ``info["episode"]``, the rollout statistics SB3 logs).

    A game with a compiled core (``batched``, by default) plays ``vec_env.n_envs`` games on
    the batched engine (``catzoo.integrations.sb3.vec_env``) whose opponents the league
    sets (``LeagueVecEnv``); any other game, or ``batched=False``, ``vec_env.n_envs``
    single-game envs (``SingleAgentEnv``, seats drawn by ``LeagueSeats``) in a
    ``DummyVecEnv`` or ``SubprocVecEnv`` (``vec_env.kind``)."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    from catzoo import vector

    if batched is None:
        batched = vector.has_core(config["game"])
    if batched:
        return VecMonitor(LeagueVecEnv(config, league_dir, seed))
    fns = [_env_factory(config, league_dir, i, seed) for i in range(config["vec_env"]["n_envs"])]
    kind = SubprocVecEnv if config["vec_env"]["kind"] == "subproc" else DummyVecEnv
    return VecMonitor(kind(fns))


# League snapshots the batched env's new games draw from at a time, re-drawn by the scheme
# after every rollout (the batched trainer's league.active): each one playing costs a
# forward pass per move, so twenty snapshots with a game or two each would cost twenty.
ACTIVE_SNAPSHOTS = 4


class LeagueVecEnv(VecEnvWrapper):
    """``vec_env`` games whose opponents come from the league, as ``LeagueSeats`` draws
    them for the single-game envs, per game rather than per seat: one opponent holds
    every seat the learner and its partners do not, drawn by ``league.mix`` (the league's
    share spread over ``ACTIVE_SNAPSHOTS`` snapshots picked by ``league.scheme``, the
    random bot while there are none), and the learner's teammates are the partner copy
    (the heuristic until there is one). ``refresh_league`` re-reads the league; the games
    in progress keep their players. An episode against a snapshot reports it
    (``info["opponents"]``) for the league's statistics."""

    def __init__(self, config: dict, league_dir: Path, seed: int):
        import numpy as np

        from catzoo.integrations.sb3 import vec_env

        lg = config["league"]
        env = config["env"]
        self.config, self.dir = config, Path(league_dir)
        self.rng = np.random.default_rng(seed)
        self.fallback = "heuristic" if get_game(config["game"]).heuristic else "random"
        self.games = vec_env(config["game"], config["vec_env"]["n_envs"], env["num_players"],
                             opponents=("random",), seed=seed, reward=env["reward"],
                             sample_opponents=not lg["opponent_deterministic"],
                             **env["options"])
        super().__init__(self.games)
        self.sids: dict[str, str] = {}  # opponent spec -> snapshot id
        self.refresh_league()

    def refresh_league(self) -> None:
        """The opponents and partner of the games dealt from now on, from league.json."""
        from catzoo.training.league import MANIFEST, read_manifest, snapshot_weights

        lg = self.config["league"]
        path = self.dir / MANIFEST
        data = read_manifest(path) if path.is_file() else {"snapshots": [], "stats": {}}
        weights: dict[str, float] = {}
        for kind in ("heuristic", "random"):
            if lg["mix"].get(kind, 0) > 0:
                weights[kind] = float(lg["mix"][kind])
        share = float(lg["mix"].get("league", 0))
        ids = [s["id"] for s in data["snapshots"]]
        if share > 0 and not ids:
            weights["random"] = weights.get("random", 0.0) + share
        elif share > 0:
            scheme = [k for k in ("latest", "uniform", "weighted") if lg["scheme"].get(k, 0) > 0]
            p = [lg["scheme"][k] for k in scheme]
            for _ in range(ACTIVE_SNAPSHOTS):
                how = scheme[int(self.rng.choice(len(scheme), p=[x / sum(p) for x in p]))]
                if how == "latest":
                    sid = ids[-1]
                elif how == "uniform":
                    sid = ids[int(self.rng.integers(len(ids)))]
                else:
                    sid = ids[int(self.rng.choice(len(ids), p=snapshot_weights(
                        data["stats"], ids, lg["weighted_power"])))]
                spec = str(self.dir / sid)
                self.sids[spec] = sid
                weights[spec] = weights.get(spec, 0.0) + share / ACTIVE_SNAPSHOTS
        partner = None
        if self.config["teams"]:
            pid = data.get("partner")
            partner = str(self.dir / pid) if pid else self.fallback
        self.games.set_opponents(weights, partner)

    def reset(self):
        return self.venv.reset()

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for i in np.flatnonzero(dones).tolist():
            sid = self.sids.get(infos[i]["opponent"])
            infos[i]["opponents"] = [sid] if sid else []
        return obs, rewards, dones, infos


def build_model(config: dict, vec, seed: int):
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config["ppo"]
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[config["network"]["activation"]]
    hidden = list(config["network"]["hidden"])
    return MaskablePPO(
        "MlpPolicy", vec,
        learning_rate=ppo["learning_rate"], n_steps=ppo["n_steps"],
        batch_size=ppo["batch_size"], n_epochs=ppo["n_epochs"], gamma=ppo["gamma"],
        gae_lambda=ppo["gae_lambda"], clip_range=ppo["clip_range"],
        ent_coef=ppo["ent_coef"], vf_coef=ppo["vf_coef"], max_grad_norm=ppo["max_grad_norm"],
        target_kl=ppo["target_kl"] or None,
        policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}, "activation_fn": act},
        seed=seed, device="cpu", verbose=0,
    )


def checkpoint_kind(path: Path) -> str | None:
    """"safe" (safetensors + JSON), "sb3-zip" (a run written before: pickles) or None
    (incomplete: never resumed from)."""
    if safe_checkpoint(path):
        return "safe"
    if (path / STATE).is_file() and (path / SB3_ZIP).is_file():
        return "sb3-zip"
    return None


class Run(RunDir):
    """One SB3 training run in a run directory (training.run_dir): ``create`` a new one or
    ``open`` one to resume, then ``train``."""

    def __init__(self, path: str | Path, config: dict, **kwargs):
        super().__init__(path, config, complete=lambda p: checkpoint_kind(p) is not None)

    checkpoint_kind = staticmethod(checkpoint_kind)

    def latest_checkpoint(self) -> Path | None:
        return self.latest()

    def kept_partners(self) -> set[str]:
        """The partner copies the kept checkpoints resume with."""
        out = set()
        for path in self.checkpoints():
            try:
                partner = read_json(path / STATE)["league"].get("partner")
            except (RunError, KeyError, TypeError, AttributeError):
                continue
            if isinstance(partner, str):
                out.add(partner)
        return out

    def save_checkpoint(self, model, evals: dict) -> Path:
        def write(tmp: Path) -> None:
            save_trainer_state(tmp, sb3_training_state(model))
            self.export(model, tmp / "policy", evals)

        final = self.write_checkpoint(int(model.num_timesteps), write, {"time": time.time()})
        # Partners only the dropped checkpoints named can go now.
        self.league.prune_partners(self.kept_partners())
        return final

    def meta(self, model, evals=None) -> dict:
        return self.policy_meta(int(model.num_timesteps), int(model.observation_space.shape[0]),
                                int(model.action_space.n), evals or {}, TRAINER)

    def export(self, model, path: Path, evals=None) -> Path:
        return save_policy(path, export_actor(model.policy), self.meta(model, evals))

    def warm_start(self, model, seed: int, log) -> None:
        """Behaviour cloning of the heuristic, then a step-0 checkpoint, so that a run
        killed later resumes without cloning again (and keeps the CPU time it cost)."""
        self.save_imitation(imitation.warm_start(imitation.SB3Model(model.policy), self.config,
                                                 seed, log=log))
        self.save_checkpoint(model, {})

    def current_policy(self, model) -> MLPPolicy:
        arch = self.config["network"]
        return MLPPolicy(export_actor(model.policy), list(arch["hidden"]), arch["activation"],
                         name="learner")

    def _resume_league(self, data, ckpt: Path, log) -> None:
        """The league as the checkpoint left it; snapshots or a partner it names that are
        gone (runs written before partners were kept for their checkpoints) are dropped,
        with a warning, and the partner is made again from the resumed weights."""
        if (not isinstance(data, dict) or not isinstance(data.get("snapshots"), list)
                or not isinstance(data.get("stats"), dict)):
            raise RunError(f"checkpoint {str(ckpt)!r}: {STATE} holds no league")
        kept = []
        for snap in data["snapshots"]:
            sid = snap.get("id") if isinstance(snap, dict) else None
            if isinstance(sid, str) and "/" not in sid and (self.league.dir / sid).is_dir():
                kept.append(snap)
            else:
                log(f"warning: league snapshot {sid!r} of {ckpt.name} is missing; dropped")
        data["snapshots"] = kept
        partner = data.get("partner")
        if partner is not None and (not isinstance(partner, str) or "/" in partner
                                    or not (self.league.dir / partner).is_dir()):
            log(f"warning: partner copy {partner!r} of {ckpt.name} is missing; the partner "
                "is made again from the resumed policy")
            data["partner"] = None
        self.league.data = data
        self.league.save()

    def _check_trust(self, ckpt: Path, trust_run_dir: bool) -> None:
        if checkpoint_kind(ckpt) == "sb3-zip" and not trust_run_dir:
            raise RunError(
                f"checkpoint {str(ckpt)!r} is in SB3's {SB3_ZIP} format, which holds "
                "pickles: loading it runs whatever code the file holds. Resume it only "
                "if you trust where this run directory came from, with --trust-run-dir "
                "(its later checkpoints are written without pickle)")

    def _read_training_state(self, ckpt: Path):
        """The checked training state of a safe checkpoint (None for a trusted SB3 zip)."""
        if checkpoint_kind(ckpt) == "sb3-zip":
            return None
        import torch

        try:
            return load_trainer_state(ckpt, as_torch=lambda a: torch.from_numpy(a.copy()))
        except CheckpointError as err:
            raise RunError(str(err)) from None

    def _load_checkpoint(self, ckpt: Path, vec, seed: int, trust_run_dir: bool, state=None):
        from sb3_contrib import MaskablePPO

        self._check_trust(ckpt, trust_run_dir)
        if checkpoint_kind(ckpt) == "sb3-zip":
            model = MaskablePPO.load(ckpt / SB3_ZIP, env=vec, device="cpu")
            model.set_random_seed(seed)
            return model
        if state is None:
            state = self._read_training_state(ckpt)
        model = build_model(self.config, vec, seed)
        restore_sb3_training_state(model, state, f"checkpoint {str(ckpt)!r}")
        return model

    # --- training ---------------------------------------------------------------------------
    def train(self, progress: bool = True, log=print, trust_run_dir: bool = False) -> Path:
        import torch
        from stable_baselines3.common.logger import configure

        cfg = self.config
        torch.set_num_threads(cfg["torch_threads"])
        self.clear_temporaries(log)
        ckpt = self.latest(log)
        training_state, info = None, {}
        if ckpt is not None:
            info = self.checkpoint_state(ckpt)
            if info["step"] >= cfg["total_steps"]:
                return self.finished(ckpt, info["step"], lambda c: c / "policy", log)
            # Refused, if it must be, before anything is written.
            self._check_trust(ckpt, trust_run_dir)
            training_state = self._read_training_state(ckpt)
            self.truncate_rows(info["step"], ["eval.csv"])
        cpu = info.get("cpu_seconds", 0.0)
        session, seed = self.begin_session(
            info.get("step", 0), cpu if isinstance(cpu, (int, float)) else 0.0,
            model_seed=lambda s: s,
            env_seeds=lambda s: [s + i for i in range(cfg["vec_env"]["n_envs"])])
        if ckpt is not None:
            self._resume_league(info.get("league"), ckpt, log)
        else:
            self.league = League(self.dir / "league")
            self.league.data = {"snapshots": [], "partner": None, "stats": {}}
        vec = make_vec_env(cfg, self.league.dir, seed)
        try:
            if ckpt is not None:
                model = self._load_checkpoint(ckpt, vec, seed, trust_run_dir, training_state)
                log(f"resuming {self.dir} from step {info['step']}")
            else:
                model = build_model(cfg, vec, seed)
                if cfg["imitation"]["games"] > 0:
                    self.warm_start(model, seed, log)
            model.set_logger(configure(str(self.logs / f"session-{session}"),
                                       ["csv", "tensorboard"]))
            callback = TrainingCallback(self, progress=progress, log=log)
            if not self.league.snapshots:
                callback.snapshot(model)
            if not self.league.data.get("partner"):
                callback.refresh_partner(model)
            remaining = cfg["total_steps"] - int(model.num_timesteps)
            if remaining > 0:
                model.learn(total_timesteps=remaining, callback=callback,
                            reset_num_timesteps=False)
            evals = callback.last_eval
            if evals.get("step") != int(model.num_timesteps):
                evals = callback.evaluate(model)
            self.save_checkpoint(model, evals)
            path = self.export(model, self.dir / "policy", evals)
        finally:
            vec.close()
        log(f"policy written to {path}")
        return path


class TrainingCallback(BaseCallback):
    """Snapshots, partner refresh, checkpoints, evaluation, league results, progress."""

    def __init__(self, run: Run, progress: bool, log):
        super().__init__()
        self.run = run
        self.cfg = run.config
        self.show_progress = progress
        self.log_fn = log
        self.bar: tqdm | None = None
        self.last_eval: dict = {}
        self.league_dirty = False

    def _next(self, interval: int) -> int:
        return next_multiple(self.num_timesteps, interval)

    def _on_training_start(self) -> None:
        from tqdm import tqdm

        lg = self.cfg["league"]
        self.next_snapshot = self._next(lg["snapshot_interval"])
        self.next_partner = self._next(lg["partner_refresh_interval"])
        self.next_ckpt = self._next(self.cfg["checkpoint_interval"])
        self.next_eval = self._next(self.cfg["eval"]["interval"])
        self.bar = tqdm(total=self.cfg["total_steps"], initial=self.num_timesteps,
                        disable=not self.show_progress, unit="step", dynamic_ncols=True,
                        desc=self.cfg["game"])
        self.refresh_league()

    def snapshot(self, model) -> None:
        self.run.league.add_snapshot(int(model.num_timesteps), export_actor(model.policy),
                                     self.run.meta(model), self.cfg["league"]["max_snapshots"])

    def refresh_partner(self, model) -> None:
        if self.cfg["teams"]:
            self.run.league.set_partner(int(model.num_timesteps), export_actor(model.policy),
                                        self.run.meta(model), keep=self.run.kept_partners())

    def evaluate(self, model) -> dict:
        from catzoo.training.eval import evaluate, summary

        ev = self.cfg["eval"]
        if ev["games"] == 0:
            return self.last_eval
        learner = self.run.current_policy(model)
        results = {}
        for opp in ev["opponents"]:
            r = evaluate(lambda seat: learner, self.cfg["game"], self.cfg["env"]["num_players"],
                         opp, ev["games"], teams=self.cfg["teams"],
                         env_options=self.cfg["env"]["options"])
            results[opp] = r
            step = int(model.num_timesteps)
            for key in ("mean_standing", "win_rate", "mean_score", "score_diff"):
                if key in r:
                    model.logger.record(f"eval/{opp}/{key}", r[key])
            self._append_eval_csv(step, r)
            line = f"step {step}: {summary(r)}"
            if self.bar is not None and not self.bar.disable:
                self.bar.write(line)
            else:
                self.log_fn(line)
        model.logger.record("time/cpu_seconds", self.run.cpu_used())
        self.last_eval = {"step": int(model.num_timesteps),
                          "cpu_seconds": round(self.run.cpu_used(), 1), **results}
        return self.last_eval

    EVAL_FIELDS = ["step", "opponent", "games", "win_rate", "win_lo", "win_hi",
                   "mean_standing", "standing_lo", "standing_hi", "mean_score",
                   "opponent_mean_score"]

    def _append_eval_csv(self, step: int, r: dict) -> None:
        row = {"step": step, "opponent": r["opponent"], "games": r["games"],
               "win_rate": r.get("win_rate", ""), "mean_standing": r.get("mean_standing", ""),
               "mean_score": r.get("mean_score", ""),
               "opponent_mean_score": r.get("opponent_mean_score", "")}
        if "win_rate_ci95" in r:
            row["win_lo"], row["win_hi"] = r["win_rate_ci95"]
            row["standing_lo"], row["standing_hi"] = r["mean_standing_ci95"]
        self.run.append_row("eval.csv", self.EVAL_FIELDS, row)

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", ()):
            if "learner_return" in info:
                self.league_dirty |= self.run.league.record([info])
        n = self.num_timesteps
        if self.bar is not None:
            self.bar.update(n - self.bar.n)
        model = self.model
        if n >= self.next_snapshot:
            self.snapshot(model)
            self.league_dirty = False
            self.next_snapshot = self._next(self.cfg["league"]["snapshot_interval"])
        if n >= self.next_partner:
            self.refresh_partner(model)
            self.next_partner = self._next(self.cfg["league"]["partner_refresh_interval"])
        if n >= self.next_ckpt:
            self.run.save_checkpoint(model, self.last_eval)
            self.next_ckpt = self._next(self.cfg["checkpoint_interval"])
        return True

    def _on_rollout_start(self) -> None:
        # Evaluated between rollouts: the weights then are exactly those trained on
        # ``num_timesteps`` steps, the step an evaluation is labelled with (mid-rollout,
        # the last update is still to come and two evaluations could share a label).
        if self.num_timesteps >= self.next_eval:
            self.evaluate(self.model)
            self.next_eval = self._next(self.cfg["eval"]["interval"])

    def _on_rollout_end(self) -> None:
        if self.league_dirty:
            self.run.league.save()
            self.league_dirty = False
        self.refresh_league()

    def refresh_league(self) -> None:
        """The batched env's opponents from the league as it is now (the single-game envs
        re-read it themselves)."""
        refresh = getattr(self.training_env, "refresh_league", None)
        if refresh is not None:
            refresh()

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


def train(config: dict, run_dir: str | Path, progress: bool = True, log=print) -> Path:
    """Start a new run; returns the final policy checkpoint's path."""
    return Run.create(run_dir, config).train(progress=progress, log=log)


def resume(run_dir: str | Path, overrides=(), progress: bool = True, log=print,
           trust_run_dir: bool = False) -> Path:
    """Continue a run from its last complete checkpoint. ``trust_run_dir`` allows a
    checkpoint in SB3's pickled format (runs written before): only for your own runs."""
    return Run.open(run_dir, overrides).train(progress=progress, log=log,
                                              trust_run_dir=trust_run_dir)
