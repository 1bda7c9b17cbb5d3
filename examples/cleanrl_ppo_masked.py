"""Masked PPO on ``catzoo.vector.single_agent`` in one file, in the shape of CleanRL's
``ppo.py``: a Gymnasium vector env of N games in which the learner holds one seat and
CatZoo's bots the others, an MLP actor and critic, the legal-action mask applied to the
logits, GAE, clipped PPO. It shows what any Gymnasium trainer needs to play CatZoo at the
batched engine's speed; CatZoo's own trainer is ``catzoo train`` (docs/training.md).

    python examples/cleanrl_ppo_masked.py --game cat_in_the_box --num-players 2 \\
        --total-steps 100000 --opponents random

Three things differ from CleanRL's Atari script, each because of the env:

* **Masks.** Each step's ``infos["action_mask"]`` (int8 [N, A]) is stored beside the
  observation; the policy's logits of illegal actions are set to -1e8 when acting and
  when learning, so the ratio, entropy and KL are those of the masked distribution.
* **Autoreset (Gymnasium 1.x, NEXT_STEP).** The step that ends a game returns its last
  observation with ``terminated``; the next step ignores its action and deals the next
  game. That step is no decision: it is left out of the loss, and no advantage flows across
  it (``terminated`` stops the bootstrap, as the game is over).
* **Evaluation.** Before and after training the greedy policy plays ``--eval-games``
  games (one per sub-env, the same deals and seats both times) against ``--eval-opponent``;
  the mean of the learner's final standing (``infos["standing"]``: 1 ahead of every other
  seat, -1 behind) is printed with its 95% interval.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass

import numpy as np
import torch
from gymnasium.wrappers.vector import RecordEpisodeStatistics
from torch import nn

from catzoo import vector


@dataclass
class Args:
    # the tables
    game: str = "cat_in_the_box"
    num_players: int = 2
    opponents: str = "random"  # comma-separated policy specs the learner's tables draw from
    reward: str = "standing"  # standing | score
    options: str = ""  # game options, key=value comma-separated (rounds=single)
    # the run
    seed: int = 1
    total_steps: int = 100_000  # learner decisions
    num_envs: int = 64  # games stepped together: the sub-envs of vector.single_agent
    num_steps: int = 32  # steps of every sub-env per rollout
    # the optimizer
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    num_minibatches: int = 4
    update_epochs: int = 4
    # the returns (gamma 1: with reward=standing a game's end is its only reward)
    gamma: float = 1.0
    gae_lambda: float = 0.95
    # the losses (CleanRL's defaults)
    clip_coef: float = 0.2  # the probability ratio's clip, and the value's
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    # the network: two hidden layers of this width, tanh
    hidden: int = 128
    # the evaluation against eval_opponent
    eval_games: int = 512  # games of each evaluation, one per sub-env
    eval_opponent: str = "random"
    eval_seed: int = 41_000_000  # deals no training run uses
    # this process
    torch_threads: int = 1
    quiet: bool = False


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    linear = nn.Linear(i, o)
    nn.init.orthogonal_(linear.weight, std)
    nn.init.constant_(linear.bias, 0.0)
    return linear


class Agent(nn.Module):
    def __init__(self, obs_size: int, num_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden),
                                    nn.Tanh(), layer(hidden, 1, 1.0))
        self.actor = nn.Sequential(layer(obs_size, hidden), nn.Tanh(), layer(hidden, hidden),
                                   nn.Tanh(), layer(hidden, num_actions, 0.01))

    def get_value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(x).squeeze(-1)

    def get_action_and_value(self, x, mask, action=None):
        logits = self.actor(x).masked_fill(~mask, -1e8)
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.get_value(x)


def game_options(text: str) -> dict:
    out = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        key, _, value = item.partition("=")
        out[key.strip()] = int(value) if value.strip().lstrip("-").isdigit() else value.strip()
    return out


def summary(standing: np.ndarray) -> str:
    """The mean with the half-width of its 95% interval."""
    half = 1.96 * standing.std(ddof=1) / np.sqrt(standing.size)
    return f"{standing.mean():+.3f} ± {half:.3f}"


@torch.no_grad()
def evaluate(agent: Agent, args: Args) -> np.ndarray:
    """The greedy policy's final standing in each of ``eval_games`` games (one per sub-env,
    the deals and seats of ``eval_seed``) against ``eval_opponent``."""
    envs = vector.single_agent(args.game, args.eval_games, args.num_players,
                               opponents=(args.eval_opponent,), seed=args.eval_seed,
                               reward=args.reward, **game_options(args.options))
    obs, infos = envs.reset()
    standing = np.full(args.eval_games, np.nan)
    while np.isnan(standing).any():
        mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
        logits = agent.actor(torch.as_tensor(obs)).masked_fill(~mask, -1e8)
        obs, _, term, _, infos = envs.step(logits.argmax(1).numpy())
        first = term & np.isnan(standing)
        if first.any():
            standing[first] = infos["standing"][first]
    envs.close()
    return standing


def train(args: Args) -> dict:
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)
    say = (lambda *_: None) if args.quiet else print
    envs = RecordEpisodeStatistics(vector.single_agent(
        args.game, args.num_envs, args.num_players, opponents=args.opponents.split(","),
        seed=args.seed, reward=args.reward, **game_options(args.options)))
    N, T = args.num_envs, args.num_steps
    D = envs.single_observation_space.shape[0]
    A = envs.single_action_space.n
    agent = Agent(D, A, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)
    before = evaluate(agent, args)
    say(f"before: mean standing vs {args.eval_opponent} {summary(before)}")

    obs = torch.zeros((T, N, D))
    masks = torch.zeros((T, N, A), dtype=torch.bool)
    actions = torch.zeros((T, N), dtype=torch.long)
    logprobs = torch.zeros((T, N))
    rewards = torch.zeros((T, N))
    starts = torch.zeros((T, N))  # 1: this step's observation is a game's terminal one
    values = torch.zeros((T, N))

    next_obs, infos = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs)
    next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
    next_over = torch.zeros(N)  # the game of this observation is over (NEXT_STEP)
    iterations = -(-args.total_steps // (N * T))
    decisions, t0 = 0, time.perf_counter()
    for iteration in range(1, iterations + 1):
        if args.anneal_lr:
            optimizer.param_groups[0]["lr"] = (1.0 - (iteration - 1) / iterations) * args.learning_rate
        for step in range(T):
            obs[step], masks[step], starts[step] = next_obs, next_mask, next_over
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            o, r, term, trunc, infos = envs.step(action.numpy())
            rewards[step] = torch.as_tensor(r)
            next_obs = torch.as_tensor(o)
            next_mask = torch.as_tensor(infos["action_mask"], dtype=torch.bool)
            next_over = torch.as_tensor(term | trunc, dtype=torch.float32)
            if "episode" in infos and not args.quiet and step == T - 1:
                ended = infos["_episode"]
                say(f"decisions {decisions}: episodic return "
                    f"{infos['episode']['r'][ended].mean():+.3f}")
        # --- advantages: GAE along each sub-env, stopped at a game's end ---
        valid = 1.0 - starts  # a step after a game's end is no decision
        decisions += int(valid.sum())
        with torch.no_grad():
            next_value = agent.get_value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(N)
            for t in reversed(range(T)):
                if t == T - 1:
                    over, value_next = next_over, next_value
                else:
                    over, value_next = starts[t + 1], values[t + 1]
                delta = rewards[t] + args.gamma * value_next * (1.0 - over) - values[t]
                last = delta + args.gamma * args.gae_lambda * (1.0 - over) * last
                advantages[t] = last * valid[t]
            returns = advantages + values
        # --- the PPO update on the learner's decisions ---
        keep = valid.reshape(-1) > 0
        b_obs, b_masks = obs.reshape(-1, D)[keep], masks.reshape(-1, A)[keep]
        b_actions, b_logprobs = actions.reshape(-1)[keep], logprobs.reshape(-1)[keep]
        b_adv, b_ret, b_val = (advantages.reshape(-1)[keep], returns.reshape(-1)[keep],
                               values.reshape(-1)[keep])
        B = b_obs.shape[0]
        mb = max(2, B // args.num_minibatches)
        for _epoch in range(args.update_epochs):
            order = torch.randperm(B)
            for start in range(0, B, mb):
                idx = order[start:start + mb]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[idx], b_masks[idx], b_actions[idx])
                ratio = (newlogprob - b_logprobs[idx]).exp()
                adv = b_adv[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8) if idx.numel() > 1 else adv
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef,
                                                                     1 + args.clip_coef)).mean()
                v_clip = b_val[idx] + (newvalue - b_val[idx]).clamp(-args.clip_coef, args.clip_coef)
                v_loss = 0.5 * torch.max((newvalue - b_ret[idx]) ** 2,
                                         (v_clip - b_ret[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
    seconds = time.perf_counter() - t0
    envs.close()
    after = evaluate(agent, args)
    say(f"{decisions} learner decisions in {seconds:.1f} s ({decisions / seconds:,.0f}/s)")
    say(f"after: mean standing vs {args.eval_opponent} {summary(after)}; gain on the same "
        f"deals {summary(after - before)}")
    return {"before": before, "after": after, "decisions": decisions, "seconds": seconds,
            "agent": agent}


def parse(argv=None) -> Args:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in Args().__dict__.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            p.add_argument(flag, action="store_true", default=default)
        else:
            p.add_argument(flag, type=type(default), default=default)
    return Args(**vars(p.parse_args(argv)))


if __name__ == "__main__":
    train(parse())
