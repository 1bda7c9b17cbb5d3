"""Who plays each seat of each game slot in batched self-play, and how the others act.

Every time a slot's game starts, its table is drawn:

* with probability ``league.self_play`` the learner plays every seat (in a cooperative game,
  always);
* otherwise one opponent, drawn by ``league.mix`` from the league (a snapshot of the learner,
  picked by ``league.scheme``), the game's heuristic bot or the random bot, holds the seats
  the learner does not: in a team game a whole team (the learner's partner is the learner),
  in a free-for-all a random non-empty proper subset of the seats.

Opponents act in one batched call per opponent per step: a snapshot is the actor read from
its checkpoint, acting through torch views of its arrays (``ActorOpponent``), a bot takes its slots in one ``act_batch`` call
(the Cat in the Box and CATsle Builders heuristics are vectorised; the others loop in
Python). Snapshots are
loaded on first use and dropped when no game holds them; new games draw from the newest
``league.active`` snapshots the scheme picked at the last refresh, so a step forwards through
at most a handful of snapshot networks.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import torch

from catzoo.training.league import snapshot_weights

LEARNER = 0
# The kinds of table a game can be dealt (``SlotSeating.kind`` indexes this).
KINDS_OF_TABLES = ("self_play", "league", "heuristic", "random", "opponent")
# The opponents a table's mix draws from (``league.mix``); "opponent" is ``league.opponent``,
# any policy spec that acts from observations (a checkpoint, ``shipped``, a bot).
MIX_KINDS = ("league", "heuristic", "random", "opponent")


class Opponent(Protocol):
    def act(self, obs: np.ndarray, mask: np.ndarray, generator) -> np.ndarray: ...


class ActorOpponent:
    """A frozen actor (a league snapshot, training/actor.py) acting through its torch pass
    over the arrays it was loaded with: masked, sampled or argmax."""

    def __init__(self, actor, deterministic: bool):
        self.actor, self.deterministic = actor, deterministic

    @torch.no_grad()
    def act(self, obs: np.ndarray, mask: np.ndarray, generator: torch.Generator) -> np.ndarray:
        logits = self.actor.logits_torch(torch.from_numpy(obs))
        logits = logits.masked_fill(torch.from_numpy(mask) == 0, -1e9)
        if self.deterministic:
            return logits.argmax(1).numpy()
        return torch.multinomial(torch.softmax(logits, 1), 1, generator=generator)[:, 0].numpy()


class BotOpponent:
    """A Python bot (``Policy``) acting from its slots' observations and masks in one
    ``act_batch`` call (vectorised where the bot has a batched form, else row by row).
    ``obs_size``: the env's observation size; the bot reads that much of each row, not the
    learner's input features after it (``network.features``)."""

    def __init__(self, policy, obs_size: int | None = None):
        self.policy, self.obs_size = policy, obs_size

    def act(self, obs: np.ndarray, mask: np.ndarray, generator) -> np.ndarray:
        return self.policy.act_batch(obs[:, :self.obs_size], mask)


class SlotSeating:
    """The seat owners of every slot (``owner[i, s]``: 0 the learner, else an opponent code)
    and the opponents behind the codes."""

    def __init__(self, num_envs: int, num_players: int, teams: list[list[int]], league: dict,
                 bots: dict, load_snapshot, rng: np.random.Generator):
        self.n, self.p = num_envs, num_players
        team_list = [tuple(t) for t in teams] or []
        covered = {s for t in team_list for s in t}
        team_list += [(s,) for s in range(num_players) if s not in covered]
        self.teams = team_list
        self.cooperative = len(team_list) == 1
        self.league = league
        self.rng = rng
        self.bots = bots  # name -> BotOpponent (heuristic, random, opponent)
        self.load_snapshot = load_snapshot  # snapshot id -> ActorOpponent
        self.owner = np.zeros((num_envs, num_players), dtype=np.int32)
        self.kind = np.zeros(num_envs, dtype=np.int8)  # KINDS index of each slot's table
        self.holder: list[str | None] = [None] * num_envs  # opponent key per slot
        self.codes: dict[str, int] = {}  # opponent key -> code (>= 1)
        self.opponents: dict[int, Opponent] = {}  # code -> opponent
        self.active: list[str] = []  # snapshot ids new games draw from
        mix = league["mix"]
        names = [k for k in MIX_KINDS if mix.get(k, 0) > 0]
        if "heuristic" in names and "heuristic" not in bots:
            names.remove("heuristic")  # a game without a heuristic: random and the league
        self.mix_names = names or ["random"]
        p = np.array([mix.get(k, 0.0) for k in self.mix_names] or [1.0], dtype=float)
        self.mix_p = p / p.sum()

    # --- the league's snapshots new games draw from ------------------------------------------
    def refresh(self, snapshots: list[dict], stats: dict) -> None:
        """Pick ``league.active`` snapshots by the scheme (latest / uniform / weighted)."""
        if not snapshots:
            self.active = []
            return
        ids = [s["id"] for s in snapshots]
        scheme = self.league["scheme"]
        names = [k for k in ("latest", "uniform", "weighted") if scheme.get(k, 0) > 0]
        sp = np.array([scheme[k] for k in names], dtype=float)
        sp /= sp.sum()
        picked = []
        for _ in range(self.league["active"]):
            how = names[int(self.rng.choice(len(names), p=sp))]
            if how == "latest":
                picked.append(ids[-1])
            elif how == "uniform":
                picked.append(ids[int(self.rng.integers(len(ids)))])
            else:
                picked.append(ids[int(self.rng.choice(
                    len(ids), p=snapshot_weights(stats, ids, self.league["weighted_power"])))])
        self.active = picked
        self._collect()

    def _code(self, key: str) -> int:
        code = self.codes.get(key)
        if code is None:
            code = self.codes[key] = max(self.opponents, default=0) + 1
            self.opponents[code] = (self.bots[key] if key in self.bots
                                    else self.load_snapshot(key))
        return code

    def _collect(self) -> None:
        """Forget the snapshots that neither a game in progress nor the active list holds."""
        used = set(self.holder) | set(self.active) | set(self.bots)
        for key in [k for k in self.codes if k not in used]:
            del self.opponents[self.codes.pop(key)]

    # --- drawing tables ------------------------------------------------------------------------
    def draw(self, slots) -> None:
        """New tables for the games starting in ``slots``."""
        rng = self.rng
        for i in np.atleast_1d(slots):
            i = int(i)
            if self.cooperative or rng.random() < self.league["self_play"]:
                self.owner[i] = LEARNER
                self.kind[i] = 0
                self.holder[i] = None
                continue
            kind = self.mix_names[int(rng.choice(len(self.mix_names), p=self.mix_p))]
            if kind == "league" and not self.active:
                kind = "random"
            key = (self.active[int(rng.integers(len(self.active)))] if kind == "league"
                   else kind)
            code = self._code(key)
            self.kind[i] = KINDS_OF_TABLES.index(kind)
            self.holder[i] = key
            mine = self._learner_sides(rng)
            row = np.full(self.p, code, dtype=np.int32)
            for side in mine:
                row[list(self.teams[side])] = LEARNER
            self.owner[i] = row

    def _learner_sides(self, rng) -> list[int]:
        sides = len(self.teams)
        k = int(rng.integers(1, sides))  # at least one side each
        return list(rng.choice(sides, size=k, replace=False))

    # --- acting ----------------------------------------------------------------------------------
    def act_others(self, player: np.ndarray, obs: np.ndarray, mask: np.ndarray,
                   actions: np.ndarray, generator) -> np.ndarray:
        """Fill ``actions`` for the slots whose player to act is not the learner's; returns
        the learner's slots."""
        code = self.owner[np.arange(self.n), player]
        act_by_code(code, self.opponents, obs, mask, actions, generator)
        return np.flatnonzero(code == LEARNER)


def act_by_code(code: np.ndarray, opponents: dict[int, Opponent], obs: np.ndarray,
                mask: np.ndarray, actions: np.ndarray, generator) -> None:
    """Fill ``actions[j]`` for every row j whose ``code`` is an opponent's (not ``LEARNER``):
    one call per opponent, with all of its rows."""
    for c in np.unique(code):
        if c == LEARNER:
            continue
        idx = np.flatnonzero(code == c)
        actions[idx] = opponents[int(c)].act(obs[idx], mask[idx], generator)


def policy_opponent(spec: str, game: str, num_players: int, seed: int, env_options: dict,
                    obs_size: int, sample: bool = False) -> Opponent:
    """A policy spec (a bot, a checkpoint, ``shipped``) as a batched opponent. A checkpoint
    plays its most likely legal move, as in the arena; with ``sample`` a checkpoint without
    input features samples its masked softmax through ``ActorOpponent``. ``ValueError``
    (``UnknownPolicyError``) for a spec that cannot play there, including the search bots,
    which read the rules engine and not observations."""
    from catzoo.policies.registry import UnknownPolicyError, is_search, make_policy
    from catzoo.training.policy_net import MLPPolicy

    if is_search(game, spec.partition(":")[0].strip()):
        raise UnknownPolicyError(
            f"opponent {spec!r} searches the rules engine; a batched opponent acts from "
            "observations: a bot (random, heuristic), a checkpoint or shipped")
    policy = make_policy(spec, game, num_players, seed=seed, env_options=env_options)
    if sample and isinstance(policy, MLPPolicy) and policy.features is None:
        return ActorOpponent(policy.actor, deterministic=False)
    return BotOpponent(policy, obs_size)
