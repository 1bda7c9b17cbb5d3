"""Masked PPO self-play on the batched engine, with expert iteration, readable top to bottom
(as CleanRL's ppo.py).

    catzoo train --config configs/cat_in_the_box.yaml          # trainer: ppo (the default)
    catzoo train --resume runs/cat_in_the_box-20261201-101500   # after a crash or a kill

One process steps ``vector.num_envs`` games at once through ``catzoo.vector`` (the compiled
cores, ``vector.threads`` threads). At every agent-step each game has one player to act;
the learner decides for all the slots whose player to act is one of its seats in one batched
forward pass, and each opponent (a league snapshot or a bot) for the slots it holds in one
call (``training.tables``). A rollout is ``ppo.rollout_steps`` agent-steps of every slot.
Each iteration of ``Trainer.run`` is: rollout, advantages, PPO update, expert iteration,
log; then the league, the evaluation and the checkpoint, each when its interval comes.

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

**Expert iteration** (``expert.states`` > 0; ``training.expert``): positions drawn from the
rollouts' self-play are labelled by a search over the current network, and the network
learns the search's move distribution and value; ``ppo.enabled`` keeps the PPO update
beside it or leaves the network to the search's labels alone.

**The league.** Every ``league.snapshot_interval`` learner steps a snapshot of the actor joins
the run's ``league/`` (an ordinary policy checkpoint, as the SB3 path writes); games not
in pure self-play face one opponent drawn by ``league.mix`` from the league (by
``league.scheme``: latest, uniform, or prioritised by the learner's results), the game's
heuristic or the random bot.

**The run directory** (``training.run_dir``, shared with the SB3 trainer) holds
``config.yaml``, ``seeds.json``, ``league/``, ``checkpoints/step_N/`` (``trainer.safetensors``
+ ``trainer.json``: weights, optimizer moments, generator states, the expert's labelled
positions; ``state.json``: counters, the league; ``policy/``) with ``latest.json``,
``logs/`` (``train.csv``, ``eval.csv``, TensorBoard events), ``learning_curve.png`` (redrawn
at every evaluation) and at the end ``policy/``, the policy checkpoint that ``load_policy``
reads anywhere. A run killed at any moment resumes from its last checkpoint, losing at most
``checkpoint_interval`` steps; the logs drop the rows written after it, so resuming never
duplicates a row. No pickle anywhere.
"""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from catzoo.policies import features
from catzoo.training import imitation
from catzoo.training.actor import Actor
from catzoo.training.checkpoint import (
    CheckpointError,
    load_policy,
    load_trainer_state,
    save_policy,
    save_trainer_state,
)
from catzoo.training.rewards import zero_sum
from catzoo.training.run_dir import RunDir, RunError, next_multiple
from catzoo.training.tables import KINDS_OF_TABLES, ActorOpponent, BotOpponent, SlotSeating

__all__ = ["ActorCritic", "RunError", "Trainer", "gumbel_max", "per_seat_advantages",
           "resume", "train"]

TRAINER = "catzoo.training.ppo (batched masked PPO self-play with league)"
TRAIN_FIELDS = ["step", "seconds", "learner_steps_per_s", "agent_steps_per_s", "learning_rate",
                "policy_loss", "value_loss", "entropy", "approx_kl", "clip_fraction",
                "explained_variance", "games"] + [f"return_{k}" for k in KINDS_OF_TABLES]
EVAL_FIELDS = ["step", "opponent", "games", "metric", "value", "low", "high"]


# --- the network ---------------------------------------------------------------------------------
def mlp(sizes: list[int], activation: str) -> list[nn.Module]:
    act = {"tanh": nn.Tanh, "relu": nn.ReLU}[activation]
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(sizes):
        layers += [nn.Linear(a, b), act()]
    return layers


class ActorCritic(nn.Module):
    """An MLP actor and critic (CleanRL's ``Agent``): two separate MLPs, or one trunk with
    two heads (``critic: shared``, half the arithmetic). The actor is an ``Actor`` over this
    module's own parameters (``self.actor``): the numpy pass every CatZoo tool plays sees
    each optimizer step, and its weights are what a policy checkpoint stores."""

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
        linear = [m for m in self.trunk if isinstance(m, nn.Linear)] + [self.action_head]
        self.actor = Actor.of_parameters([p for m in linear for p in (m.weight, m.bias)],
                                         self.hidden, activation)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Masked logits and values of a batch of observations."""
        h = self.actor.hidden_torch(x)
        logits = self.actor.head_torch(h).masked_fill(mask == 0, -1e9)
        hv = h if self.critic_trunk is None else self.critic_trunk(x)
        return logits, self.value_head(hv).squeeze(-1)

    def value(self, x: torch.Tensor) -> torch.Tensor:
        hv = self.actor.hidden_torch(x) if self.critic_trunk is None else self.critic_trunk(x)
        return self.value_head(hv).squeeze(-1)

    # What behaviour cloning (catzoo.training.imitation.pretrain) asks of a model.
    def log_prob_value(self, x: torch.Tensor, mask: np.ndarray, actions: torch.Tensor):
        logits, values = self(x, torch.from_numpy(mask))
        return torch.log_softmax(logits, 1).gather(1, actions[:, None])[:, 0], values

    def best(self, x: torch.Tensor, mask: np.ndarray) -> np.ndarray:
        logits, _ = self(x, torch.from_numpy(mask))
        return logits.argmax(1).numpy()


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


# --- one rollout --------------------------------------------------------------------------------------
class Rollout:
    """The buffers of one rollout (T agent-steps of N slots) and the games they continue."""

    def __init__(self, vg, T: int, inputs, seating: SlotSeating, ppo: dict, league,
                 observer=None):
        N, P, A = vg.num_envs, vg.num_players, vg.num_actions
        D = inputs(np.zeros((1, vg.obs_size), np.float32), np.zeros((1, A), np.int8)).shape[1]
        self.vg, self.T, self.inputs, self.seating, self.ppo, self.league = (
            vg, T, inputs, seating, ppo, league)
        self.observer = observer  # sees every step's actions and ends (expert iteration)
        self.obs = np.zeros((T, N, D), dtype=np.float32)
        self.mask = np.zeros((T, N, A), dtype=np.int8)
        self.act = np.zeros((T, N), dtype=np.int64)
        self.logp = np.zeros((T, N), dtype=np.float32)
        self.val = np.zeros((T, N), dtype=np.float32)
        self.player = np.zeros((T, N), dtype=np.int64)
        self.learner = np.zeros((T, N), dtype=bool)
        self.rew = np.zeros((T, N, P), dtype=np.float32)
        self.done = np.zeros((T, N), dtype=bool)
        self.boot = np.zeros((N, P), dtype=np.float32)
        self._actions = np.zeros(N, dtype=np.int64)
        self._slot_return = np.zeros(N)  # the learner's result in each slot's game so far

    def start(self) -> None:
        obs, mask, self._player = self.vg.reset()
        self._obs, self._mask = self.inputs(obs, mask), mask
        self.seating.draw(np.arange(self.vg.num_envs))
        if self.observer is not None:
            self.observer.start(self.vg)

    @torch.no_grad()
    def collect(self, net: ActorCritic, generator: torch.Generator) -> dict[str, list[float]]:
        """Play T agent-steps of every slot into the buffers; returns the learner's result
        in each game that ended, by kind of table."""
        vg, seating, actions = self.vg, self.seating, self._actions
        finished: dict[str, list[float]] = {k: [] for k in KINDS_OF_TABLES}
        for t in range(self.T):
            obs, mask, player = self._obs, self._mask, self._player
            self.obs[t], self.mask[t], self.player[t] = obs, mask, player
            mine = seating.act_others(player, obs, mask, actions, generator)
            self.learner[t] = False
            self.learner[t, mine] = True
            if mine.size:
                logits, value = net(torch.from_numpy(obs[mine]), torch.from_numpy(mask[mine]))
                a = gumbel_max(logits, torch.rand(logits.shape, generator=generator))
                self.logp[t, mine] = torch.log_softmax(logits, 1).gather(1, a[:, None])[:, 0].numpy()
                self.val[t, mine] = value.numpy()
                actions[mine] = a.numpy()
            self.act[t] = actions
            if self.observer is not None:
                self.observer.before_step(obs, mask, player, mine, actions)
            obs, mask, self._player, rewards, done = vg.step(actions)
            self._obs, self._mask = self.inputs(obs, mask), mask
            learned = zero_sum(rewards) if self.ppo["zero_sum"] else rewards
            self.rew[t], self.done[t] = learned * self.ppo["reward_scale"], done
            if self.observer is not None:
                self.observer.after_step(done, vg.final_returns)
            learner_seat = seating.owner == 0
            self._slot_return += (rewards * learner_seat).sum(1) / np.maximum(
                learner_seat.sum(1), 1)
            if done.any():
                self._games_ended(np.flatnonzero(done), finished)
        self._bootstrap(net)
        return finished

    def _games_ended(self, ended: np.ndarray, finished: dict) -> None:
        seating = self.seating
        for i in ended:
            kind = KINDS_OF_TABLES[seating.kind[i]]
            finished[kind].append(self._slot_return[i])
            if kind == "league":
                self.league.record([{"opponents": [seating.holder[i]], "learner_return": float(
                    self.vg.final_returns[i][seating.owner[i] == 0].mean())}])
        self._slot_return[ended] = 0.0
        seating.draw(ended)

    def _bootstrap(self, net: ActorCritic) -> None:
        """Each seat's value of its own view after the last step (open trajectories)."""
        vg, N = self.vg, self.vg.num_envs
        views = np.empty((N, vg.obs_size), dtype=np.float32)
        for seat in range(vg.num_players):
            for slot in range(N):
                views[slot] = vg.observe(slot, seat)
            seat_mask = np.where((self._player == seat)[:, None], self._mask, 0)
            self.boot[:, seat] = net.value(torch.from_numpy(self.inputs(views, seat_mask))).numpy()

    def learner_batch(self, adv: np.ndarray, ret: np.ndarray) -> dict[str, torch.Tensor]:
        """The learner's decisions of the rollout as flat tensors."""
        T, N, D = self.obs.shape
        ti = np.flatnonzero(self.learner.reshape(-1))
        return {"obs": torch.from_numpy(self.obs.reshape(T * N, D)[ti]),
                "mask": torch.from_numpy(self.mask.reshape(T * N, -1)[ti]),
                "act": torch.from_numpy(self.act.reshape(-1)[ti]),
                "logp": torch.from_numpy(self.logp.reshape(-1)[ti]),
                "adv": torch.from_numpy(adv.reshape(-1)[ti]),
                "ret": torch.from_numpy(ret.reshape(-1)[ti]),
                "val": torch.from_numpy(self.val.reshape(-1)[ti])}


# --- the PPO update -------------------------------------------------------------------------------
def ppo_update(net: ActorCritic, opt: torch.optim.Optimizer, b: dict[str, torch.Tensor],
               ppo: dict, generator: torch.Generator) -> dict[str, float]:
    """``ppo.n_epochs`` epochs of clipped PPO over minibatches of the learner's decisions;
    the mean of each statistic over the minibatches."""
    B = b["obs"].shape[0]
    mb = max(1, B // ppo["num_minibatches"])
    stats = dict.fromkeys(("policy_loss", "value_loss", "entropy", "approx_kl",
                           "clip_fraction"), 0.0)
    updates, clip = 0, ppo["clip_range"]
    for _epoch in range(ppo["n_epochs"]):
        perm = torch.randperm(B, generator=generator)
        for start in range(0, B - mb + 1, mb):
            idx = perm[start:start + mb]
            logits, v = net(b["obs"][idx], b["mask"][idx])
            logp_all = torch.log_softmax(logits, 1)
            new_logp = logp_all.gather(1, b["act"][idx, None])[:, 0]
            entropy = -(logp_all.exp() * logp_all).sum(1).mean()
            ratio = (new_logp - b["logp"][idx]).exp()
            a = b["adv"][idx]
            if ppo["norm_adv"]:
                a = (a - a.mean()) / (a.std() + 1e-8)
            pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - clip, 1 + clip)).mean()
            ret, old_v = b["ret"][idx], b["val"][idx]
            if ppo["clip_vloss"]:
                v_clip = old_v + (v - old_v).clamp(-clip, clip)
                v_loss = 0.5 * torch.max((v - ret) ** 2, (v_clip - ret) ** 2).mean()
            else:
                v_loss = 0.5 * ((v - ret) ** 2).mean()
            loss = pg_loss - ppo["ent_coef"] * entropy + ppo["vf_coef"] * v_loss
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), ppo["max_grad_norm"])
            opt.step()
            with torch.no_grad():
                kl = ((ratio - 1) - (new_logp - b["logp"][idx])).mean().item()
                stats["approx_kl"] += kl
                stats["clip_fraction"] += ((ratio - 1).abs() > clip).float().mean().item()
            stats["policy_loss"] += pg_loss.item()
            stats["value_loss"] += v_loss.item()
            stats["entropy"] += entropy.item()
            updates += 1
        if ppo["target_kl"] and kl > ppo["target_kl"]:
            break
    return {k: v / max(updates, 1) for k, v in stats.items()}


def explained_variance(b: dict[str, torch.Tensor]) -> float:
    var = float(b["ret"].var()) if b["ret"].numel() > 1 else 0.0
    return float("nan") if var == 0 else 1 - float((b["ret"] - b["val"]).var()) / var


# --- a session of a run ------------------------------------------------------------------------------
def init_sha256_of(info: dict, ckpt: Path | None) -> str | None:
    """The sha256 of the weights a resumed run started from, as its checkpoint's state.json
    keeps it (None: fresh weights, or a checkpoint written before runs kept it)."""
    sha = info.get("init_weights_sha256")
    if sha is not None and not (isinstance(sha, str) and len(sha) == 64
                                and all(c in "0123456789abcdef" for c in sha)):
        raise RunError(f"checkpoint {str(ckpt)!r}: init_weights_sha256 is not a sha256 "
                       f"(64 hexadecimal digits), got {sha!r:.80}")
    return sha


class Trainer:
    """One session of a run: ``run`` sets up (new, or from the last checkpoint), then
    iterates rollout -> advantages -> update -> expert iteration -> log, with the league,
    the evaluation and the checkpoints between iterations."""

    def __init__(self, run: RunDir, progress: bool = True, log=print):
        self.run_dir, self.cfg, self.progress, self.log = run, run.config, progress, log
        self.last_eval: dict = {}

    # --- the loop ----------------------------------------------------------------------------------
    def run(self) -> Path:
        from tqdm import tqdm

        cfg, ppo = self.cfg, self.cfg["ppo"]
        torch.set_num_threads(cfg["torch_threads"])
        self.run_dir.clear_temporaries(self.log)
        ckpt = self.run_dir.latest(self.log)
        if ckpt is not None:
            done = self.run_dir.checkpoint_state(ckpt)["step"]
            if done >= cfg["total_steps"]:
                return self.run_dir.finished(ckpt, done, lambda c: c / "policy", self.log)
        self.setup(ckpt)
        bar = tqdm(total=cfg["total_steps"], initial=self.step, disable=not self.progress,
                   unit="step", unit_scale=True, dynamic_ncols=True, desc=cfg["game"])
        try:
            while self.step < cfg["total_steps"] and not self.over_budget():
                t0 = time.perf_counter()
                if ppo["anneal_lr"]:
                    self.opt.param_groups[0]["lr"] = (
                        1.0 - self.step / cfg["total_steps"]) * ppo["learning_rate"]
                # --- rollout: T agent-steps of every slot ---
                finished = self.rollout.collect(self.net, self.generator)
                r = self.rollout
                # --- advantages along each seat's decisions ---
                adv, ret = per_seat_advantages(r.player, r.learner, r.val, r.rew, r.done, r.boot,
                                               ppo["gamma"], ppo["gae_lambda"])
                batch = r.learner_batch(adv, ret)
                # --- update: PPO, then the search's labels ---
                stats = (ppo_update(self.net, self.opt, batch, ppo, self.generator)
                         if ppo["enabled"] else {})
                if self.expert is not None:
                    stats.update(self.expert.iterate(self.net, self.opt, self.generator))
                # --- log ---
                self.rollouts += 1
                self.step += batch["obs"].shape[0]
                self.log_iteration(time.perf_counter() - t0, batch, stats, finished)
                bar.update(batch["obs"].shape[0])
                # --- league, evaluation, checkpoints ---
                self.between_iterations()
            evals = self.last_eval if self.last_eval.get("step") == self.step else self.evaluate()
            if not (self.run_dir.ckpt_dir / f"step_{self.step:010d}").is_dir():
                self.checkpoint()
            path = save_policy(self.run_dir.dir / "policy", self.net.actor.weights(),
                               self.meta(evals))
        finally:
            bar.close()
            self.writer.close()
            self.vg.close()
            if self.expert is not None:
                self.expert.close()
        self.log(f"policy written to {path}")
        return path

    def over_budget(self) -> bool:
        """The run has spent ``cpu_budget`` CPU seconds (its start network's included)."""
        budget = self.cfg.get("cpu_budget", 0)  # runs made before the key have none
        spent = self.run_dir.cpu_used() if budget else 0.0
        if budget and spent >= budget:
            self.log(f"cpu_budget: {spent:.0f} of {budget} CPU-s spent at step {self.step}; stopping")
            return True
        return False

    # --- set-up ---------------------------------------------------------------------------------
    def setup(self, ckpt: Path | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        from catzoo import vector
        from catzoo.training import expert

        cfg, env = self.cfg, self.cfg["env"]
        game, n = cfg["game"], env["num_players"]
        state = None if ckpt is None else self.read_checkpoint(ckpt)
        info = {} if ckpt is None else self.run_dir.checkpoint_state(ckpt)
        init = self.initial_policy() if state is None else None
        cpu_before = (info.get("cpu_seconds", 0.0) if init is None
                      else float(init.meta.get("cpu_seconds", 0.0)))
        # The weights the run started from, by their sha256: network.init names a folder or
        # `shipped`, which another machine may lack or a later release may hold other weights
        # under; kept in every checkpoint so that a resumed run names the same ones.
        self.init_sha256 = (init.meta["weights_sha256"] if init is not None
                            else init_sha256_of(info, ckpt))
        _, seed = self.run_dir.begin_session(info.get("step", 0), cpu_before,
                                             vector_seed=lambda s: s)
        self.vg = vector.make(game, num_envs=cfg["vector"]["num_envs"], num_players=n,
                              seed=seed, reward=env["reward"], threads=cfg["vector"]["threads"],
                              **env["options"])
        feature_set = features.configured(cfg)

        def inputs(o: np.ndarray, m: np.ndarray) -> np.ndarray:
            return features.augment(feature_set, o, m, n, env["options"])

        self.inputs = inputs
        D = self.vg.obs_size + features.width(feature_set, n)
        net_cfg = cfg["network"]
        with torch.random.fork_rng(devices=[]):  # the run's seed draws its first weights,
            torch.manual_seed(seed)              # and the caller's torch RNG is left as it was
            self.net = ActorCritic(D, self.vg.num_actions, net_cfg["hidden"],
                                   net_cfg["activation"], net_cfg["critic"])
        if init is not None:
            with torch.no_grad():  # the actor starts as the checkpoint's; the critic afresh
                for mine, theirs in zip(self.net.actor.tensors(), init.actor.tensors()):
                    mine.copy_(theirs)
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg["ppo"]["learning_rate"], eps=1e-5)
        self.generator = torch.Generator().manual_seed(seed)
        self.rng = np.random.default_rng(seed)
        self.step, self.rollouts = 0, 0
        self.expert = (expert.ExpertIteration(cfg, self.vg, inputs, seed)
                       if cfg["expert"]["states"] > 0 else None)
        league = self.run_dir.league
        if state is not None:
            self.restore(state, info)
            league.data = info["league"]
            league.save()
            self.run_dir.truncate_rows(self.step)
            self.log(f"resuming {self.run_dir.dir} from step {self.step}")
        else:
            league.data = {"snapshots": [], "partner": None, "stats": {}}
        self.writer = SummaryWriter(str(self.run_dir.logs / "tb"), purge_step=self.step or None)
        # --- behaviour cloning of the teacher before PPO, then a step-0 checkpoint so that a
        # run killed later resumes without cloning again ---
        if state is None and cfg["imitation"]["games"] > 0:
            self.run_dir.save_imitation(imitation.warm_start(self.net, cfg, seed, log=self.log))
            self.checkpoint()
        self.seating = self.make_seating()
        if not league.snapshots:
            self.snapshot()
        self.seating.refresh(league.snapshots, league.data["stats"])
        self.rollout = Rollout(self.vg, cfg["ppo"]["rollout_steps"], inputs, self.seating,
                               cfg["ppo"], league, observer=self.expert)
        self.rollout.start()
        self.next_snapshot = next_multiple(self.step, cfg["league"]["snapshot_interval"])
        self.next_eval = next_multiple(self.step, cfg["eval"]["interval"])
        self.next_ckpt = next_multiple(self.step, cfg["checkpoint_interval"])

    def initial_policy(self):
        """The checkpoint ``network.init`` names (None: fresh weights)."""
        spec = self.cfg["network"]["init"]
        if not spec:
            return None
        game, n = self.cfg["game"], self.cfg["env"]["num_players"]
        try:
            return load_policy(f"shipped:{game}" if spec == "shipped" else spec, game=game,
                               num_players=n, env_options=self.cfg["env"]["options"])
        except CheckpointError as err:
            raise RunError(f"network.init: {err}") from None

    def make_seating(self) -> SlotSeating:
        from catzoo.policies.registry import make_policy

        cfg, vg = self.cfg, self.vg
        game, n, lg = cfg["game"], vg.num_players, cfg["league"]
        seed = int(self.rng.integers(2**31))
        bots = {"random": BotOpponent(make_policy("random", game, n, seed=seed), vg.obs_size)}
        try:
            bots["heuristic"] = BotOpponent(make_policy("heuristic", game, n, seed=seed),
                                            vg.obs_size)
        except ValueError:
            pass  # a game without a heuristic trains against random and the league
        if lg["opponent"]:
            bots["opponent"] = BotOpponent(make_policy(lg["opponent"], game, n, seed=seed,
                                                       env_options=cfg["env"]["options"]),
                                           vg.obs_size)

        def load_snapshot(sid: str) -> ActorOpponent:
            policy = load_policy(self.run_dir.league.dir / sid, game=game, num_players=n)
            return ActorOpponent(policy.actor, lg["opponent_deterministic"])

        return SlotSeating(vg.num_envs, n, cfg["teams"], lg, bots, load_snapshot, self.rng)

    # --- checkpoints ------------------------------------------------------------------------------
    def read_checkpoint(self, ckpt: Path) -> dict:
        try:
            return load_trainer_state(ckpt, as_torch=lambda a: torch.from_numpy(a.copy()))
        except CheckpointError as err:
            raise RunError(str(err)) from None

    def restore(self, state: dict, info: dict) -> None:
        from catzoo.training.checkpoint import numpy_rng_from

        try:
            self.net.load_state_dict(state["net"])
            self.opt.load_state_dict(state["optimizer"])
            self.generator.set_state(state["torch_rng"])
            self.rng = numpy_rng_from(state["numpy_rng"])
            if self.expert is not None:
                self.expert.load_state(state.get("expert"))
        except (KeyError, TypeError, ValueError, RuntimeError) as err:
            raise RunError(f"{self.run_dir.dir}: its last checkpoint does not fit this run "
                           f"({type(err).__name__}: {str(err)[:300]})") from None
        self.step, self.rollouts = info["step"], info.get("rollouts", 0)

    def checkpoint(self) -> None:
        from catzoo.training.checkpoint import numpy_rng_state

        state = {"net": self.net.state_dict(), "optimizer": self.opt.state_dict(),
                 "torch_rng": self.generator.get_state(), "numpy_rng": numpy_rng_state(self.rng)}
        if self.expert is not None:
            state["expert"] = self.expert.state()

        def write(tmp: Path) -> None:
            save_trainer_state(tmp, state)
            save_policy(tmp / "policy", self.net.actor.weights(), self.meta(self.last_eval))

        extra = {} if self.init_sha256 is None else {"init_weights_sha256": self.init_sha256}
        self.run_dir.write_checkpoint(self.step, write, {"rollouts": self.rollouts,
                                                        "time": time.time(), **extra})

    # --- what runs between iterations ----------------------------------------------------------
    def between_iterations(self) -> None:
        cfg = self.cfg
        if self.step >= self.next_snapshot:
            self.snapshot()
            self.seating.refresh(self.run_dir.league.snapshots, self.run_dir.league.data["stats"])
            self.next_snapshot = next_multiple(self.step, cfg["league"]["snapshot_interval"])
        else:
            self.run_dir.league.save()
        if self.step >= self.next_eval:
            self.evaluate()
            self.next_eval = next_multiple(self.step, cfg["eval"]["interval"])
        if self.step >= self.next_ckpt:
            self.checkpoint()
            self.next_ckpt = next_multiple(self.step, cfg["checkpoint_interval"])

    def snapshot(self) -> None:
        self.run_dir.league.add_snapshot(self.step, self.net.actor.weights(), self.meta(),
                                         self.cfg["league"]["max_snapshots"])

    def meta(self, evals=None) -> dict:
        extra = {"zero_sum": self.cfg["ppo"]["zero_sum"]}  # learned as margins over the table
        if self.cfg["network"]["init"]:
            extra["init"] = self.cfg["network"]["init"]  # its CPU seconds are in cpu_seconds
        if self.init_sha256 is not None:
            extra["init_weights_sha256"] = self.init_sha256
        if self.expert is not None:
            extra["expert"] = self.expert.meta()
        return self.run_dir.policy_meta(self.step, self.vg.obs_size, self.vg.num_actions,
                                        evals or {}, TRAINER, **extra)

    def evaluate(self) -> dict:
        from catzoo.training.curves import draw
        from catzoo.training.eval import balanced, summary_line
        from catzoo.training.policy_net import MLPPolicy

        cfg, ev = self.cfg, self.cfg["eval"]
        if ev["games"] == 0:
            return self.last_eval
        learner = MLPPolicy(self.net.actor.copy(), name="learner", meta=self.meta())
        results = {}
        for opponent in ev["opponents"]:
            r = balanced(learner, opponent, cfg["game"], self.vg.num_players, ev["games"],
                         cfg["env"]["options"], seed=10_000_000)
            results[opponent] = r
            self.run_dir.append_row("eval.csv", EVAL_FIELDS, {"step": self.step,
                                                              "opponent": opponent, **{
                k: r[k] for k in ("games", "metric", "value", "low", "high")}})
            self.writer.add_scalar(f"eval/{opponent}", r["value"], self.step)
            self.log(f"step {self.step}: {summary_line(r)}")
        self.last_eval = {"step": self.step, **results}
        draw(self.run_dir.dir)
        return self.last_eval

    def log_iteration(self, seconds: float, batch: dict, stats: dict, finished: dict) -> None:
        B, T, N = batch["obs"].shape[0], self.rollout.T, self.vg.num_envs
        row = {"step": self.step, "seconds": round(seconds, 3),
               "learner_steps_per_s": round(B / seconds), "agent_steps_per_s": round(T * N / seconds),
               "learning_rate": self.opt.param_groups[0]["lr"],
               "explained_variance": explained_variance(batch),
               "games": sum(len(v) for v in finished.values())}
        row.update({k: stats.get(k, "") for k in TRAIN_FIELDS if k not in row
                    and not k.startswith("return_")})
        for kind, values in finished.items():
            row[f"return_{kind}"] = float(np.mean(values)) if values else ""
        self.run_dir.append_row("train.csv", TRAIN_FIELDS, row)
        expert_row = {}
        if self.expert is not None:
            expert_row = {**self.expert.last_row, "run_cpu_s": round(self.run_dir.cpu_used(), 1)}
            if self.expert.note:
                self.log(self.expert.note)
                self.expert.note = ""
            self.run_dir.append_row("expert.csv", self.expert.FIELDS,
                                    {"step": self.step, **expert_row})
        for k, v in {**row, **expert_row}.items():
            if k != "step" and v != "":
                self.writer.add_scalar(f"train/{k}", v, self.step)


def train(config: dict, run_dir, progress: bool = True, log=print) -> Path:
    """Start a new run; returns the final policy checkpoint's path."""
    return Trainer(RunDir.create(run_dir, config), progress, log).run()


def resume(run_dir, overrides=(), progress: bool = True, log=print,
           trust_run_dir: bool = False) -> Path:
    """Continue a run from its last checkpoint. ``trust_run_dir`` is the SB3 path's (its
    pickled .zip); this trainer's checkpoints are safetensors + JSON, never code."""
    del trust_run_dir
    return Trainer(RunDir.open(run_dir, overrides), progress, log).run()
