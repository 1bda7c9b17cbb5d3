"""Speed of the batched engine (``catzoo.vector``) per card game and player count, beside
the AEC env in the same run.

For every game with a compiled core and each of its player counts: ``--num-envs`` slots
(1,024), uniform random legal actions drawn from the masks in numpy (vectorised: a key per
action, 31 random bits under a top bit set by the mask, then one argmax per row),
observations and masks produced by every step, at 1 and 2 threads. It prints:

* ``whole``: agent-steps/s of the whole loop (sampling + ``step``), wall time;
* ``engine``: agent-steps/s counting only the time inside ``step`` (the core);
* the AEC env's agent-steps/s (random legal play through the wrapped env, as
  benchmarks/env_speed.py plays it), CPU time;
* the ratios to issue 22's targets: at least 1,000,000 agent-steps/s on one core, and 2
  threads at least 1.8x that (read both ways: 1.8x the 1,000,000, and 1.8x the 1-thread
  figure, whole loop and engine).

Sampling is serial work between steps (Amdahl): ``engine`` shows what the threads do to
the step itself. ``--sampler-threads K`` splits the sampling over K Python threads
(numpy releases the GIL in its fills and loops), each with its own generator; the default
is one, because libgomp's threads spin between steps (its default wait policy, which starts
the next step sooner than waking sleeping threads would) and a sampler thread would
contend with them for the cores. On a machine busy with other processes, spinning teams
wait for descheduled members: there ``OMP_WAIT_POLICY=PASSIVE`` does better (docs/vector.md
gives the figures). The 1- and 2-thread runs alternate in chunks of ``--chunk`` seconds,
so that the drift of a shared machine's speed cancels in their ratio.

Memory: ``--soak STEPS`` plays each case for STEPS agent-steps (e.g. ``--soak 1e8``) and
prints the resident set size at intervals: flat means no leak.

Run: ``python benchmarks/vector_speed.py [--games NAME ...] [--players N ...]
[--seconds S] [--threads 1 2] [--soak STEPS]``.
"""

from __future__ import annotations

import os

if __name__ == "__main__":
    # numpy's OpenBLAS keeps a server thread per extra core polling for work it never gets
    # here (no BLAS in this loop), which takes time from the engine's second thread
    # (docs/vector.md). Set before numpy loads; a value already set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import itertools
import sys
import threading
import time
from pathlib import Path

import numpy as np

from catzoo import vector
from catzoo.games.registry import GAMES

# the AEC env is played as benchmarks/env_speed.py plays it, by its own function
sys.path.insert(0, str(Path(__file__).resolve().parent))
from env_speed import random_game

TARGET_STEPS = 1_000_000
TARGET_SCALING = 1.8


class Sampler:
    """A uniformly random legal action per slot, the slots split over ``threads`` threads
    (the caller's and ``threads - 1`` workers, which wait on a barrier between calls)."""

    def __init__(self, num_envs: int, num_actions: int, threads: int, seed: int = 0):
        self.flags = np.empty((num_envs, num_actions), np.uint32)
        self.actions = np.empty(num_envs, np.int64)
        bounds = np.linspace(0, num_envs, threads + 1).astype(int)
        self.parts = [(slice(int(a), int(b)), np.random.PCG64([seed, j]))
                      for j, (a, b) in enumerate(itertools.pairwise(bounds))]
        self.mask = None
        self.stopping = False
        self.workers = []
        if threads > 1:
            self.start, self.finish = threading.Barrier(threads), threading.Barrier(threads)
            for j in range(1, threads):
                worker = threading.Thread(target=self._work, args=(j,), daemon=True)
                worker.start()
                self.workers.append(worker)

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        self.mask = mask
        if not self.workers:
            self._sample(0)
            return self.actions
        self.start.wait()
        self._sample(0)
        self.finish.wait()
        return self.actions

    def _sample(self, j: int) -> None:
        # A key per action: 31 uniform random bits under a top bit set for the legal ones,
        # so each row's largest key is a uniformly chosen legal action (ties between
        # legal keys: about one in 2**31 / legal actions). Raw generator words cost a
        # fifth less than float32 noise.
        part, bits = self.parts[j]
        flags = self.flags[part]
        rows, width = flags.shape
        keys = bits.random_raw(rows * width // 2 + 1).view(np.uint32)[: rows * width]
        keys = keys.reshape(rows, width)
        np.right_shift(keys, 1, out=keys)
        np.left_shift(self.mask[part].view(np.uint8), 31, out=flags, dtype=np.uint32)
        np.bitwise_or(keys, flags, out=keys)
        np.argmax(keys, axis=1, out=self.actions[part])

    def _work(self, j: int) -> None:
        while True:
            self.start.wait()
            if self.stopping:
                return
            self._sample(j)
            self.finish.wait()

    def close(self) -> None:
        if self.workers:
            self.stopping = True
            self.start.wait()
            for worker in self.workers:
                worker.join()


class Loop:
    """One batch and its sampler, played in chunks; keeps the totals."""

    def __init__(self, game: str, players: int, num_envs: int, threads: int,
                 sampler_threads: int = 1):
        self.vg = vector.make(game, num_envs=num_envs, num_players=players, threads=threads)
        self.sample = Sampler(num_envs, self.vg.num_actions, sampler_threads)
        self.mask = self.vg.reset()[1]
        self.steps = 0
        self.wall = self.engine = 0.0

    def run(self, seconds: float) -> None:
        vg, sample, n = self.vg, self.sample, self.vg.num_envs
        clock = time.perf_counter
        start = clock()
        engine = 0.0
        steps = 0
        while True:
            actions = sample(self.mask)
            t = clock()
            self.mask = vg.step(actions)[1]
            engine += clock() - t
            steps += n
            if steps % (64 * n) == 0 and clock() - start >= seconds:
                break
        self.wall += clock() - start
        self.engine += engine
        self.steps += steps

    def close(self) -> None:
        self.sample.close()
        self.vg.close()


def aec_speed(game: str, players: int, seconds: float) -> float:
    """Agent-steps/s (this thread's CPU time: an earlier batch's OpenMP threads may still
    spin) of random legal play through the wrapped AEC env."""
    env = GAMES[game].load_env_module().env(num_players=players)
    rng = np.random.default_rng(0)
    steps, games = 0, 0
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        steps += random_game(env, rng, games)
        games += 1
    return steps / (time.thread_time() - start)


def rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def soak(game: str, players: int, num_envs: int, threads: int, total: float) -> None:
    loop = Loop(game, players, num_envs, threads)
    report_every = max(int(total) // 10, num_envs)
    print(f"soak {game} ({players}p), {num_envs} slots, {threads} thread(s): "
          f"{total:,.0f} agent-steps", flush=True)
    next_report, first = 0, None
    start = time.perf_counter()
    while loop.steps < total:
        loop.run(0.0)
        if loop.steps >= next_report:
            rss = rss_mb()
            first = rss if first is None else first
            print(f"  {loop.steps:>14,} agent-steps  RSS {rss:8.1f} MB  ({rss - first:+.1f})  "
                  f"{loop.steps / (time.perf_counter() - start):>12,.0f} agent-steps/s", flush=True)
            next_report += report_every
    rss = rss_mb()
    print(f"  {loop.steps:>14,} agent-steps  RSS {rss:8.1f} MB  ({rss - first:+.1f})  done",
          flush=True)
    loop.close()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", help="only these games (default: every core)")
    parser.add_argument("--players", nargs="*", type=int, help="only these player counts")
    parser.add_argument("--num-envs", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall seconds of each batch (1 and 2 threads), in chunks")
    parser.add_argument("--chunk", type=float, default=0.1, help="seconds of each chunk")
    parser.add_argument("--aec-seconds", type=float, default=1.0,
                        help="CPU seconds of the AEC env per case")
    parser.add_argument("--threads", type=int, default=2, help="the threads compared to one")
    parser.add_argument("--sampler-threads", type=int, default=1,
                        help="Python threads the sampling is split over (default 1)")
    parser.add_argument("--soak", type=float, help="agent-steps of a memory soak per case "
                        "(instead of the speed table)")
    args = parser.parse_args(argv)

    games = args.games or vector.games_with_core()
    cases = [(g, n) for g in games for n in GAMES[g].players
             if not args.players or n in args.players]
    if args.soak:
        for game, n in cases:
            soak(game, n, args.num_envs, args.threads if args.threads else 1, args.soak)
        return
    T = args.threads
    print(f"N = {args.num_envs} slots; agent-steps/s; whole = sampling + step (wall time), "
          f"engine = inside step only; targets: {TARGET_STEPS:,} on one thread, "
          f"{T} threads >= {TARGET_SCALING}x one")
    # Other processes on the machine take cores from the threads: say how busy it was.
    print(f"load average at start: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}, "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', '(unset)')}, "
          f"sampler threads {args.sampler_threads}")
    # The 2-thread target read both ways: 1.8x the 1-core target, and 1.8x the 1-thread run.
    header = (f"{'game':<22} {'AEC env':>10} {'1T whole':>11} {'1T engine':>11} "
              f"{f'{T}T whole':>11} {f'{T}T engine':>11} {'1T/1M':>7} "
              f"{f'{T}T/1.8M':>8} {f'{T}T/1T whole':>12} {f'{T}T/1T eng':>11}")
    print(header)
    for game, n in cases:
        aec = aec_speed(game, n, args.aec_seconds)
        one = Loop(game, n, args.num_envs, 1)
        many = Loop(game, n, args.num_envs, T, args.sampler_threads)
        one.run(0.05)  # warm up both
        many.run(0.05)
        one.steps = many.steps = 0
        one.wall = one.engine = many.wall = many.engine = 0.0
        pair = 0
        while one.wall < args.seconds or many.wall < args.seconds:
            first, second = (one, many) if pair % 2 == 0 else (many, one)
            first.run(args.chunk)
            second.run(args.chunk)
            pair += 1
        w1, e1 = one.steps / one.wall, one.steps / one.engine
        wT, eT = many.steps / many.wall, many.steps / many.engine
        print(f"{f'{game} ({n}p)':<22} {aec:>10,.0f} {w1:>11,.0f} {e1:>11,.0f} {wT:>11,.0f} "
              f"{eT:>11,.0f} {w1 / TARGET_STEPS:>6.2f}x "
              f"{wT / (TARGET_SCALING * TARGET_STEPS):>7.2f}x {wT / w1:>11.2f}x {eT / e1:>10.2f}x",
              flush=True)
        one.close()
        many.close()
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
