"""Speed of Cats Knocking Things Off Ledges: full turns per second and games per second.

A full turn is everything one player does in a turn (build, cat, toy, every bat), each
build, placement and bat simulated with MuJoCo. Games are played through the wrapped AEC
env (reset, ``last()``, ``step()``, as a training loop does) by random-legal or heuristic
bots at each player count, and timed both in process CPU time (what one core delivers,
robust to other load on a shared machine) and in wall time.

Run: ``python benchmarks/ledges_speed.py [--seconds S] [--players 2 3 4]
[--policy random heuristic] [--dexterity D]``. Target (issue 6): at least 10 full turns
per second on one core.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

TARGET_TURNS_PER_SECOND = 10.0


def play(num_players: int, policy: str, seconds: float, dexterity: float, seed: int = 0) -> dict:
    from catzoo.envs import ledges_v0
    from catzoo.games.ledges import physics
    from catzoo.policies.registry import make_policy

    env = ledges_v0.env(num_players=num_players, dexterity=dexterity)
    bots = [make_policy(policy, "ledges", num_players, seed=seed + i) for i in range(num_players)]
    turns = games = steps = 0
    sim_time = 0.0
    compiles = physics.MODELS.compiles
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.process_time() - cpu0 < seconds or games == 0:
        env.reset(seed=seed + games)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                action = None
            else:
                action = bots[env.unwrapped.agent_name_mapping[agent]].act(obs)
            env.step(action)
            steps += 1
        game = env.unwrapped.game
        turns += game.turns_done
        sim_time += game.sim_time
        games += 1
    cpu = time.process_time() - cpu0
    wall = time.perf_counter() - wall0
    return {
        "turns": turns, "games": games, "steps": steps, "cpu": cpu, "wall": wall,
        "sim": sim_time, "compiles": physics.MODELS.compiles - compiles,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="CPU seconds per case")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    parser.add_argument("--policy", nargs="*", default=["random", "heuristic"])
    parser.add_argument("--dexterity", type=float, default=1.0)
    args = parser.parse_args(argv)

    print(f"{'case':<18} {'turns/s cpu':>11} {'turns/s wall':>12} {'games/s cpu':>11} "
          f"{'turns/game':>10} {'sim s/turn':>10} {'ms/step':>8} {'compiles':>8}")
    worst = np.inf
    for policy in args.policy:
        for n in args.players:
            r = play(n, policy, args.seconds, args.dexterity)
            tps = r["turns"] / r["cpu"]
            worst = min(worst, tps)
            print(
                f"{policy + f' {n}p':<18} {tps:>11.1f} {r['turns'] / r['wall']:>12.1f} "
                f"{r['games'] / r['cpu']:>11.2f} {r['turns'] / r['games']:>10.1f} "
                f"{r['sim'] / r['turns']:>10.2f} {1000 * r['cpu'] / r['steps']:>8.1f} {r['compiles']:>8}"
            )
    verdict = "meets" if worst >= TARGET_TURNS_PER_SECOND else "MISSES"
    print(f"slowest case: {worst:.1f} full turns/s of CPU; {verdict} the target of "
          f"{TARGET_TURNS_PER_SECOND:g}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
