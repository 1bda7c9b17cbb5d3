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
   that PPO's critic learns, counted from one of its decisions to its next).
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

from catzoo.games.registry import get_game
from catzoo.policies import features
from catzoo.policies.registry import make_policy
from catzoo.training.rewards import zero_sum

VALIDATION_SHARE = 0.1
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

    def __len__(self) -> int:
        return int(self.actions.size)

    def subset(self, keep: np.ndarray) -> Demonstrations:
        return Demonstrations(self.obs[keep], self.masks[keep], self.actions[keep],
                              self.returns[keep], self.game_index[keep], self.seat[keep])


def generate(config: dict, games: int, seed: int) -> Demonstrations:
    """Play ``games`` seeded games with the teacher (``imitation.teacher``) at every seat."""
    n = config["env"]["num_players"]
    gamma = config["ppo"]["gamma"]
    # The batched trainer's critic learns rewards times ppo.reward_scale (the SB3 path has
    # no such key: its rewards are the env's).
    scale = config["ppo"].get("reward_scale", 1.0)
    relative = config["ppo"].get("zero_sum", False)  # as the batched trainer learns them
    raw = get_game(config["game"]).load_env_module().raw_env(
        num_players=n, reward=config["env"]["reward"], **config["env"]["options"])
    agents = raw.possible_agents
    teacher = config["imitation"]["teacher"]
    bots = [make_policy(teacher, config["game"], n, seed=seed * 100 + s) for s in range(n)]
    rng = np.random.default_rng(seed)
    obs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    returns: list[float] = []
    index: list[int] = []
    seats: list[int] = []
    for g in range(games):
        raw.reset(seed=int(rng.integers(2**62)))
        for s, bot in enumerate(bots):
            bot.reset(int(rng.integers(2**62)))
        # Per seat: its decisions' row numbers, and the reward each decision was followed
        # by until that seat's next decision (what SingleAgentEnv gives PPO as one step).
        rows: list[list[int]] = [[] for _ in range(n)]
        rewards: list[list[float]] = [[] for _ in range(n)]
        game = raw.game
        while not game.is_terminal():
            p = game.current_player
            o = raw.observe(agents[p])
            a = bots[p].act(o, state=game, player=p)
            rows[p].append(len(actions))
            rewards[p].append(0.0)
            obs.append(o["observation"])
            masks.append(o["action_mask"].astype(bool))
            actions.append(a)
            index.append(g)
            seats.append(p)
            returns.append(0.0)
            raw.step(a)
            step = [raw.rewards[agent] for agent in agents]
            if relative:
                step = zero_sum(np.asarray(step, dtype=np.float64)).tolist()
            for s in range(n):
                # Rewards before a seat's first decision belong to no transition of it.
                if rewards[s]:
                    rewards[s][-1] += scale * step[s]
        for s in range(n):
            ret = 0.0
            for row, r in zip(reversed(rows[s]), reversed(rewards[s])):
                ret = r + gamma * ret
                returns[row] = ret
    # The network's inputs: the observation and its input features (network.features).
    masks_array = np.asarray(masks, dtype=bool)
    inputs = features.augment(config["network"].get("features") or None,
                              np.asarray(obs, dtype=np.float32).reshape(len(obs), -1),
                              masks_array.reshape(len(obs), -1), n, config["env"]["options"])
    return Demonstrations(inputs, masks_array,
                          np.asarray(actions, dtype=np.int64),
                          np.asarray(returns, dtype=np.float32),
                          np.asarray(index, dtype=np.int64), np.asarray(seats, dtype=np.int64))


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
