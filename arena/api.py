"""The arena's Python API: ``run_arena`` plays, ``ArenaResult`` holds and summarises.

    from catzoo.arena import run_arena
    result = run_arena("cat_in_the_box", ["random", "heuristic", "ismcts"], games=120,
                       num_players=4, workers=2, seed=0)
    print(result.table())
    result.summary()          # one dict per policy
    result.save("out/")       # JSON, CSV and PNG
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from catzoo.arena import ratings as R
from catzoo.arena import stats as S
from catzoo.arena.runner import Lineup, play_all
from catzoo.arena.schedule import ArenaSetupError, Seating, Structure, game_structure, schedule
from catzoo.games.registry import get_game

BACKENDS = ("local", "ray")


class ArenaPolicyError(RuntimeError):
    """A policy raised or played an illegal action; ``partial`` holds the games finished
    before (an ``ArenaResult``) and ``report`` the details (board, replayable log)."""

    def __init__(self, report: dict, partial: ArenaResult):
        self.report = report
        self.partial = partial
        super().__init__(format_failure(report, partial.game))


def format_failure(report: dict, game: str) -> str:
    where = (f"in {game} arena game {report.get('game')} (deal seed {report.get('seed')}, "
             f"seats {report.get('seats')})")
    step = "" if report.get("step") is None else f" at step {report['step']}"
    text = (f"policy {report['policy']!r} at seat {report['seat']} {report['problem']}\n"
            f"  {where}{step}")
    if report.get("board"):
        text += "\n  game state:\n" + "\n".join("    " + line for line in
                                              str(report["board"]).splitlines())
    if report.get("log") is not None:
        text += ("\n  the game's action log (replays it up to the failure) is in the "
                 "error's report['log']")
    return text


@dataclass
class ArenaResult:
    game: str
    num_players: int
    names: list[str]
    seed: int
    structure: Structure
    mixed_teams: bool
    options: dict
    records: list[dict]
    scheduled: int
    seconds: float
    workers: int
    failure: dict | None = None
    _cache: dict = field(default_factory=dict, repr=False)

    # --- the numbers ---------------------------------------------------------------------
    def _derived(self):
        if "events" not in self._cache:
            events, samples = S.events_and_samples(self.records, self.structure)
            self._cache["events"], self._cache["samples"] = events, samples
        return self._cache["events"], self._cache["samples"]

    @property
    def events(self) -> list[S.Event]:
        return self._derived()[0]

    def ratings(self) -> dict:
        if "ratings" not in self._cache:
            self._cache["ratings"] = R.fit(self.events, len(self.names))
        return self._cache["ratings"]

    def head_to_head(self) -> tuple[np.ndarray, np.ndarray]:
        return S.head_to_head(self.events, len(self.names))

    def pair(self) -> dict | None:
        """In a two-policy arena, the first policy against the second with a 95% interval
        (``stats.pair_comparison``); else None."""
        if len(self.names) != 2:
            return None
        return S.pair_comparison(self.records, self.events, self.structure.cooperative)

    def summary(self) -> list[dict]:
        """One row per policy, best rating first."""
        events = self.events
        sides = max((len(ev.entrants) for ev in events), default=None)
        rows = S.policy_stats(self._derived()[1], len(self.names), max_rank=sides)
        rt = self.ratings()
        think = np.zeros(len(self.names))
        moves = np.zeros(len(self.names))
        for rec in self.records:
            for seat, p in enumerate(rec["seats"]):
                think[p] += rec["think"][seat]
                moves[p] += rec["moves"][seat]
        for p, row in enumerate(rows):
            row.update(policy=self.names[p], rating=rt["rating"][p], rating_low=rt["low"][p],
                       rating_high=rt["high"][p],
                       seconds_per_move=float(think[p] / moves[p]) if moves[p] else math.nan)
        order = sorted(range(len(rows)), key=lambda p: -rows[p]["rating"])
        return [{"policy": rows[p].pop("policy"), **rows[p]} for p in order]

    @property
    def games_per_second(self) -> float:
        return len(self.records) / self.seconds if self.seconds > 0 else math.nan

    # --- output (in report.py) ------------------------------------------------------------
    def table(self) -> str:
        from catzoo.arena.report import table

        return table(self)

    def to_dict(self) -> dict:
        from catzoo.arena.report import to_dict

        return to_dict(self)

    def save(self, folder, stem: str | None = None, plot: bool = True) -> dict:
        from catzoo.arena.report import save

        return save(self, folder, stem=stem, plot=plot)


def run_arena(game: str, policies: list, games: int = 100, num_players: int | None = None,
              workers: int | None = None, seed: int = 0, mixed_teams: bool = False,
              options: dict | None = None, names: list[str] | None = None,
              progress: bool = False, raise_on_failure: bool = True,
              backend: str = "local", address: str | None = None,
              estimate=None) -> ArenaResult:
    """Play ``games`` seeded games (rounded up to whole seat rotations) between
    ``policies`` (specs like "heuristic", "ismcts:iterations=100", a checkpoint path, or
    Policy objects) and return the results.

    ``backend="local"`` plays in this process or ``workers`` processes (default 1);
    ``backend="ray"`` plays the rounds as Ray tasks on the cluster at ``address`` (passed to
    ``ray.init``; see ray_backend.py), policies given as specs or checkpoint paths.
    Either way the results are the same, game for game, for the same seed.

    ``estimate(text)``, when given, is told after the first games how long the rest will
    take. A policy failure raises ``ArenaPolicyError`` (``err.partial`` keeps the games played
    before it), or with ``raise_on_failure=False`` is returned in ``result.failure``.
    """
    info = get_game(game)
    games = _integer("games", games)
    seed = _integer("seed", seed)
    workers = None if workers is None else _integer("workers", workers)
    n = info.default_players if num_players is None else _integer("num_players", num_players)
    if n not in info.players:
        raise ArenaSetupError(
            f"{info.name} is played by {', '.join(map(str, info.players))} players, not {n}")
    if backend not in BACKENDS:
        raise ArenaSetupError(f"backend={backend!r}; use {' or '.join(BACKENDS)}")
    if workers is not None and workers < 1:
        raise ArenaSetupError(f"workers must be at least 1, not {workers}")
    if address is not None and backend != "ray":
        raise ArenaSetupError("an address is for the Ray backend: pass backend='ray'")
    options = {k: _plain(v) for k, v in (options or {}).items()}
    names = list(names) if names is not None else _names(policies)
    if len(names) != len(policies):
        raise ArenaSetupError(f"{len(names)} names for {len(policies)} policies")
    _check_policies(policies, info.name, n, options)
    structure = game_structure(info.name, n, options)
    seatings: list[Seating] = schedule(len(policies), games, n, structure, seed, mixed_teams)
    lineup = Lineup(info.name, n, list(policies), names, options, seed)
    start = [time.perf_counter()]
    if backend == "ray":
        from catzoo.arena.ray_backend import play_all_ray

        # Timed from the connection on: starting a cluster is not playing games.
        records, failure, workers = play_all_ray(
            lineup, seatings, workers=workers, address=address, progress=progress,
            on_start=lambda: start.__setitem__(0, time.perf_counter()), estimate=estimate)
    else:
        workers = workers or 1
        records, failure = play_all(lineup, seatings, workers=workers, progress=progress,
                                    estimate=estimate)
    result = ArenaResult(info.name, n, names, seed, structure, mixed_teams, options, records,
                         len(seatings), time.perf_counter() - start[0], workers, failure)
    if failure is not None and raise_on_failure:
        raise ArenaPolicyError(failure, result)
    return result


def _integer(name: str, value) -> int:
    """``value`` as a Python int (numpy integers too: results are written as JSON)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArenaSetupError(f"{name}={value!r} must be an integer")
    return int(value)


def _plain(value):
    """An option value with numpy integers as Python ints (the results are JSON)."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (list, tuple, np.ndarray)):
        return tuple(_plain(v) for v in value)
    return value


def _names(policies: list) -> list[str]:
    raw = [p if isinstance(p, str) else getattr(p, "name", type(p).__name__) for p in policies]
    seen: dict[str, int] = {}
    out = []
    for name in raw:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if raw.count(name) == 1 else f"{name}#{seen[name]}")
    return out


def _check_policies(policies: list, game: str, n: int, options: dict) -> None:
    """Build each spec once here so a bad spec (or a checkpoint trained for other game
    options) fails before any worker starts."""
    from catzoo.policies.base import Policy
    from catzoo.policies.registry import check_policy_fits, make_policy

    for p in policies:
        if isinstance(p, str):
            make_policy(p, game, n, seed=0, env_options=options)
        elif isinstance(p, Policy):
            check_policy_fits(p, game, n, options)
        else:
            raise ArenaSetupError(
                f"{p!r} is neither a policy spec nor a catzoo.policies.base.Policy")
