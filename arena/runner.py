"""Plays the scheduled games, in this process or in worker processes, with a progress bar.

Every game is a pure function of its seating (policies per seat, deal seed), so the
results do not depend on the number of workers or on which worker played what: results
come back in game order. The first policy failure stops the arena; the games finished
before it are kept.

Every process that plays (this one while it plays, each worker, each Ray task) holds its
numeric libraries' thread pools at one thread (``catzoo.policies.search.threads``;
``CATZOO_THREADS`` overrides), and counts the search bots' time budgets on the thread's CPU
time (``catzoo.policies.search.budget``; ``CATZOO_SEARCH_CLOCK=wall`` overrides), so a
table means the same on an idle and on a loaded machine. Each move's wall and CPU time
are recorded (a record's ``think``, ``think_cpu``, ``longest`` and ``longest_cpu`` per seat).
"""

from __future__ import annotations

import contextlib
import copy
import multiprocessing
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from catzoo.arena.guard import GuardedPolicy, PolicyFailure
from catzoo.arena.schedule import Seating
from catzoo.policies.match import play_match
from catzoo.policies.search import budget, threads

# Set while this process's pools are sized already (a worker's for good, this process's
# while ``play_all`` plays), so a chunk need not size them again.
_SIZED = False


def arena_clock() -> str:
    """The clock the arena's search budgets count on: ``CATZOO_SEARCH_CLOCK`` when set,
    else the thread's CPU time."""
    return os.environ.get(budget.ENV, "").strip().lower() or "cpu"


class TimedPolicy(GuardedPolicy):
    """A guarded seat that also counts its moves' CPU time and its longest move."""

    def __init__(self, inner, name: str, seat: int):
        super().__init__(inner, name, seat)
        self.cpu_seconds = 0.0
        self.longest = self.longest_cpu = 0.0  # of the game being played (``play`` resets)

    def act(self, observation, *, state=None, player=None) -> int:
        wall, cpu = time.perf_counter(), time.thread_time()
        action = super().act(observation, state=state, player=player)
        cpu = time.thread_time() - cpu
        self.cpu_seconds += cpu
        self.longest = max(self.longest, time.perf_counter() - wall)
        self.longest_cpu = max(self.longest_cpu, cpu)
        return action


@dataclass
class Lineup:
    """What a worker needs to seat the policies: specs (strings) or Policy objects."""

    game: str
    num_players: int
    policies: list  # spec strings or Policy instances
    names: list[str]
    options: dict = field(default_factory=dict)
    seed: int = 0


class SeatedPolicies:
    """The policies of one process (the arena's own, a worker's), one instance per
    (policy, seat), made when first seated and kept for the process's later games: a policy
    sitting at two seats of a game must not share its per-game memory between them."""

    def __init__(self, lineup: Lineup):
        self.lineup = lineup
        self.cache: dict[tuple[int, int], GuardedPolicy] = {}

    def seat(self, p: int, seat: int) -> GuardedPolicy:
        key = (p, seat)
        if key not in self.cache:
            spec = self.lineup.policies[p]
            if isinstance(spec, str):
                from catzoo.policies.registry import make_policy

                inner = make_policy(spec, self.lineup.game, self.lineup.num_players,
                                    seed=self.lineup.seed * 7919 + p * 101 + seat,
                                    env_options=self.lineup.options)
            else:
                inner = copy.deepcopy(spec)
            self.cache[key] = TimedPolicy(inner, self.lineup.names[p], seat)
        return self.cache[key]

    def play(self, s: Seating) -> dict:
        seated = [self.seat(p, seat) for seat, p in enumerate(s.seats)]
        before = [(g.seconds, g.moves, g.cpu_seconds) for g in seated]
        for g in seated:
            g.longest = g.longest_cpu = 0.0
        start = time.perf_counter()
        try:
            result = play_match(self.lineup.game, seated, seed=s.seed, **self.lineup.options)
        except PolicyFailure as failure:
            failure.report.update(game=s.index, seed=s.seed,
                                  seats=[self.lineup.names[p] for p in s.seats])
            raise
        return {
            "game": s.index, "round": s.round, "seed": s.seed, "seats": list(s.seats),
            "scores": [float(x) for x in result.scores],
            "returns": [float(x) for x in result.returns],
            "winners": [int(w) for w in result.winners],
            "steps": result.agent_steps,
            "seconds": time.perf_counter() - start,
            "think": [g.seconds - b[0] for g, b in zip(seated, before)],
            "moves": [g.moves - b[1] for g, b in zip(seated, before)],
            "think_cpu": [g.cpu_seconds - b[2] for g, b in zip(seated, before)],
            "longest": [g.longest for g in seated],
            "longest_cpu": [g.longest_cpu for g in seated],
        }

    def play_chunk(self, chunk: list[Seating]) -> tuple[list[dict], dict | None]:
        """The records of ``chunk``'s games in order, and the report of the policy failure
        that stopped them (None when all were played)."""
        records = []
        sized = contextlib.nullcontext() if _SIZED else threads.limited()
        with sized, budget.use_clock(arena_clock()):
            for s in chunk:
                try:
                    records.append(self.play(s))
                except PolicyFailure as failure:
                    return records, failure.report
        return records, None


_SEATED: SeatedPolicies | None = None  # a worker process's


def _init_worker(lineup: Lineup) -> None:
    global _SEATED, _SIZED
    threads.limit_process()
    _SIZED = True
    _SEATED = SeatedPolicies(lineup)


def _play_chunk(chunk: list[Seating]) -> tuple[list[dict], dict | None]:
    return _SEATED.play_chunk(chunk)


class Estimate:
    """Once the first games are played: how long all of them will take, said once."""

    def __init__(self, total: int, workers: int, say):
        self.total, self.workers, self.say = total, workers, say
        self.start = time.perf_counter()
        self.told = say is None

    def update(self, done: int) -> None:
        if self.told or done == 0:
            return
        elapsed = time.perf_counter() - self.start
        # a tenth of the games (at least 2, a game per worker), or 15 s: the lineups
        # differ in speed, so the first game or two say little
        if done < min(self.total, max(2, self.workers, self.total // 10)) and elapsed < 15:
            return
        self.told = True
        if done >= self.total:
            return
        left = elapsed / done * (self.total - done)
        self.say(f"arena: {done} of {self.total} games in {duration(elapsed)}: about "
                 f"{duration(left)} more at the pace so far ({self.workers} worker(s))")


def duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def play_all(lineup: Lineup, seatings: list[Seating], workers: int = 1,
             progress: bool = True, estimate=None) -> tuple[list[dict], dict | None]:
    """Records of the games played in order, and the failure report that stopped them.
    ``estimate(text)``, when given, is told once, after the first games, how long the
    rest will take."""
    bar, clock = progress_and_estimate(len(seatings), lineup.game, workers, progress, estimate)
    global _SIZED
    records: list[dict] = []
    failure = None
    pool = None
    sized, was = contextlib.ExitStack(), _SIZED
    try:
        if workers <= 1:
            sized.enter_context(threads.limited())
            _SIZED = True
            seated = SeatedPolicies(lineup)
            # one game a chunk, played as the loop asks: none after a failure
            results = (seated.play_chunk([s]) for s in seatings)
        else:
            size = max(1, min(8, len(seatings) // (workers * 8)))
            chunks = [seatings[i:i + size] for i in range(0, len(seatings), size)]
            # An executor, not multiprocessing.Pool: stopping a Pool early with terminate()
            # can deadlock (its task thread blocked on the queue's lock; it hung a CI run),
            # while an executor shut down with cancel_futures drops the chunks not started
            # and lets the few running ones finish.
            pool = ProcessPoolExecutor(workers, mp_context=_context(), initializer=_init_worker,
                                       initargs=(lineup,))
            results = (f.result() for f in [pool.submit(_play_chunk, chunk) for chunk in chunks])
        for done, failure in results:
            records.extend(done)
            bar.update(len(done))
            clock.update(len(records))
            if failure is not None:
                break
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        sized.close()
        _SIZED = was
        bar.close()
    return records, failure


def progress_and_estimate(total: int, game: str, workers: int, progress: bool, estimate):
    """The arena's progress bar and its estimate of the time left (every backend's)."""
    bar = _progress(total, game, progress)
    say = None
    if estimate is not None:
        def say(text: str) -> None:
            with bar.external_write_mode(file=sys.stderr):  # not through the bar's line
                estimate(text)
    return bar, Estimate(total, workers, say)


def _context():
    # fork starts workers in milliseconds with the policies already loaded; elsewhere (or
    # where fork is unavailable) spawn is the safe default.
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def _progress(total: int, game: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=f"arena {game}", unit="game", disable=not enabled,
                file=sys.stderr, leave=False, dynamic_ncols=True)
