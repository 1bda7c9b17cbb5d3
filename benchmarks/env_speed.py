"""Speed of the CatZoo envs through the full wrapped AEC API, against two references.

For each env this plays random legal games (reset, then ``last()`` / ``step()`` for every
agent until the game ends, as a training loop does) and prints agent-steps/s and games/s,
next to, in the same run:

* the floor: a do-nothing ``AECEnv`` with the same observation and mask sizes, the same
  number of agent-steps per game and the same wrapper as every CatZoo env (PettingZoo's
  order enforcing); no Python env can go faster through this API, so "% of floor" is
  the share of the API's own cost in the total;
* PettingZoo's ``texas_holdem_v4`` (a card game of the classic family).

Each trial plays an env and its floor in alternating chunks of a few tens of milliseconds
(``compare``), and "% floor" is the ratio of their totals: the median over ``--trials``,
with the range. Run: ``python benchmarks/env_speed.py [--seconds S] [--trials N]
[--games NAME ...]``.
Targets (foundation issue): at least 60% of the floor and at least 3x texas_holdem_v4.
"""

from __future__ import annotations

import argparse
import time
from statistics import median

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


def random_game(env, rng: np.random.Generator, seed: int) -> int:
    """One game of uniformly random legal actions through the AEC API, from
    ``reset(seed=seed)``, as a training loop plays it: its agent-steps."""
    env.reset(seed=seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        env.step(action)
        steps += 1
    return steps


class Runner:
    """Random legal play of one env, resumable: each call plays whole games for at least
    ``seconds`` of this process's CPU time (not wall time, so that other processes on a
    shared machine do not count against the env measured) and adds to the totals."""

    def __init__(self, env, seed: int = 0):
        self.env, self.seed = env, seed
        self.rng = np.random.default_rng(seed)
        self.steps = self.games = 0
        self.cpu = 0.0

    def run(self, seconds: float) -> None:
        env, rng = self.env, self.rng
        start = time.process_time()
        while True:
            self.steps += random_game(env, rng, self.seed + self.games)
            self.games += 1
            elapsed = time.process_time() - start
            if elapsed >= seconds:
                self.cpu += elapsed
                return

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.cpu

    @property
    def games_per_second(self) -> float:
        return self.games / self.cpu


def play(env, seconds: float, seed: int = 0) -> tuple[float, float, float]:
    """(agent-steps/s, games/s, steps/game) of random legal play for ``seconds``."""
    runner = Runner(env, seed)
    runner.run(seconds)
    return runner.steps_per_second, runner.games_per_second, runner.steps / runner.games


def compare(env, floor_env, seconds: float, chunk: float, seed: int) -> tuple[Runner, Runner]:
    """The env and its floor, each played for ``seconds`` in alternating chunks of about
    ``chunk`` seconds.

    On a shared or throttled machine the speed drifts by tens of percent within a second;
    chunks of a few tens of milliseconds, interleaved, see the same drift, so it cancels
    in the ratio of the totals (back-to-back runs of a second each differed by up to a
    quarter). The order within each pair of chunks alternates, because the second of two
    gains from the caches the first one warmed. A chunk ends after a whole game, so each
    is long enough for the caches to warm again (a game takes 1-10 ms).
    """
    env_run, floor_run = Runner(env, seed), Runner(floor_env, seed)
    pair = 0
    while env_run.cpu < seconds or floor_run.cpu < seconds:
        first, second = (env_run, floor_run) if pair % 2 == 0 else (floor_run, env_run)
        first.run(chunk)
        second.run(chunk)
        pair += 1
    return env_run, floor_run


def trials(env, other, seconds: float, chunk: float, count: int):
    """``count`` independent ``compare`` trials (seeds 0, 1000, ...): the pairs of runs,
    and the ratios of ``env``'s agent-steps/s to ``other``'s, sorted."""
    runs = [compare(env, other, seconds, chunk, seed=1000 * t) for t in range(count)]
    return runs, sorted(a.steps_per_second / b.steps_per_second for a, b in runs)


def row(label: str, steps: float, games: float, vs_floor: str = "-", spread: str = "-",
        vs_texas: str = "-") -> str:
    return f"{label:<34} {steps:>12,.0f} {games:>10,.1f} {vs_floor:>8} {spread:>13} {vs_texas:>9}"


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
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="CPU seconds of each env, and of its floor, per trial")
    parser.add_argument("--trials", type=int, default=3,
                        help="independent trials per env: the median is reported, with the range")
    parser.add_argument("--chunk", type=float, default=0.02,
                        help="seconds of each interleaved chunk of play")
    parser.add_argument("--games", nargs="*", help="only these games")
    args = parser.parse_args(argv)

    from pettingzoo.classic import texas_holdem_v4

    texas = Runner(texas_holdem_v4.env())
    texas.run(args.seconds)
    print(f"{'env':<34} {'agent-steps/s':>12} {'games/s':>10} {'% floor':>8} "
          f"{'trials range':>13} {'vs texas':>9}")
    print(row("texas_holdem_v4 (reference)", texas.steps_per_second, texas.games_per_second))
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
        runs, ratios = trials(env, floor_env, args.seconds, args.chunk, args.trials)
        steps = median([e.steps_per_second for e, _ in runs])
        games = median([e.games_per_second for e, _ in runs])
        print(row(f"  floor for {label}", median([f.steps_per_second for _, f in runs]),
                  median([f.games_per_second for _, f in runs])))
        print(row(label, steps, games, f"{100 * median(ratios):.1f}%",
                  f"{100 * ratios[0]:.1f}-{100 * ratios[-1]:.1f}%",
                  f"{steps / texas.steps_per_second:.2f}x"))


if __name__ == "__main__":
    main()
