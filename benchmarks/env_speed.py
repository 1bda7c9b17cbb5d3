"""Speed of the CatZoo envs through the full wrapped AEC API, against two references.

For each env this plays random legal games (reset, then ``last()`` / ``step()`` for every
agent until the game ends, as a training loop does) and prints agent-steps/s and games/s,
next to, in the same run:

* the floor: a do-nothing ``AECEnv`` with the same observation and mask sizes, the same
  number of agent-steps per game and the same wrapper as every CatZoo env (PettingZoo's
  order enforcing); no Python env can go faster through this API, so "% of floor" is
  the share of the API's own cost in the total;
* PettingZoo's ``texas_holdem_v4`` (a card game of the classic family).

Run: ``python benchmarks/env_speed.py [--seconds S] [--games NAME ...]``.
Targets (foundation issue): at least 60% of the floor and at least 3x texas_holdem_v4.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from catzoo.envs.adapter import wrap


class FloorEnv(AECEnv):
    """Does nothing but honour the AEC protocol, with the given sizes."""

    metadata = {"render_modes": [], "name": "floor_v0", "is_parallelizable": False}

    def __init__(self, num_agents: int, obs_size: int, num_actions: int, steps_per_game: int):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_agents)]
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(-4, 4, (obs_size,), np.float32),
                "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
            })
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self.obs_size, self.num_actions, self.length = obs_size, num_actions, steps_per_game

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.t = 0
        self.agent_selection = self.agents[0]

    def observe(self, agent):
        mask = np.zeros(self.num_actions, np.int8)
        mask[0] = 1
        return {"observation": np.zeros(self.obs_size, np.float32), "action_mask": mask}

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.t += 1
        if self.t >= self.length:
            for a in self.agents:
                self.terminations[a] = True
        self.agent_selection = self.agents[self.t % len(self.agents)]


def play(env, seconds: float, seed: int = 0) -> tuple[float, float, float]:
    """Random legal play for ``seconds`` of this process's CPU time; returns (agent-steps/s,
    games/s, steps/game) per CPU second. CPU time, not wall time, so that other processes
    on a shared machine do not count against the env measured."""
    rng = np.random.default_rng(seed)
    steps = games = 0
    start = time.process_time()
    while time.process_time() - start < seconds or games == 0:
        env.reset(seed=seed + games)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if terminated or truncated:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        games += 1
    elapsed = time.process_time() - start
    return steps / elapsed, games / elapsed, steps / games


def median_run(runs):
    runs = sorted(runs)
    return runs[len(runs) // 2]


def row(label: str, steps: float, games: float, floor: float | None, texas: float | None) -> str:
    vs_floor = f"{100 * steps / floor:6.1f}%" if floor else "      -"  # median pair ratio
    vs_texas = f"{steps / texas:6.2f}x" if texas else "      -"
    return f"{label:<34} {steps:>12,.0f} {games:>10,.1f} {vs_floor:>10} {vs_texas:>9}"


# Games with a speed target of their own (physics) are benchmarked by their own script.
OWN_BENCHMARK = {"ledges"}


def cases(selected: list[str] | None):
    """Every installed game at every player count, from the game registry."""
    from catzoo.games.registry import GAMES

    for name, info in GAMES.items():
        if (selected and name not in selected) or (not selected and name in OWN_BENCHMARK):
            continue
        module = info.load_env_module()
        for n in info.players:
            yield f"{name}_v0 ({n}p)", lambda m=module, n=n: m.env(num_players=n)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement")
    parser.add_argument("--repeats", type=int, default=15, help="interleaved runs per env")
    parser.add_argument("--games", nargs="*", help="only these games")
    args = parser.parse_args(argv)

    from pettingzoo.classic import texas_holdem_v4

    texas_steps, texas_games, _ = median_run(
        [play(texas_holdem_v4.env(), args.seconds / args.repeats, seed=r) for r in range(args.repeats)]
    )
    print(f"{'env':<34} {'agent-steps/s':>12} {'games/s':>10} {'% floor':>10} {'vs texas':>9}")
    print(row("texas_holdem_v4 (reference)", texas_steps, texas_games, None, None))
    for label, make in cases(args.games):
        env = make()
        raw = env.unwrapped
        agent = raw.possible_agents[0]
        _, _, per_game = play(env, 0.3)
        floor_env = wrap(FloorEnv(
            len(raw.possible_agents),
            raw.observation_space(agent)["observation"].shape[0],
            raw.action_space(agent).n,
            max(1, round(per_game) - len(raw.possible_agents)),
        ))
        # Interleave many short runs of the env and its floor and take the median of the
        # pairwise ratios: on a shared or throttled machine the speed drifts by tens of
        # percent within seconds, and a pair measured back to back sees the same drift.
        # The order within a pair alternates, because the second of two runs gains from
        # the caches the first one warmed (a few points of the ratio, either way).
        env_runs, floor_runs, ratios = [], [], []
        for rep in range(args.repeats):
            seconds, seed = args.seconds / args.repeats, 1000 * rep
            if rep % 2:
                floor_runs.append(play(floor_env, seconds, seed=seed))
                env_runs.append(play(env, seconds, seed=seed))
            else:
                env_runs.append(play(env, seconds, seed=seed))
                floor_runs.append(play(floor_env, seconds, seed=seed))
            ratios.append(env_runs[-1][0] / floor_runs[-1][0])
        steps, games, _ = median_run(env_runs)
        f_steps, f_games, _ = median_run(floor_runs)
        ratio = sorted(ratios)[len(ratios) // 2]
        print(row(f"  floor for {label}", f_steps, f_games, None, None))
        print(row(label, steps, games, steps / ratio, texas_steps))


if __name__ == "__main__":
    main()
