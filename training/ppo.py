"""Masked PPO self-play on the batched engine, readable top to bottom (as CleanRL's ppo.py).

    catzoo train --config configs/cat_in_the_box.yaml          # trainer: ppo (the default)
    catzoo train --resume runs/cat_in_the_box-20261201-101500   # after a crash or a kill

One process steps ``vector.num_envs`` games at once through ``catzoo.vector`` (the compiled
cores, ``vector.threads`` threads). At every agent-step each game has one player to act;
the learner decides for all the slots whose player to act is one of its seats in one batched
forward pass, and each opponent (a league snapshot or a bot) for the slots it holds in one
call (``training.tables``). A rollout is ``ppo.rollout_steps`` agent-steps of every slot.

**Per-seat trajectories.** Self-play learns from every seat the learner plays, not from one
seat per game: a seat's trajectory runs from one of its decisions to its next decision in
the same game, with every reward the seat received in between (including those caused by
other players' moves), and the final result reaches each seat's last decision of the game
whoever made the last move. Advantages (GAE) run along each seat's own decisions
(``per_seat_advantages`` below). The PettingZoo SB3 tutorial's wrapper instead chains the
seats' moves into one trajectory: one player's value is bootstrapped from its opponent's
state, and the end of the game reaches only whoever moved last. Trajectories still open at
the end of a rollout are bootstrapped with the value of that seat's own view of the game
then (``vg.observe``). With ``network.features`` every input is the observation followed by
features a bot computes from it and the mask (``catzoo.policies.features``); bots read
the observation alone. With ``ppo.zero_sum`` a seat learns its reward minus the other
seats' mean (``training.rewards``): its margin over the table, not its own score.

**The league.** Every ``league.snapshot_interval`` learner steps a snapshot of the actor joins
the run's ``league/`` (an ordinary policy checkpoint, as the SB3 path writes); games not
in pure self-play face one opponent drawn by ``league.mix`` from the league (by
``league.scheme``: latest, uniform, or prioritised by the learner's results), the game's
heuristic or the random bot.

**A run directory** holds ``config.yaml`` (every hyper-parameter), ``seeds.json`` (each
session's seeds), ``league/``, ``checkpoints/step_N/`` (``state.safetensors`` +
``state.json``: weights, optimizer moments, counters, generator states, the league; no
pickle) with ``latest.json`` replaced atomically, ``logs/`` (``train.csv``, ``eval.csv``,
TensorBoard events), ``learning_curve.png`` (redrawn at every evaluation) and at the end
``policy/``, the policy checkpoint that ``load_policy`` reads anywhere. A run killed at any
moment resumes from its last checkpoint, losing at most ``checkpoint_interval`` steps; the
logs drop the rows written after that checkpoint, so resuming never duplicates a row.
"""

from __future__ import annotations

import csv
import itertools
import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from catzoo.policies import features
from catzoo.training import config as config_mod
from catzoo.training import imitation
from catzoo.training.checkpoint import atomic_write_text, load_policy, save_policy
from catzoo.training.league import League
from catzoo.training.rewards import zero_sum
from catzoo.training.run_state import (
    StateError,
    load_optimizer,
    load_state,
    numpy_rng_from,
    numpy_rng_state,
    optimizer_tensors,
    save_state,
)
from catzoo.training.tables import KINDS_OF_TABLES, BotOpponent, SnapshotOpponent, Tables

KEEP_CHECKPOINTS = 2
TRAIN_FIELDS = ["step", "seconds", "learner_steps_per_s", "agent_steps_per_s", "learning_rate",
                "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction",
                "explained_variance", "games"] + [f"return_{k}" for k in KINDS_OF_TABLES]
EVAL_FIELDS = ["step", "opponent", "games", "metric", "value", "low", "high"]


class RunError(ValueError):
    """A run directory that cannot be started or resumed, with the reason."""


# --- the network ---------------------------------------------------------------------------------
def mlp(sizes: list[int], activation: str) -> list[nn.Module]:
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), act()]
    return layers


class ActorCritic(nn.Module):
    """An MLP actor and critic (CleanRL's ``Agent``): two separate MLPs, or one trunk with
    two heads (``critic: shared``, half the arithmetic). The actor (its trunk and its action
    head) exports as the ``MLPPolicy`` weights every CatZoo tool plays (``pi.{i}``,
    ``action``)."""

    def __init__(self, obs_size: int, num_actions: int, hidden: list[int], activation: str,
                 critic: str = "separate"):
        super().__init__()
        self.hidden, self.activation, self.shared = list(hidden), activation, critic == "shared"
        self.trunk = nn.Sequential(*mlp([obs_size, *hidden], activation))
        self.action_head = nn.Linear(hidden[-1], num_actions)
        if self.shared:
            self.critic_trunk = None
        else:
            self.critic_trunk = nn.Sequential(*mlp([obs_size, *hidden], activation))
        self.value_head = nn.Linear(hidden[-1], 1)
        with torch.no_grad():  # CleanRL's initialisation: small policy logits at the start
            self.action_head.weight.mul_(0.01)
            self.action_head.bias.zero_()

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values of a batch of observations."""
        h = self.trunk(x)
        logits = self.action_head(h).masked_fill(mask == 0, -1e9)
        hv = h if self.critic_trunk is None else self.critic_trunk(x)
        return logits, self.value_head(hv).squeeze(-1)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        hv = self.trunk(x) if self.critic_trunk is None else self.critic_trunk(x)
        return self.value_head(hv).squeeze(-1)

    # What behaviour cloning (catzoo.training.imitation.pretrain) asks of a model.
    def log_prob_value(self, x: torch.Tensor, mask: np.ndarray, actions: torch.Tensor):
        logits, values = self(x, torch.from_numpy(mask))
        return torch.log_softmax(logits, 1).gather(1, actions[:, None])[:, 0], values

    def best(self, x: torch.Tensor, mask: np.ndarray) -> np.ndarray:
        logits, _ = self(x, torch.from_numpy(mask))
        return logits.argmax(1).numpy()

    def actor_weights(self) -> dict[str, np.ndarray]:
        linear = [m for m in self.trunk if isinstance(m, nn.Linear)] + [self.action_head]
        out = {}
        for i, layer in enumerate(linear[:-1]):
            out[f"pi.{i}.weight"] = layer.weight.detach().numpy().copy()
            out[f"pi.{i}.bias"] = layer.bias.detach().numpy().copy()
        out["action.weight"] = self.action_head.weight.detach().numpy().copy()
        out["action.bias"] = self.action_head.bias.detach().numpy().copy()
        return out


def gumbel_max(logits: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """A sample of each row's softmax from uniforms ``u`` in [0, 1): the argmax of the logits
    plus Gumbel noise. ``u`` is kept above 0: a draw of exactly 0 (one in 2**24) would give
    its action -inf, and a row whose only legal action drew it would pick a masked one."""
    u = u.clamp(min=torch.finfo(u.dtype).tiny)
    return torch.argmax(logits - torch.log(-torch.log(u)), 1)


# --- per-seat advantages ---------------------------------------------------------------------------
def per_seat_advantages(player: np.ndarray, learner: np.ndarray, values: np.ndarray,
                        rewards: np.ndarray, done: np.ndarray, boot_values: np.ndarray,
                        gamma: float, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """GAE along each seat's own decisions, for a rollout of T agent-steps of N slots.

    ``player`` [T, N]: the seat acting at each agent-step; ``learner`` [T, N]: whether that
    decision is the learner's (only those get advantages); ``values`` [T, N]: the learner's
    value at each of its decisions; ``rewards`` [T, N, P]: what each seat received from each
    step; ``done`` [T, N]: the step ended the slot's game (its next step is a new game's);
    ``boot_values`` [N, P]: each seat's value of its view after the last step, for the
    trajectories still open then. Discounting is per decision of the seat.

    Returns (advantages, returns), [T, N], zero where ``learner`` is False.
    """
    T, N = player.shape
    P = rewards.shape[2]
    adv = np.zeros((T, N), dtype=np.float32)
    # What each seat of each slot carries back in time: the reward received since step t
    # up to its next decision, that decision's value and advantage, and whether that next
    # decision (or the bootstrap) is in the same game.
    acc = np.zeros((N, P))
    next_value = boot_values.astype(np.float64, copy=True)
    next_adv = np.zeros((N, P))
    alive = np.ones((N, P))
    for t in range(T - 1, -1, -1):
        ended = done[t]
        if ended.any():  # what came after this step belongs to the slot's next game
            acc[ended] = next_value[ended] = next_adv[ended] = alive[ended] = 0.0
        acc += rewards[t]
        mine = np.flatnonzero(learner[t])
        if mine.size:
            seat = player[t, mine]
            v = values[t, mine].astype(np.float64)
            live = alive[mine, seat]
            a = (acc[mine, seat] + gamma * live * next_value[mine, seat] - v
                 + gamma * lam * live * next_adv[mine, seat])
            adv[t, mine] = a
            next_value[mine, seat], next_adv[mine, seat] = v, a
            alive[mine, seat], acc[mine, seat] = 1.0, 0.0
    returns = np.where(learner, adv + values, 0.0).astype(np.float32)
    return adv, returns


# --- the run ---------------------------------------------------------------------------------------
class Run:
    """One run directory: ``create`` a new one, ``open`` one to resume, then ``train``."""

    def __init__(self, run_dir: Path, config: dict):
        self.dir, self.config = Path(run_dir), config
        self.ckpt_dir, self.logs = self.dir / "checkpoints", self.dir / "logs"
        self.ckpt_dir.mkdir(parents=True, exist_ok=True)
        self.logs.mkdir(parents=True, exist_ok=True)
        self.league = League(self.dir / "league")
        path = self.dir / "seeds.json"
        self.seeds = (json.loads(path.read_text()) if path.exists()
                      else {"seed": config["seed"], "sessions": []})
        imitation = self.logs / "imitation.json"
        self.imitation = json.loads(imitation.read_text()) if imitation.exists() else None

    @classmethod
    def create(cls, run_dir, config: dict) -> Run:
        return cls(config_mod.new_run_dir(run_dir, config, RunError), config)

    @classmethod
    def open(cls, run_dir, overrides=()) -> Run:
        stored = config_mod.stored_config(run_dir, RunError)
        for o in overrides:
            if not o.split("=", 1)[0].strip().startswith(config_mod.RESUMABLE):
                raise RunError(f"override {o!r} cannot change a run being resumed; only "
                               f"{', '.join(config_mod.RESUMABLE)} can")
        config = config_mod.resolve(stored, overrides)
        atomic_write_text(Path(run_dir) / "config.yaml", config_mod.dump(config))
        return cls(Path(run_dir), config)

    # --- checkpoints ------------------------------------------------------------------------------
    def latest(self) -> Path | None:
        pointer = self.ckpt_dir / "latest.json"
        if not pointer.exists():
            return None
        target = self.ckpt_dir / json.loads(pointer.read_text())["dir"]
        if not (target / "state.json").is_file():
            raise RunError(f"{str(pointer)!r} points to {str(target)!r}, which is incomplete")
        return target

    def save_checkpoint(self, step: int, tensors: dict, info: dict) -> Path:
        name = f"step_{step:010d}"
        save_state(self.ckpt_dir / name, tensors, info)
        atomic_write_text(self.ckpt_dir / "latest.json", json.dumps({"dir": name, "step": step}))
        old = sorted(p for p in self.ckpt_dir.glob("step_*") if p.is_dir())
        for p in old[:-KEEP_CHECKPOINTS]:
            shutil.rmtree(p, ignore_errors=True)
        return self.ckpt_dir / name

    def policy_meta(self, step: int, obs_size: int, num_actions: int, cpu: float,
                    evals: dict) -> dict:
        from catzoo.games.registry import get_game

        cfg = self.config
        return {
            "game": cfg["game"],
            "env_version": get_game(cfg["game"]).engine_class().env_version,
            "num_players": cfg["env"]["num_players"],
            "env_options": cfg["env"]["options"],
            "reward": cfg["env"]["reward"],
            "zero_sum": cfg["ppo"]["zero_sum"],  # learned as margins over the table
            "teams": cfg["teams"],
            "observation_size": obs_size,
            "num_actions": num_actions,
            "architecture": {"type": "mlp", "hidden": list(cfg["network"]["hidden"]),
                             "activation": cfg["network"]["activation"]},
            # The input features the network reads after the observation (None: none).
            "features": features.configured(cfg),
            "steps": step,
            "seeds": self.seeds,
            "eval": evals,
            "cpu_seconds": round(cpu, 1),
            "trainer": "catzoo.training.ppo (batched masked PPO self-play with league)",
            **({} if self.imitation is None else {
                "imitation": {k: self.imitation[k] for k in imitation.META_KEYS}}),
        }

    # --- logs ---------------------------------------------------------------------------------------
    def _truncate_logs(self, step: int) -> None:
        """Drop the rows logged after ``step`` (a resumed run writes them again)."""
        for name, fields in (("train.csv", TRAIN_FIELDS), ("eval.csv", EVAL_FIELDS)):
            path = self.logs / name
            if not path.exists():
                continue
            with open(path, newline="") as f:
                rows = [r for r in csv.DictReader(f) if int(r["step"]) <= step]
            atomic_write_text(path, _csv_text(fields, rows))

    def _append(self, name: str, fields: list[str], row: dict) -> None:
        path = self.logs / name
        new = not path.exists()
        with open(path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields)
            if new:
                w.writeheader()
            w.writerow(row)

    # --- training -------------------------------------------------------------------------------
    def train(self, progress: bool = True, log=print) -> Path:
        from torch.utils.tensorboard import SummaryWriter
        from tqdm import tqdm

        from catzoo import vector
        from catzoo.policies.registry import make_policy
        from catzoo.training.curves import draw

        cfg = self.config
        ppo, lg, env = cfg["ppo"], cfg["league"], cfg["env"]
        game, n = cfg["game"], env["num_players"]
        torch.set_num_threads(cfg["torch_threads"])
        ckpt = self.latest()
        if ckpt is not None and (self.dir / "policy").is_dir():
            done_step = json.loads((self.ckpt_dir / "latest.json").read_text())["step"]
            if done_step >= cfg["total_steps"]:
                log(f"{self.dir} finished at step {done_step}; nothing to do "
                    f"(raise total_steps with --steps to train on)")
                return self.dir / "policy"

        # --- state: new, or from the last checkpoint ---
        session = len(self.seeds["sessions"])
        seed = cfg["seed"] + 7919 * session  # each session deals new games
        vg = vector.make(game, num_envs=cfg["vector"]["num_envs"], num_players=n, seed=seed,
                         reward=env["reward"], threads=cfg["vector"]["threads"],
                         **env["options"])
        N, P, A = vg.num_envs, vg.num_players, vg.num_actions
        # The network reads each observation and its input features (network.features:
        # estimates a bot computes from the observation and mask, catzoo.policies.features).
        feature_set = features.configured(cfg)

        def inputs(o: np.ndarray, m: np.ndarray) -> np.ndarray:
            return features.augment(feature_set, o, m, n, env["options"])

        D = vg.obs_size + features.width(feature_set, n)
        net = ActorCritic(D, A, cfg["network"]["hidden"], cfg["network"]["activation"],
                          cfg["network"]["critic"])
        opt = torch.optim.Adam(net.parameters(), lr=ppo["learning_rate"], eps=1e-5)
        step, cpu_base, rollouts = 0, 0.0, 0
        rng = np.random.default_rng(seed)
        generator = torch.Generator().manual_seed(seed)
        if ckpt is not None:
            try:
                tensors, info = load_state(ckpt)
            except StateError as err:
                raise RunError(str(err)) from None
            net.load_state_dict({k[4:]: v for k, v in tensors.items() if k.startswith("net.")})
            load_optimizer(opt, tensors, info["optimizer"])
            step, cpu_base, rollouts = info["step"], info["cpu_seconds"], info["rollouts"]
            rng = numpy_rng_from(info["numpy_rng"])
            generator.set_state(tensors["torch_rng"])
            self.league.data = info["league"]
            self.league.save()
            self._truncate_logs(step)
            log(f"resuming {self.dir} from step {step}")
        else:
            self.league.data = {"snapshots": [], "partner": None, "stats": {}}
        self.seeds["sessions"].append({"session": session, "start_step": step,
                                       "vector_seed": seed})
        atomic_write_text(self.dir / "seeds.json", json.dumps(self.seeds, indent=1))
        cpu_start = _cpu()

        def cpu_used() -> float:
            return cpu_base + _cpu() - cpu_start

        def meta(evals=None) -> dict:
            return self.policy_meta(step, vg.obs_size, A, cpu_used(), evals or {})

        def snapshot() -> None:
            self.league.add_snapshot(step, net.actor_weights(), meta(), lg["max_snapshots"])

        def checkpoint() -> None:
            tensors = {f"net.{k}": v for k, v in net.state_dict().items()}
            opt_tensors, opt_info = optimizer_tensors(opt)
            tensors.update(opt_tensors)
            tensors["torch_rng"] = generator.get_state()
            self.save_checkpoint(step, tensors, {
                "step": step, "rollouts": rollouts, "cpu_seconds": cpu_used(),
                "time": time.time(), "league": self.league.data, "optimizer": opt_info,
                "numpy_rng": numpy_rng_state(rng)})

        # --- behaviour cloning of the teacher before PPO, then a step-0 checkpoint so
        # that a run killed later resumes without cloning again ---
        if ckpt is None and cfg["imitation"]["games"] > 0:
            self.imitation = imitation.warm_start(net, cfg, seed, log=log)
            atomic_write_text(self.logs / "imitation.json", json.dumps(self.imitation, indent=1))
            checkpoint()

        # --- who sits where ---
        bots = {"random": BotOpponent(make_policy("random", game, n, seed=seed), vg.obs_size)}
        try:
            bots["heuristic"] = BotOpponent(make_policy("heuristic", game, n, seed=seed),
                                            vg.obs_size)
        except ValueError:
            pass  # a game without a heuristic trains against random and the league
        arch = cfg["network"]

        def load_snapshot(sid: str) -> SnapshotOpponent:
            policy = load_policy(self.league.dir / sid, game=game, num_players=n)
            weights = {f"pi.{i}.{k}": w for i, (wt, b) in enumerate(policy.layers)
                       for k, w in (("weight", wt), ("bias", b))}
            weights["action.weight"], weights["action.bias"] = policy.out
            return SnapshotOpponent(weights, arch["hidden"], arch["activation"],
                                    lg["opponent_deterministic"])

        tables = Tables(N, P, cfg["teams"], lg, bots, load_snapshot, rng)
        if not self.league.snapshots:
            snapshot()
        tables.refresh(self.league.snapshots, self.league.data["stats"])
        writer = SummaryWriter(str(self.logs / "tb"), purge_step=step or None)

        # --- storage for one rollout ---
        T = ppo["rollout_steps"]
        obs_buf = np.zeros((T, N, D), dtype=np.float32)
        mask_buf = np.zeros((T, N, A), dtype=np.int8)
        act_buf = np.zeros((T, N), dtype=np.int64)
        logp_buf = np.zeros((T, N), dtype=np.float32)
        val_buf = np.zeros((T, N), dtype=np.float32)
        player_buf = np.zeros((T, N), dtype=np.int64)
        learner_buf = np.zeros((T, N), dtype=bool)
        rew_buf = np.zeros((T, N, P), dtype=np.float32)
        done_buf = np.zeros((T, N), dtype=bool)
        actions = np.zeros(N, dtype=np.int64)
        slot_return = np.zeros(N)  # the learner's result in each slot's game so far

        obs, mask, player = vg.reset()
        obs = inputs(obs, mask)
        tables.draw(np.arange(N))
        next_snapshot = _next(step, lg["snapshot_interval"])
        next_eval = _next(step, cfg["eval"]["interval"])
        next_ckpt = _next(step, cfg["checkpoint_interval"])
        bar = tqdm(total=cfg["total_steps"], initial=step, disable=not progress, unit="step",
                   unit_scale=True, dynamic_ncols=True, desc=game)
        last_eval: dict = {}

        def evaluate() -> dict:
            from catzoo.training.eval import balanced, summary_line

            nonlocal last_eval
            ev = cfg["eval"]
            if ev["games"] == 0:
                return last_eval
            results = {}
            learner = _numpy_policy(net, meta())
            for opponent in ev["opponents"]:
                r = balanced(learner, opponent, game, n, ev["games"], env["options"],
                             seed=10_000_000)
                results[opponent] = r
                self._append("eval.csv", EVAL_FIELDS, {
                    "step": step, "opponent": opponent, "games": r["games"],
                    "metric": r["metric"], "value": r["value"], "low": r["low"],
                    "high": r["high"]})
                writer.add_scalar(f"eval/{opponent}", r["value"], step)
                (bar.write if progress else log)(f"step {step}: {summary_line(r)}")
            last_eval = {"step": step, **results}
            draw(self.dir)
            return last_eval

        try:
            while step < cfg["total_steps"]:
                t0 = time.perf_counter()
                if ppo["anneal_lr"]:
                    frac = 1.0 - step / cfg["total_steps"]
                    opt.param_groups[0]["lr"] = frac * ppo["learning_rate"]
                finished: dict[str, list[float]] = {k: [] for k in KINDS_OF_TABLES}
                # --- rollout: T agent-steps of every slot ---
                for t in range(T):
                    obs_buf[t], mask_buf[t], player_buf[t] = obs, mask, player
                    mine = tables.act_others(player, obs, mask, actions, generator)
                    learner_buf[t] = False
                    learner_buf[t, mine] = True
                    if mine.size:
                        with torch.no_grad():
                            logits, value = net(torch.from_numpy(obs[mine]),
                                                torch.from_numpy(mask[mine]))
                            logp_all = torch.log_softmax(logits, 1)
                            a = gumbel_max(logits, torch.rand(logits.shape, generator=generator))
                            logp_buf[t, mine] = logp_all.gather(1, a[:, None])[:, 0].numpy()
                            val_buf[t, mine] = value.numpy()
                        actions[mine] = a.numpy()
                    act_buf[t] = actions
                    obs, mask, player, rewards, done = vg.step(actions)
                    obs = inputs(obs, mask)
                    learned = zero_sum(rewards) if ppo["zero_sum"] else rewards
                    rew_buf[t], done_buf[t] = learned * ppo["reward_scale"], done
                    learner_seat = tables.owner == 0
                    slot_return += (rewards * learner_seat).sum(1) / np.maximum(
                        learner_seat.sum(1), 1)
                    if done.any():
                        ended = np.flatnonzero(done)
                        for i in ended:
                            kind = KINDS_OF_TABLES[tables.kind[i]]
                            finished[kind].append(slot_return[i])
                            if kind == "league":
                                self.league.record([{"opponents": [tables.holder[i]],
                                                     "learner_return": float(
                                                         vg.final_returns[i][tables.owner[i]
                                                                             == 0].mean())}])
                        slot_return[ended] = 0.0
                        tables.draw(ended)
                # --- bootstrap the open trajectories with each seat's own view ---
                boot = np.zeros((N, P), dtype=np.float32)
                views = np.empty((N, vg.obs_size), dtype=np.float32)
                with torch.no_grad():
                    for seat in range(P):
                        for slot in range(N):
                            views[slot] = vg.observe(slot, seat)
                        seat_mask = np.where((player == seat)[:, None], mask, 0)
                        boot[:, seat] = net.value(torch.from_numpy(
                            inputs(views, seat_mask))).numpy()
                adv, ret = per_seat_advantages(player_buf, learner_buf, val_buf, rew_buf,
                                               done_buf, boot, ppo["gamma"], ppo["gae_lambda"])
                # --- update: PPO epochs over minibatches of the learner's decisions ---
                ti = np.flatnonzero(learner_buf.reshape(-1))
                b_obs = torch.from_numpy(obs_buf.reshape(T * N, D)[ti])
                b_mask = torch.from_numpy(mask_buf.reshape(T * N, A)[ti])
                b_act = torch.from_numpy(act_buf.reshape(-1)[ti])
                b_logp = torch.from_numpy(logp_buf.reshape(-1)[ti])
                b_adv = torch.from_numpy(adv.reshape(-1)[ti])
                b_ret = torch.from_numpy(ret.reshape(-1)[ti])
                b_val = torch.from_numpy(val_buf.reshape(-1)[ti])
                B = ti.size
                mb = max(1, B // ppo["num_minibatches"])
                stats = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0,
                         "approx_kl": 0.0, "clip_fraction": 0.0}
                updates = 0
                for _epoch in range(ppo["n_epochs"]):
                    perm = torch.randperm(B, generator=generator)
                    for start in range(0, B - mb + 1, mb):
                        idx = perm[start:start + mb]
                        logits, v = net(b_obs[idx], b_mask[idx])
                        logp_all = torch.log_softmax(logits, 1)
                        new_logp = logp_all.gather(1, b_act[idx, None])[:, 0]
                        entropy = -(logp_all.exp() * logp_all).sum(1).mean()
                        ratio = (new_logp - b_logp[idx]).exp()
                        a = b_adv[idx]
                        if ppo["norm_adv"]:
                            a = (a - a.mean()) / (a.std() + 1e-8)
                        clip = ppo["clip_range"]
                        pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).mean()
                        if ppo["clip_vloss"]:
                            v_clip = b_val[idx] + (v - b_val[idx]).clamp(-clip, clip)
                            v_loss = 0.5 * torch.max((v - b_ret[idx]) ** 2,
                                                     (v_clip - b_ret[idx]) ** 2).mean()
                        else:
                            v_loss = 0.5 * ((v - b_ret[idx]) ** 2).mean()
                        loss = pg_loss - ppo["ent_coef"] * entropy + ppo["vf_coef"] * v_loss
                        opt.zero_grad()
                        loss.backward()
                        nn.utils.clip_grad_norm_(net.parameters(), ppo["max_grad_norm"])
                        opt.step()
                        with torch.no_grad():
                            log_ratio = new_logp - b_logp[idx]
                            kl = ((ratio - 1) - log_ratio).mean().item()
                            stats["approx_kl"] += kl
                            stats["clip_fraction"] += ((ratio - 1).abs() > clip).float().mean().item()
                        stats["policy_loss"] += pg_loss.item()
                        stats["value_loss"] += v_loss.item()
                        stats["entropy"] += entropy.item()
                        updates += 1
                    if ppo["target_kl"] and kl > ppo["target_kl"]:
                        break
                # --- logging ---
                rollouts += 1
                step += B
                seconds = time.perf_counter() - t0
                var = float(b_ret.var())
                row = {"step": step, "seconds": round(seconds, 3),
                       "learner_steps_per_s": round(B / seconds),
                       "agent_steps_per_s": round(T * N / seconds),
                       "learning_rate": opt.param_groups[0]["lr"],
                       **{k: v / max(updates, 1) for k, v in stats.items()},
                       "explained_variance": (float("nan") if var == 0 else
                                              1 - float((b_ret - b_val).var()) / var),
                       "games": sum(len(v) for v in finished.values())}
                for kind, values in finished.items():
                    row[f"return_{kind}"] = float(np.mean(values)) if values else ""
                self._append("train.csv", TRAIN_FIELDS, row)
                for k, v in row.items():
                    if k != "step" and v != "":
                        writer.add_scalar(f"train/{k}", v, step)
                bar.update(B)
                bar.set_postfix(sps=row["learner_steps_per_s"], refresh=False)
                # --- league, evaluation, checkpoints ---
                if step >= next_snapshot:
                    snapshot()
                    tables.refresh(self.league.snapshots, self.league.data["stats"])
                    next_snapshot = _next(step, lg["snapshot_interval"])
                else:
                    self.league.save()
                if step >= next_eval:
                    evaluate()
                    next_eval = _next(step, cfg["eval"]["interval"])
                if step >= next_ckpt:
                    checkpoint()
                    next_ckpt = _next(step, cfg["checkpoint_interval"])
            evals = last_eval if last_eval.get("step") == step else evaluate()
            if not (self.ckpt_dir / f"step_{step:010d}").is_dir():
                checkpoint()
            path = save_policy(self.dir / "policy", net.actor_weights(), meta(evals))
        finally:
            bar.close()
            writer.close()
            vg.close()
        log(f"policy written to {path}")
        return path


def _numpy_policy(net: ActorCritic, meta: dict):
    from catzoo.training.policy_net import MLPPolicy

    return MLPPolicy(net.actor_weights(), net.hidden, net.activation, name="learner", meta=meta)


def _next(step: int, interval: int) -> int:
    return (step // interval + 1) * interval


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _csv_text(fields: list[str], rows: list[dict]) -> str:
    import io

    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=fields)
    w.writeheader()
    w.writerows(rows)
    return out.getvalue()


def train(config: dict, run_dir, progress: bool = True, log=print) -> Path:
    """Start a new run; returns the final policy checkpoint's path."""
    return Run.create(run_dir, config).train(progress=progress, log=log)


def resume(run_dir, overrides=(), progress: bool = True, log=print,
           trust_run_dir: bool = False) -> Path:
    """Continue a run from its last checkpoint. ``trust_run_dir`` is the SB3 path's (its
    pickled .zip); this trainer's checkpoints are safetensors + JSON, never code."""
    del trust_run_dir
    return Run.open(run_dir, overrides).train(progress=progress, log=log)
