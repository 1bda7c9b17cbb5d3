"""Imitation warm-start: behaviour cloning of a bot (the teacher) before PPO.

Why: when a game's heuristic bot encodes knowledge that is expensive to rediscover (CATsle
Builders' bot estimates, for every card, the rating it will reach and the value of the
cards that rating takes), PPO from random weights can plateau far below the bot. Starting
from a copy of the bot lets PPO spend its budget on improving on it instead.

The teacher is ``imitation.teacher``: the game's heuristic bot by default, or another of
its bots or a search bot, when one plays better than the bot PPO is to beat.

Two steps, both inside the training process so their CPU time is part of the run's:

1. ``generate``: play games with the teacher at every seat and record, for every
   decision, the acting seat's observation, action mask, the bot's action, and the
   return that seat went on to receive (the same discounted sum of the seat's rewards
   that PPO's critic learns, counted from one of its decisions to its next); on
   ``catzoo.vector`` when the teacher decides for a batch at once, else through the AEC env.
2. ``pretrain``: fit the policy (MaskablePPO's, or the batched trainer's network) to
   them, the actor with masked cross-entropy (the negative log-probability of the bot's
   action under the masked distribution) and the critic with mean squared error on the
   returns, so that PPO's first advantages come from a critic that already knows roughly
   who is winning.

A held-out tenth of the games measures the actor's agreement with the bot (its most
likely legal action is the bot's), against the agreement of a uniformly random legal
action.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from catzoo import vector
from catzoo.games.registry import get_game
from catzoo.policies import features
from catzoo.policies.base import Policy
from catzoo.policies.registry import make_policy
from catzoo.training.rewards import zero_sum

VALIDATION_SHARE = 0.1
BATCH = 256  # games the batched generator plays at once
# The warm start's figures a policy.json repeats (both trainers).
META_KEYS = ("games", "teacher", "decisions", "val_agreement", "random_agreement",
             "generate_cpu_seconds", "pretrain_cpu_seconds")


@dataclass
class Demonstrations:
    obs: np.ndarray  # (N, observation size) float32
    masks: np.ndarray  # (N, actions) bool
    actions: np.ndarray  # (N,) int64, the bot's choice
    returns: np.ndarray  # (N,) float32, the acting seat's discounted return from there
    game_index: np.ndarray  # (N,) int64, which game each decision comes from
    seat: np.ndarray  # (N,) int64, the acting seat
    game_seeds: np.ndarray  # (games,) int64, the seed each game was dealt from

    def __len__(self) -> int:
        return int(self.actions.size)

    def subset(self, keep: np.ndarray) -> Demonstrations:
        return Demonstrations(self.obs[keep], self.masks[keep], self.actions[keep],
                              self.returns[keep], self.game_index[keep], self.seat[keep],
                              self.game_seeds)


def generate(config: dict, games: int, seed: int, batched: bool | None = None) -> Demonstrations:
    """Play ``games`` seeded games with the teacher (``imitation.teacher``) at every seat:
    on ``catzoo.vector``, one ``act_batch`` call a step, when the game has a compiled core
    and the teacher a vectorised batch (it then reads only the observation); else through
    the AEC env, one game at a time (a search bot reads the game itself). ``batched``
    False forces the AEC loop (benchmarks/warm_start_speed.py compares the two)."""
    n = config["env"]["num_players"]
    teacher = config["imitation"]["teacher"]
    probe = make_policy(teacher, config["game"], n, seed=seed)
    if batched is None:
        batched = (vector.has_core(config["game"])
                   and type(probe).act_batch is not Policy.act_batch)
    if batched:
        return _generate_batched(config, games, seed, probe)
    gamma = config["ppo"]["gamma"]
    # The batched trainer's critic learns rewards times ppo.reward_scale (the SB3 path has
    # no such key: its rewards are the env's).
    scale = config["ppo"].get("reward_scale", 1.0)
    relative = config["ppo"].get("zero_sum", False)  # as the batched trainer learns them
    raw = get_game(config["game"]).load_env_module().raw_env(
        num_players=n, reward=config["env"]["reward"], **config["env"]["options"])
    agents = raw.possible_agents
    bots = [make_policy(teacher, config["game"], n, seed=seed * 100 + s) for s in range(n)]
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    rewards: list[float] = []  # per decision, up to the seat's next one
    index: list[int] = []
    seats: list[int] = []
    game_seeds = np.zeros(games, dtype=np.int64)
    for g in range(games):
        game_seeds[g] = rng.integers(2**62)
        raw.reset(seed=int(game_seeds[g]))
        for s, bot in enumerate(bots):
            bot.reset(int(rng.integers(2**62)))
        # Each seat's decision collecting rewards until its next one (what SingleAgentEnv
        # gives PPO as one step); rewards before a seat's first decision belong to none.
        open_row = [-1] * n
        game = raw.game
        while not game.is_terminal():
            p = game.current_player
            o = raw.observe(agents[p])
            a = bots[p].act(o, state=game, player=p)
            open_row[p] = len(actions)
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            actions.append(a)
            index.append(g)
            seats.append(p)
            rewards.append(0.0)
            raw.step(a)
            step = [raw.rewards[agent] for agent in agents]
            if relative:
                step = zero_sum(np.asarray(step, dtype=np.float64)).tolist()
            for s in range(n):
                if open_row[s] >= 0:
                    rewards[open_row[s]] += scale * step[s]
    index_array, seat_array = np.asarray(index, dtype=np.int64), np.asarray(seats, dtype=np.int64)
    return _demonstrations(config, np.asarray(obs, dtype=np.float32).reshape(len(obs), -1),
                           np.asarray(masks, dtype=bool).reshape(len(obs), -1),
                           np.asarray(actions, dtype=np.int64),
                           _returns(np.asarray(rewards), index_array, seat_array, games, n, gamma),
                           index_array, seat_array, game_seeds)


def _generate_batched(config: dict, games: int, seed: int, bot) -> Demonstrations:
    """``generate`` on ``catzoo.vector``: ``BATCH`` games at a time, the teacher deciding
    for all of them in one call (the AEC loop spent 227-245 of the 30 CPU-minutes of a
    CATsle Builders run on its 2,000 games; this 38-40). Each slot records its games until ``games`` have
    started; a seat's decision collects the rewards up to its next one, as above."""
    n, gamma = config["env"]["num_players"], config["ppo"]["gamma"]
    scale = config["ppo"].get("reward_scale", 1.0)
    relative = config["ppo"].get("zero_sum", False)
    vg = vector.make(config["game"], num_envs=min(games, BATCH), num_players=n, seed=seed,
                     reward=config["env"]["reward"], threads=1, **config["env"]["options"])
    try:
        obs, mask, player = vg.reset()
        slots = np.arange(vg.num_envs)
        game_of = slots.copy()  # the game each slot records (>= games: no longer)
        game_seeds = np.zeros(games, dtype=np.int64)
        game_seeds[game_of] = vg.seeds
        started, finished = vg.num_envs, 0
        open_row = np.full((vg.num_envs, n), -1)  # each seat's decision collecting rewards
        chunks: list[tuple] = []
        reward = np.zeros(1 << 16)
        count = 0
        while finished < games:
            action = bot.act_batch(obs, mask)
            rec = slots[game_of < games]
            rows = count + np.arange(rec.size)
            chunks.append((obs[rec], mask[rec].astype(bool), action[rec], game_of[rec],
                           player[rec].astype(np.int64)))
            count += rec.size
            if count > reward.size:
                reward = np.concatenate([reward, np.zeros(max(count, reward.size))])
            open_row[rec, player[rec]] = rows
            obs, mask, player, step, done = vg.step(action)
            step = scale * (zero_sum(step.astype(np.float64)) if relative else step)
            collecting = (open_row >= 0) & (game_of < games)[:, None]
            np.add.at(reward, open_row[collecting], step[collecting])
            for i in np.flatnonzero(done & (game_of < games)):
                finished += 1
                open_row[i] = -1
                game_of[i] = min(games, started)
                if started < games:
                    game_seeds[started] = vg.seeds[i]
                    started += 1
    finally:
        vg.close()
    o, m, a, index, seat = (np.concatenate(part) for part in zip(*chunks))
    return _demonstrations(config, o, m, a.astype(np.int64),
                           _returns(reward[:count], index, seat, games, n, gamma),
                           index, seat, game_seeds)


def _returns(rewards, index, seat, games: int, n: int, gamma: float) -> np.ndarray:
    """Each seat's discounted return from each of its decisions, backwards through its
    rows (``rewards``: what each decision collected until the seat's next one)."""
    returns = np.zeros(rewards.size)
    running = np.zeros((games, n))
    for row in range(rewards.size - 1, -1, -1):
        g, s = index[row], seat[row]
        running[g, s] = rewards[row] + gamma * running[g, s]
        returns[row] = running[g, s]
    return returns


def _demonstrations(config, obs, masks, actions, returns, index, seats, game_seeds):
    # The network's inputs: the observation and its input features (network.features).
    inputs = features.augment(features.configured(config), obs, masks,
                              config["env"]["num_players"], config["env"]["options"])
    return Demonstrations(inputs, masks, actions, returns.astype(np.float32), index, seats,
                          np.asarray(game_seeds, dtype=np.int64))


def split(demos: Demonstrations, share: float = VALIDATION_SHARE):
    """(train, validation), split by game so that no validation game was trained on."""
    games = int(demos.game_index.max()) + 1 if len(demos) else 0
    held = max(1, round(games * share)) if games > 1 else 0
    val = demos.game_index >= games - held
    return demos.subset(~val), demos.subset(val)


class SB3Model:
    """The two things imitation needs of a model, for an SB3 MaskableActorCriticPolicy (the
    batched trainer's ``ActorCritic`` has them itself)."""

    def __init__(self, policy):
        self.policy = policy

    def parameters(self):
        return self.policy.parameters()

    def train(self, mode: bool = True):
        self.policy.set_training_mode(mode)

    def log_prob_value(self, obs, masks, actions):
        values, log_prob, _ = self.policy.evaluate_actions(obs, actions, action_masks=masks)
        return log_prob, values.flatten()

    def best(self, obs, masks) -> np.ndarray:
        dist = self.policy.get_distribution(obs, action_masks=masks)
        return dist.distribution.probs.argmax(dim=1).numpy()


def agreement(model, demos: Demonstrations, batch: int = 4096) -> float:
    """Share of decisions where the model's most likely legal action is the bot's."""
    import torch

    if not len(demos):
        return float("nan")
    hits = 0
    with torch.no_grad():
        for i in range(0, len(demos), batch):
            sl = slice(i, i + batch)
            best = model.best(torch.as_tensor(demos.obs[sl]), demos.masks[sl])
            hits += int(np.count_nonzero(best == demos.actions[sl]))
    return hits / len(demos)


def random_agreement(demos: Demonstrations) -> float:
    """Expected agreement of a uniformly random legal action."""
    return float(np.mean(1.0 / demos.masks.sum(axis=1))) if len(demos) else float("nan")


def pretrain(model, demos: Demonstrations, icfg: dict, seed: int, log=print) -> dict:
    """Fit ``model`` (an ``SB3Model`` or the batched trainer's ``ActorCritic``) to
    ``demos``; returns the figures."""
    import torch

    train, val = split(demos)
    # A separate optimizer: PPO's Adam starts with its own fresh moments afterwards.
    optimizer = torch.optim.Adam(model.parameters(), lr=icfg["learning_rate"])
    gen = np.random.default_rng(seed)
    obs = torch.as_tensor(train.obs)
    masks = train.masks
    actions = torch.as_tensor(train.actions)
    returns = torch.as_tensor(train.returns)
    size = icfg["batch_size"]
    history = []
    for epoch in range(icfg["epochs"]):
        model.train(True)
        order = gen.permutation(len(train))
        totals = np.zeros(2)
        for start in range(0, len(order), size):
            idx = order[start:start + size]
            log_prob, values = model.log_prob_value(obs[idx], masks[idx], actions[idx])
            actor_loss = -log_prob.mean()
            critic_loss = torch.nn.functional.mse_loss(values, returns[idx])
            loss = actor_loss + icfg["vf_coef"] * critic_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), icfg["max_grad_norm"])
            optimizer.step()
            totals += (actor_loss.item() * idx.size, critic_loss.item() * idx.size)
        model.train(False)
        row = {"epoch": epoch + 1, "actor_loss": totals[0] / len(train),
               "critic_loss": totals[1] / len(train), "val_agreement": agreement(model, val)}
        history.append(row)
        log(f"imitation epoch {row['epoch']}: actor loss {row['actor_loss']:.3f}, critic loss "
            f"{row['critic_loss']:.3f}, held-out agreement with the teacher "
            f"{row['val_agreement']:.1%}")
    return {"train_decisions": len(train), "val_decisions": len(val),
            "val_agreement": agreement(model, val),
            "random_agreement": random_agreement(val), "epochs": history}


def warm_start(model, config: dict, seed: int, log=print) -> dict:
    """Generate ``imitation.games`` games and pretrain ``model`` on them: an ``SB3Model``
    or the batched trainer's ``ActorCritic``."""
    icfg = config["imitation"]
    t0 = time.process_time()
    demos = generate(config, icfg["games"], seed)
    t1 = time.process_time()
    log(f"imitation: {icfg['games']} games of {icfg['teacher']}, {len(demos)} decisions "
        f"({t1 - t0:.0f} CPU-s)")
    stats = pretrain(model, demos, icfg, seed, log=log)
    return {"games": icfg["games"], "teacher": icfg["teacher"], "decisions": len(demos),
            "generate_cpu_seconds": round(t1 - t0, 1),
            "pretrain_cpu_seconds": round(time.process_time() - t1, 1), **stats}
