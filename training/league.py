"""The league: snapshots of the learner on disk, and who sits at the other seats.

The training process (``League``) owns ``league.json``: the snapshot list, the current
partner (a frozen copy of the learner refreshed during training) and the learner's
results against each snapshot. Env workers (``LeagueSeats``, possibly in other processes
under ``SubprocVecEnv``) only read it, re-reading when its modification time changes, and
load snapshots with ``load_policy`` (safetensors + JSON), so nothing is pickled between
processes and a resumed run finds its league where it left it.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np

from catzoo.games import safe_json
from catzoo.training.checkpoint import CheckpointError, atomic_write_text, load_policy, save_policy

MANIFEST = "league.json"
MAX_MANIFEST_BYTES = 16 * 2**20


def read_manifest(path: Path) -> dict:
    data = safe_json.load_file(path, limit=MAX_MANIFEST_BYTES, error=CheckpointError)
    if (not isinstance(data, dict) or not isinstance(data.get("snapshots"), list)
            or not isinstance(data.get("stats"), dict)):
        raise CheckpointError(f"{path} is not a league manifest")
    return data
KEEP_PARTNERS = 3  # older partner copies are deleted; workers may still be loading the last


def snapshot_id(step: int) -> str:
    return f"s{step:010d}"


def snapshot_weights(stats: dict, ids: list[str], power: float) -> np.ndarray:
    """The "weighted" scheme's probability of each snapshot: the harder the snapshot is
    for the learner (``stats[id] = [games, sum of the learner's returns]``), the likelier."""
    w = np.empty(len(ids))
    for i, sid in enumerate(ids):
        games, total = stats.get(sid, [0, 0.0])
        # The learner's expected score in [0, 1] vs this snapshot, with one prior draw.
        score = ((total + games) / 2 + 0.5) / (games + 1)
        w[i] = (1.0 - score) ** power + 1e-3
    return w / w.sum()


class League:
    def __init__(self, directory: str | Path):
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / MANIFEST
        if path.exists():
            self.data = read_manifest(path)
        else:
            self.data = {"snapshots": [], "partner": None, "stats": {}}

    @property
    def snapshots(self) -> list[dict]:
        return self.data["snapshots"]

    def save(self) -> None:
        atomic_write_text(self.dir / MANIFEST, json.dumps(self.data, indent=1))

    def add_snapshot(self, step: int, weights, meta: dict, max_snapshots: int) -> str:
        sid = snapshot_id(step)
        save_policy(self.dir / sid, weights, meta)
        self.data["snapshots"] = [s for s in self.snapshots if s["id"] != sid]
        self.snapshots.append({"id": sid, "step": step})
        # Dropped snapshots stay on disk: a worker may be about to load one.
        del self.snapshots[:-max_snapshots]
        self.data["stats"].setdefault(sid, [0, 0.0])
        self.save()
        return sid

    def set_partner(self, step: int, weights, meta: dict, keep=()) -> None:
        """Save the partner copy of ``step`` and make it the current one; then prune old
        copies, except those named in ``keep`` (the partners of the checkpoints a resume
        may start from: each must find its partner where it left it)."""
        pid = f"partner-{step:010d}"
        save_policy(self.dir / pid, weights, meta)
        self.data["partner"] = pid
        self.save()
        self.prune_partners(keep)

    def prune_partners(self, keep=()) -> None:
        """Delete partner copies other than the current one, the last ``KEEP_PARTNERS``
        (env workers may still be loading them) and those named in ``keep``."""
        partners = sorted(p.name for p in self.dir.glob("partner-*") if p.is_dir())
        kept = set(keep) | set(partners[-KEEP_PARTNERS:]) | {self.data.get("partner")}
        for old in partners:
            if old not in kept:
                shutil.rmtree(self.dir / old, ignore_errors=True)

    def record(self, infos) -> bool:
        """Add the learner's results from finished episodes' infos; True if any."""
        changed = False
        stats = self.data["stats"]
        for info in infos:
            for sid in info.get("opponents", ()):
                games, total = stats.get(sid, [0, 0.0])
                stats[sid] = [games + 1, total + info["learner_return"]]
                changed = True
        return changed

    def truncate(self, step: int) -> None:
        """Forget snapshots newer than ``step`` (resuming from an earlier checkpoint)."""
        self.data["snapshots"] = [s for s in self.snapshots if s["step"] <= step]
        self.save()


class LeagueSeats:
    """A ``SeatFiller`` drawing each episode's players from the league and the bots."""

    def __init__(self, directory: str | Path, game: str, num_players: int, env_options: dict,
                 teams: list[list[int]], league_config: dict, seed: int):
        from catzoo.games.registry import get_game
        from catzoo.policies.registry import make_policy

        self.dir = Path(directory)
        self.game = game
        self.num_players = num_players
        self.env_options = env_options
        self.team_of = {s: tuple(t) for t in teams for s in t}
        self.deterministic = bool(league_config["opponent_deterministic"])
        mix = league_config["mix"]
        self.mix_names = [k for k in ("league", "heuristic", "random") if mix.get(k, 0) > 0]
        self.mix_p = np.array([mix[k] for k in self.mix_names], dtype=float)
        self.mix_p /= self.mix_p.sum()
        scheme = league_config["scheme"]
        self.scheme_names = [k for k in ("latest", "uniform", "weighted") if scheme.get(k, 0) > 0]
        self.scheme_p = np.array([scheme[k] for k in self.scheme_names], dtype=float)
        self.scheme_p /= self.scheme_p.sum()
        self.power = float(league_config["weighted_power"])
        # a game without a heuristic: random stands in for it (config.validate gives the
        # heuristic no share of the opponents then; here it stands in for a partner)
        kinds = ("random", "heuristic") if get_game(game).heuristic else ("random",)
        self.bots = {(kind, s): make_policy(kind, game, num_players, seed=seed * 100 + s)
                     for kind in kinds for s in range(num_players)}
        self.cache: dict[str, object] = {}
        self.mtime: int | None = None
        self.data: dict = {"snapshots": [], "partner": None, "stats": {}}

    def _refresh(self) -> None:
        try:
            mtime = os.stat(self.dir / MANIFEST).st_mtime_ns
        except FileNotFoundError:
            return
        if mtime != self.mtime:
            self.data = read_manifest(self.dir / MANIFEST)
            self.mtime = mtime

    def _policy(self, name: str):
        if name not in self.cache:
            if len(self.cache) > 64:
                self.cache.clear()
            self.cache[name] = load_policy(self.dir / name, game=self.game,
                                           num_players=self.num_players,
                                           deterministic=self.deterministic)
        return self.cache[name]

    def _weights(self, ids: list[str]) -> np.ndarray:
        return snapshot_weights(self.data["stats"], ids, self.power)

    def _league_opponent(self, rng: np.random.Generator) -> tuple[object, str | None]:
        snaps = self.data["snapshots"]
        if not snaps:
            return self.bots[("random", 0)], None
        scheme = self.scheme_names[int(rng.choice(len(self.scheme_names), p=self.scheme_p))]
        ids = [s["id"] for s in snaps]
        if scheme == "latest":
            sid = ids[-1]
        elif scheme == "uniform":
            sid = ids[int(rng.integers(len(ids)))]
        else:
            sid = ids[int(rng.choice(len(ids), p=self._weights(ids)))]
        return self._policy(sid), sid

    def __call__(self, learner: int, num_players: int, rng: np.random.Generator):
        self._refresh()
        team = self.team_of.get(learner, (learner,))
        seats: list = []
        for s in range(num_players):
            if s == learner:
                seats.append((None, None))
            elif s in team:
                partner = self.data.get("partner")
                fallback = self.bots.get(("heuristic", s)) or self.bots[("random", s)]
                seats.append((self._policy(partner), None) if partner else (fallback, None))
            else:
                kind = self.mix_names[int(rng.choice(len(self.mix_names), p=self.mix_p))]
                if kind == "league":
                    policy, tag = self._league_opponent(rng)
                    seats.append((policy, tag))
                else:
                    seats.append((self.bots[(kind, s)], None))
        return seats
