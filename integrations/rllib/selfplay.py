"""Self-play with CatZoo's league in RLlib: who sits where, and snapshots as training goes.

The modules of a run: ``learner`` (the ``MaskedMLPModule`` PPO trains), one frozen copy of
it per league snapshot (module id ``s<step>``, as CatZoo's league names them), and the
bots ``heuristic`` and ``random`` (``BotModule``). As in CatZoo's own trainer
(training/league.py):

* ``LeagueMapping`` (the ``policy_mapping_fn``) seats the learner at one seat drawn per
  episode and at its partners' seats (team games: the partners share the learner's
  network and its reward), and fills every other seat from the mix of ``league.mix``
  (league snapshot, heuristic, random), a snapshot being drawn by ``league.scheme``
  (latest, uniform, or weighted towards the snapshots the learner does worst against);
* ``LeagueCallback`` takes a snapshot at the start and every ``league.snapshot_interval``
  env steps: a frozen module added to the algorithm (``Algorithm.add_module``), the same
  weights written as a CatZoo checkpoint into ``RUN_DIR/league/`` (``League``, so any
  snapshot plays in the arena), the oldest dropped past ``league.max_snapshots``. It
  counts the learner's standing against each snapshot from the episodes' ends (summed
  across env runners by RLlib's metrics) and hands the env runners a new mapping with
  the new weights after every iteration.
"""

from __future__ import annotations

import math
import uuid
from pathlib import Path

import numpy as np
from ray.rllib.callbacks.callbacks import RLlibCallback
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import ENV_RUNNER_RESULTS, NUM_ENV_STEPS_SAMPLED_LIFETIME

from catzoo.integrations.rllib.export import actor_weights
from catzoo.training.league import League, snapshot_id, snapshot_weights

LEARNER = "learner"
BOTS = ("heuristic", "random")
MIX = ("league", "heuristic", "random")
SCHEMES = ("latest", "uniform", "weighted")


def seat_of(agent_id: str) -> int:
    return int(str(agent_id).rsplit("_", 1)[1])


def _proportions(mapping: dict, keys: tuple[str, ...]) -> tuple[list[str], np.ndarray]:
    names = [k for k in keys if mapping.get(k, 0) > 0]
    p = np.array([mapping[k] for k in names], dtype=float)
    return names, p / p.sum()


class LeagueMapping:
    """``policy_mapping_fn(agent_id, episode)``: the module of each seat, drawn once per
    episode from the episode's id (every seat's call draws the same seating). Plain data
    inside, so RLlib ships it to the env runners."""

    def __init__(self, num_players: int, teams: list[list[int]], league: dict,
                 snapshots: list[str], stats: dict, bots: list[str], seed: int = 0):
        self.num_players = num_players
        self.team_of = {s: tuple(t) for t in teams for s in t}
        mix = {k: v for k, v in league["mix"].items() if k == "league" or k in bots}
        self.mix_names, self.mix_p = _proportions(mix, MIX)
        self.scheme_names, self.scheme_p = _proportions(league["scheme"], SCHEMES)
        self.snapshots = list(snapshots)
        self.weights = (snapshot_weights(stats, self.snapshots, float(league["weighted_power"]))
                        if self.snapshots else np.zeros(0))
        self.seed = int(seed)
        self._last: tuple[str, list[str]] | None = None

    def seating(self, episode_id: str) -> list[str]:
        if self._last is not None and self._last[0] == episode_id:
            return self._last[1]
        rng = np.random.default_rng([self.seed, uuid.UUID(hex=episode_id).int % 2**63]
                                    if _is_hex(episode_id) else [self.seed, hash(episode_id)
                                                                 % 2**63])
        learner = int(rng.integers(self.num_players))
        team = self.team_of.get(learner, (learner,))
        out = []
        for s in range(self.num_players):
            if s == learner or s in team:
                out.append(LEARNER)
                continue
            kind = self.mix_names[int(rng.choice(len(self.mix_names), p=self.mix_p))]
            if kind != "league":
                out.append(kind)
            elif not self.snapshots:
                out.append("random")
            else:
                out.append(self._snapshot(rng))
        self._last = (episode_id, out)
        return out

    def _snapshot(self, rng: np.random.Generator) -> str:
        scheme = self.scheme_names[int(rng.choice(len(self.scheme_names), p=self.scheme_p))]
        if scheme == "latest":
            return self.snapshots[-1]
        if scheme == "uniform":
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return self.snapshots[int(rng.choice(len(self.snapshots), p=self.weights))]

    def __call__(self, agent_id, episode, **kwargs) -> str:
        return self.seating(str(episode.id_))[seat_of(agent_id)]


def _is_hex(text: str) -> bool:
    try:
        uuid.UUID(hex=text)
    except ValueError:
        return False
    return True


def league_results(result: dict) -> dict[str, tuple[int, float]]:
    """This iteration's (games, sum of the learner's standings) against each opponent
    module, from an ``Algorithm.train()`` result (opponents not met are left out: RLlib
    reports a sum over no episode as NaN)."""
    out = {}
    for opponent, got in (result.get(ENV_RUNNER_RESULTS, {}).get("league") or {}).items():
        games, total = float(got.get("games", 0)), float(got.get("standing", 0))
        if games > 0 and not math.isnan(games) and not math.isnan(total):
            out[opponent] = (int(games), total)
    return out


class LeagueCallback(RLlibCallback):
    """Snapshots into the league and the league's results; see the module docstring.
    ``settings``: the run's resolved config (config.py); ``run_dir``: where the league's
    checkpoints go; ``meta``: ``meta(step) -> dict`` the checkpoint metadata."""

    def __init__(self, settings: dict, run_dir: str, meta=None):
        super().__init__()
        self.settings = settings
        self.run_dir = Path(run_dir)
        self.meta = meta
        self.league: League | None = None  # on the driver only
        self.next_snapshot = 0

    # --- on the env runners ---------------------------------------------------------------
    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        modules = {a: episode.module_for(a) for a in episode.agent_episodes}
        learners = [a for a, m in modules.items() if m == LEARNER]
        if not learners or metrics_logger is None:
            return
        infos = episode.agent_episodes[learners[0]].get_infos(-1) or {}
        if "standing" not in infos:
            return
        standing = float(infos["standing"])
        for opponent in sorted({m for m in modules.values() if m != LEARNER}):
            metrics_logger.log_value(("league", opponent, "games"), 1, reduce="sum")
            metrics_logger.log_value(("league", opponent, "standing"), standing, reduce="sum")

    # --- on the driver ----------------------------------------------------------------------
    def on_algorithm_init(self, *, algorithm, **kwargs) -> None:
        self.league = League(self.run_dir / "league")
        self.league.data = {"snapshots": [], "partner": None, "stats": {}}
        self.snapshot(algorithm, 0)
        self.next_snapshot = self.settings["league"]["snapshot_interval"]

    def on_train_result(self, *, algorithm, result, **kwargs) -> None:
        runners = result.get(ENV_RUNNER_RESULTS, {})
        stats = self.league.data["stats"]
        for opponent, got in league_results(result).items():
            games, total = stats.get(opponent, [0, 0.0])
            stats[opponent] = [games + got[0], total + got[1]]
        steps = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
        if steps >= self.next_snapshot:
            self.snapshot(algorithm, steps)
            interval = self.settings["league"]["snapshot_interval"]
            self.next_snapshot = (steps // interval + 1) * interval
        else:
            self.league.save()
            self.push_mapping(algorithm)
        result["league_size"] = len(self.league.snapshots)

    def mapping(self) -> LeagueMapping:
        s = self.settings
        return LeagueMapping(s["env"]["num_players"], s["teams"], s["league"],
                             [x["id"] for x in self.league.snapshots], self.league.data["stats"],
                             bots=s["bots"], seed=s["seed"])

    def push_mapping(self, algorithm) -> None:
        mapping = self.mapping()

        def set_mapping(env_runner, _mapping=mapping):
            env_runner.config.multi_agent(policy_mapping_fn=_mapping)

        algorithm.env_runner_group.foreach_env_runner(set_mapping)

    def snapshot(self, algorithm, step: int) -> str:
        """A frozen copy of the learner, in the league on disk and in the algorithm."""
        sid = snapshot_id(step)
        learner = algorithm.get_module(LEARNER)
        state = learner.get_state()
        before = [x["id"] for x in self.league.snapshots]
        self.league.add_snapshot(step, actor_weights(state), self.meta(step),
                                 self.settings["league"]["max_snapshots"])
        after = [x["id"] for x in self.league.snapshots]
        spec = RLModuleSpec.from_module(learner)
        if sid not in before:
            algorithm.add_module(module_id=sid, module_spec=spec,
                                 new_agent_to_module_mapping_fn=self.mapping(),
                                 new_should_module_be_updated=[LEARNER])
        algorithm.set_state({"learner_group": {"learner": {"rl_module": {sid: state}}}})
        for old in sorted(set(before) - set(after)):
            algorithm.remove_module(old, new_agent_to_module_mapping_fn=self.mapping(),
                                    new_should_module_be_updated=[LEARNER])
        algorithm.env_runner_group.sync_weights(
            from_worker_or_learner_group=algorithm.learner_group, inference_only=True)
        self.push_mapping(algorithm)
        return sid
