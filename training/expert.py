"""Expert iteration in the batched trainer: a search over the current network labels positions
of its own self-play, and the network learns the labels (Anthony, Tian & Barber 2017;
AlphaZero's training targets).

Each iteration of ``training.ppo.Trainer``:

1. **Positions.** While the rollout plays, decisions of the learner with more than one legal
   move are picked at random (``ExpertIteration`` watches every step: it keeps each slot's
   game seed and action history, so a picked position is a seed and a prefix of moves, which
   the game's engine replays exactly: ``vector`` deals slot games as ``GameState.new`` does).
2. **Labels.** ``expert.states`` of them are valued by ``pimc`` over the current network
   (``policies.search.rollouts.move_values``: determinized rollouts of the network, with the
   cores' random playouts mixed in by ``search_options``), ``expert.batch`` positions at a
   time, every rollout of a batch stepped together: one forward pass per step for all of
   them. A position's label is the search's move distribution, ``softmax(values / T)`` over
   its legal moves (``temperature`` T; 0: all on the move the search plays, the network's
   own choice among equal best values, as the ``pimc`` bot chooses), or with ``targets:
   improvement`` the network's own policy re-weighted by the values (``targets``), and a
   value: the search's (its best move's mean value) or the game's outcome for the seat
   (``value_target``). T is in the values' units, which the search options set: a rollout
   cut at the deal without random playouts is valued by a score margin (points), one
   finished by random playouts or played to the game's end by a standing ([-1, 1]), so the
   same T is some ten times softer on standings at Lunar (``value_range`` in
   ``logs/expert.csv``, the median spread of a position's move values, shows the scale).
3. **Learning.** The newest ``buffer`` labels are kept; ``epochs`` passes over them in
   minibatches minimise the cross-entropy of the network's masked policy to the labels plus
   ``value_coef`` times the squared error of its value.

Labelling is a pure function of plain data (``label_positions``: the network's weights, the
positions as seeds and move prefixes, each search's seed), so ``ray`` (an address, or "local")
runs the batches on Ray workers and gets the labels a local run gets.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch
from torch import nn

if TYPE_CHECKING:
    from catzoo.games.base import GameState

FIELDS = ["step", "labels", "labels_per_cpu_s", "label_cpu_s", "run_cpu_s", "agreement",
          "expert_policy_loss", "expert_value_loss", "buffer", "value_range"]
SEARCHES = ("pimc",)


@dataclass
class Position:
    """A learner's decision in self-play: the slot's game seed, the moves before it, the seat
    to act; ``outcome``: the seat's final standing, once its game ended."""

    seed: int
    moves: np.ndarray
    player: int
    slot: int
    outcome: float | None = None


def replay(state_cls, options, seed: int, moves) -> GameState:
    """The game ``vector`` dealt from ``seed`` after ``moves``."""
    state = state_cls.new(options, seed=int(seed))
    for a in np.asarray(moves).tolist():
        state.apply_unchecked(a)
    return state


def sample_positions(game: str, num_players: int, count: int, seed: int = 0,
                     options: dict | None = None) -> list[Position]:
    """``count`` positions of seeded games played at random on the batched engine (decisions
    with more than one legal move, a fifth of them), for benchmarks and tests."""
    from catzoo import vector

    slots = 8
    vg = vector.make(game, num_envs=slots, num_players=num_players, seed=seed, **(options or {}))
    _, mask, player = vg.reset()
    moves: list[list[int]] = [[] for _ in range(slots)]
    seeds = vg.seeds.copy()
    rng = np.random.default_rng(seed)
    out: list[Position] = []
    while len(out) < count:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
        for i in range(slots):
            if mask[i].sum() > 1 and rng.random() < 0.2:
                out.append(Position(int(seeds[i]), np.array(moves[i], dtype=np.int16),
                                    int(player[i]), i))
            moves[i].append(int(actions[i]))
        _, mask, player, _, done = vg.step(actions)
        for j in np.flatnonzero(done):
            moves[j], seeds[j] = [], vg.seeds[j]
    vg.close()
    return out[:count]


def label_positions(job: dict) -> dict:
    """Label positions by ``pimc`` over a network, from plain data only (a Ray task runs this
    as it is): ``job`` holds ``game``, ``options`` (the env's, as JSON), ``weights`` (the
    actor's arrays), ``hidden``, ``activation``, ``meta`` (num_players, features, env_options),
    ``positions`` [(seed, moves, player)], ``search_seeds`` (one per position),
    ``search_options`` (pimc's determinizations, horizon, playouts, mix), ``batch``,
    ``threads``. Returns ``values`` [P, A] (NaN where a move is illegal), ``own`` [P] (the
    network's own move at each position) and ``logits`` [P, A] (the network's, -inf where
    illegal)."""
    from threadpoolctl import threadpool_limits

    # One BLAS thread: the forward passes are many and small, and a pool spinning beside
    # the other busy core costs more CPU than it saves (the labels are also the same bits
    # wherever they are computed).
    with threadpool_limits(1):
        return _label(job)


def _label(job: dict) -> dict:
    from catzoo.games.base import options_from_json
    from catzoo.games.registry import get_game
    from catzoo.policies.search.rollouts import Search, move_values
    from catzoo.training.actor import Actor
    from catzoo.training.policy_net import MLPPolicy

    state_cls = get_game(job["game"]).engine_class()
    options = options_from_json(state_cls.options_cls, job["game"], job["options"])
    net = MLPPolicy(Actor(job["weights"], job["hidden"], job["activation"]), name="expert",
                    meta=job["meta"])
    so = job["search_options"]
    states = [replay(state_cls, options, s, m) for s, m, _ in job["positions"]]
    A = states[0].num_actions if states else 0
    values = np.full((len(states), A), np.nan)
    own = np.zeros(len(states), dtype=np.int64)
    logits = np.full((len(states), A), -np.inf)
    for b in range(0, len(states), job["batch"]):
        chunk = states[b:b + job["batch"]]
        for j, st in enumerate(chunk):
            if st.current_player != job["positions"][b + j][2]:
                raise ValueError(f"position {b + j} replays to player {st.current_player}, "
                                 f"not {job['positions'][b + j][2]}")
        obs = np.stack([st.observation(st.current_player) for st in chunk])
        masks = np.stack([st.legal_mask() for st in chunk])
        logits[b:b + len(chunk)] = np.where(masks > 0, net.logits(net._inputs(obs, masks)),
                                            -np.inf)
        own[b:b + len(chunk)] = logits[b:b + len(chunk)].argmax(axis=1)
        searches = [Search(st, st.current_player, st.legal_actions(),
                           random.Random(job["search_seeds"][b + j]))
                    for j, st in enumerate(chunk)]
        for j, v in enumerate(move_values(searches, net, threads=job["threads"],
                                          determinizations=so["determinizations"],
                                          horizon=so["horizon"], playouts=so["playouts"],
                                          mix=so["mix"])):
            for a, x in v.items():
                values[b + j, a] = x
    return {"values": values, "own": own, "logits": logits}


def targets(values: np.ndarray, own: np.ndarray, temperature: float, logits=None,
            kind: str = "search") -> tuple[np.ndarray, np.ndarray]:
    """The label [P, A] and the search's value [P] from its move values (NaN: illegal).

    ``search``: the search's move distribution, ``softmax(values / T)``, or at T = 0 all on
    the move ``pimc`` plays (its network's own move among equal best values, else the first
    best). ``improvement``: the network's own policy re-weighted by the values,
    ``softmax(logits + values / T)`` (the KL-regularised policy improvement of MPO and
    Gumbel MuZero): where the search finds the moves alike it keeps the network's
    preferences, where one is clearly better it moves towards it, in proportion to the gap.
    """
    legal = ~np.isnan(values)
    v = np.where(legal, values, -np.inf)
    best = v.max(axis=1, keepdims=True)
    rows = np.arange(len(v))
    if kind == "improvement":
        z = np.where(legal, logits + (v - best) / temperature, -np.inf)
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
    elif temperature > 0:
        p = np.where(legal, np.exp((v - best) / temperature), 0.0)
        p /= p.sum(axis=1, keepdims=True)
    else:
        ties = v >= best
        move = np.where(ties[rows, own], own, ties.argmax(axis=1))
        p = np.zeros_like(v)
        p[rows, move] = 1.0
    return p.astype(np.float32), best[:, 0].astype(np.float32)


def value_range(values: np.ndarray) -> float:
    """The median over positions of the spread (best minus worst legal move) of the search's
    move values [P, A] (NaN: illegal): the scale ``expert.temperature`` acts on."""
    spread = np.nanmax(values, axis=1) - np.nanmin(values, axis=1)
    return round(float(np.median(spread)), 6)


class ExpertIteration:
    """The expert iteration of one training session (see the module's docstring): it
    watches the rollouts (``start``, ``before_step``, ``after_step``), then ``iterate``
    labels and learns once per rollout."""

    FIELDS = FIELDS

    def __init__(self, cfg: dict, vg, inputs, seed: int):
        self.cfg, self.ex = cfg, cfg["expert"]
        self.vg, self.inputs = vg, inputs
        self.state_cls, self.options = vg.state_cls, vg.options
        self.rng = np.random.default_rng([seed, 0xE4])
        N = vg.num_envs
        self.moves = np.zeros((N, 64), dtype=np.int16)
        self.length = np.zeros(N, dtype=np.int64)
        self.game_seed = np.zeros(N, dtype=np.int64)
        self.pending: list[Position] = []
        self.open: dict[int, list[Position]] = {}  # slot -> its game's positions (outcome)
        # Each rollout offers about twice the positions an iteration labels.
        self.pick = min(1.0, 2.0 * self.ex["states"] / (cfg["ppo"]["rollout_steps"] * N))
        cap, A = self.ex["buffer"], vg.num_actions
        D = inputs(np.zeros((1, vg.obs_size), np.float32), np.zeros((1, A), np.int8)).shape[1]
        self.buf_x = np.zeros((cap, D), dtype=np.float32)
        self.buf_mask = np.zeros((cap, A), dtype=np.int8)
        self.buf_p = np.zeros((cap, A), dtype=np.float32)
        self.buf_v = np.zeros(cap, dtype=np.float32)
        self.size = self.head = 0
        self.labels, self.label_cpu = 0, 0.0
        self.last_row: dict = {}
        self._ray = None
        self.note: str | None = None  # None until the values' scale is checked; then logged

    # --- watching the rollouts ------------------------------------------------------------
    def start(self, vg) -> None:
        self.game_seed[:] = vg.seeds
        self.length[:] = 0

    def before_step(self, obs, mask, player, mine, actions) -> None:
        if mine.size:
            offered = mine[(self.rng.random(mine.size) < self.pick)
                           & ((mask[mine] > 0).sum(axis=1) > 1)]
            for i in offered.tolist():
                pos = Position(int(self.game_seed[i]), self.moves[i, :self.length[i]].copy(),
                               int(player[i]), i)
                self.pending.append(pos)
                self.open.setdefault(i, []).append(pos)
        if self.length.max() >= self.moves.shape[1]:
            self.moves = np.concatenate([self.moves, np.zeros_like(self.moves)], axis=1)
        self.moves[np.arange(self.moves.shape[0]), self.length] = actions
        self.length += 1

    def after_step(self, done, final_returns) -> None:
        for i in np.flatnonzero(done).tolist():
            for pos in self.open.pop(i, ()):
                pos.outcome = float(final_returns[i, pos.player])
            self.length[i] = 0
            self.game_seed[i] = self.vg.seeds[i]

    # --- labelling ----------------------------------------------------------------------------
    def job(self, actor, positions: list[Position], seeds: list[int]) -> dict:
        from catzoo.policies import features

        cfg = self.cfg
        return {"game": cfg["game"],
                "options": {"num_players": cfg["env"]["num_players"], **cfg["env"]["options"]},
                "weights": {k: v.copy() for k, v in actor.weights().items()},
                "hidden": actor.hidden, "activation": actor.activation,
                "meta": {"num_players": cfg["env"]["num_players"],
                         "features": features.configured(cfg),
                         "env_options": cfg["env"]["options"]},
                "positions": [(p.seed, p.moves, p.player) for p in positions],
                "search_seeds": seeds, "search_options": self.ex["search_options"],
                "batch": self.ex["batch"], "threads": self.ex["threads"]}

    def label(self, actor, positions: list[Position]) -> dict:
        """``label_positions`` of ``positions`` over ``actor``, locally or on Ray workers
        (one task per ``expert.batch`` positions)."""
        seeds = [int(s) for s in self.rng.integers(0, 2**63, size=len(positions))]
        if not self.ex["ray"]:
            return label_positions(self.job(actor, positions, seeds))
        from catzoo.training.expert_ray import label_on_ray

        return label_on_ray(self, actor, positions, seeds)

    def take(self) -> list[Position]:
        """The positions this iteration labels: ``states`` of the ready ones, at random
        (with ``value_target: outcome`` a position is ready once its game ended)."""
        outcome = self.ex["value_target"] == "outcome"
        ready = [p for p in self.pending if p.outcome is not None or not outcome]
        self.pending = [p for p in self.pending if outcome and p.outcome is None]
        if len(ready) > self.ex["states"]:
            keep = self.rng.choice(len(ready), size=self.ex["states"], replace=False)
            ready = [ready[i] for i in sorted(keep.tolist())]
        return ready

    # --- one iteration ------------------------------------------------------------------------
    def iterate(self, net, opt, generator) -> dict:
        positions = self.take()
        stats = {}
        if positions:
            t0 = time.process_time()
            result = self.label(net.actor, positions)
            cpu = time.process_time() - t0
            self.label_cpu += cpu
            self.labels += len(positions)
            stats["agreement"] = self.add(positions, result)
            stats["value_range"] = value_range(result["values"])
            self.check_scale(stats["value_range"])
            stats["labels_per_cpu_s"] = round(len(positions) / max(cpu, 1e-9), 1)
        if self.size:
            stats.update(self.learn(net, opt, generator))
        self.last_row = {"labels": self.labels, "label_cpu_s": round(self.label_cpu, 1),
                         "buffer": self.size, **{k: stats.get(k, "") for k in (
                             "labels_per_cpu_s", "agreement", "expert_policy_loss",
                             "expert_value_loss", "value_range")}}
        return {}

    def check_scale(self, spread: float) -> None:
        """Leave a note (the trainer logs it once) when T is larger than the values' typical
        spread: the targets then barely differ from the network's own policy (improvement)
        or from a uniform one (search), and the labels teach next to nothing."""
        if self.note is not None:
            return
        T = self.ex["temperature"]
        self.note = "" if T <= 0 or spread >= T else (
            f"expert: temperature {T:g} is larger than the search values' median spread over "
            f"a position's moves ({spread:g}, value_range in logs/expert.csv), so the labels "
            f"barely move the network: T is in the values' units (a score margin for rollouts "
            f"cut at the deal, a standing in [-1, 1] with random playouts or to the game's end)")

    def add(self, positions: list[Position], result: dict) -> float:
        """Put the labelled positions in the buffer; returns the share on which the
        network's own move was one of the search's best."""
        values, own = result["values"], result["own"]
        p, search_value = targets(values, own, self.ex["temperature"], result["logits"],
                                  self.ex["targets"])
        value = (np.array([pos.outcome for pos in positions], dtype=np.float32)
                 if self.ex["value_target"] == "outcome" else search_value)
        states = [replay(self.state_cls, self.options, pos.seed, pos.moves) for pos in positions]
        obs = np.stack([s.observation(s.current_player) for s in states])
        masks = np.stack([s.legal_mask() for s in states])
        x = self.inputs(obs, masks)
        cap = self.buf_x.shape[0]
        idx = (self.head + np.arange(len(positions))) % cap
        self.buf_x[idx], self.buf_mask[idx], self.buf_p[idx], self.buf_v[idx] = x, masks, p, value
        self.head = int((self.head + len(positions)) % cap)
        self.size = min(cap, self.size + len(positions))
        legal = ~np.isnan(values)
        v = np.where(legal, values, -np.inf)
        return float((v[np.arange(len(v)), own] >= v.max(axis=1)).mean())

    def learn(self, net, opt, generator) -> dict:
        ex = self.ex
        x = torch.from_numpy(self.buf_x[:self.size])
        mask = torch.from_numpy(self.buf_mask[:self.size])
        p = torch.from_numpy(self.buf_p[:self.size])
        v_target = torch.from_numpy(self.buf_v[:self.size])
        group = opt.param_groups[0]
        lr = group["lr"]
        if ex["learning_rate"] > 0:
            group["lr"] = ex["learning_rate"] * (lr / self.cfg["ppo"]["learning_rate"]
                                                 if self.cfg["ppo"]["anneal_lr"] else 1.0)
        totals, batches = np.zeros(2), 0
        mb = ex["minibatch"]
        for _ in range(ex["epochs"]):
            perm = torch.randperm(self.size, generator=generator)
            for start in range(0, self.size, mb):
                idx = perm[start:start + mb]
                logits, v = net(x[idx], mask[idx])
                policy_loss = -(p[idx] * torch.log_softmax(logits, 1)).sum(1).mean()
                value_loss = 0.5 * ((v - v_target[idx]) ** 2).mean()
                loss = policy_loss + ex["value_coef"] * value_loss
                opt.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(net.parameters(), self.cfg["ppo"]["max_grad_norm"])
                opt.step()
                totals += (policy_loss.item(), value_loss.item())
                batches += 1
        group["lr"] = lr
        return {"expert_policy_loss": totals[0] / max(batches, 1),
                "expert_value_loss": totals[1] / max(batches, 1)}

    def close(self) -> None:
        if self._ray is not None:
            self._ray.close()
            self._ray = None

    # --- checkpoints and the policy's record ----------------------------------------------------
    def state(self) -> dict:
        """The buffer (observations without the input features, which ``load_state``
        computes again), its counters and the generator."""
        from catzoo.training.checkpoint import numpy_rng_state

        n, D = self.size, self.vg.obs_size
        return {"obs": self.buf_x[:n, :D], "mask": self.buf_mask[:n], "p": self.buf_p[:n],
                "v": self.buf_v[:n], "head": self.head, "labels": self.labels,
                "label_cpu": self.label_cpu, "rng": numpy_rng_state(self.rng)}

    def load_state(self, state: dict | None) -> None:
        from catzoo.training.checkpoint import numpy_rng_from

        if state is None:
            return
        n = len(state["v"])
        if (n > self.buf_x.shape[0] or state["obs"].shape[1] != self.vg.obs_size
                or state["mask"].shape[1:] != self.buf_mask.shape[1:]):
            raise ValueError("the checkpoint's expert buffer does not fit this run's")
        for start in range(0, n, 4096):
            part = slice(start, min(n, start + 4096))
            self.buf_x[part] = self.inputs(state["obs"][part], state["mask"][part])
        self.buf_mask[:n], self.buf_p[:n], self.buf_v[:n] = state["mask"], state["p"], state["v"]
        self.size, self.head = n, int(state["head"])
        self.labels, self.label_cpu = int(state["labels"]), float(state["label_cpu"])
        self.rng = numpy_rng_from(state["rng"])

    def meta(self) -> dict:
        ex = self.ex
        return {"search": ex["search"], "search_options": ex["search_options"],
                "states_per_iteration": ex["states"], "targets": ex["targets"],
                "temperature": ex["temperature"],
                "value_target": ex["value_target"], "labels": self.labels,
                "label_cpu_seconds": round(self.label_cpu, 1)}
