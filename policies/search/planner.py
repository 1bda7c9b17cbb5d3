"""A sampling planner for the physics game: try candidate actions in the simulator with the
dexterity noise and keep the best on average.

Written against the engine contract only (``resample``, ``apply``, ``legal_actions``,
``scores``, ``returns``), so it runs on any game; it is meant for ``ledges``, where nothing
is hidden and chance is the dexterity noise and the cards drawn. ``resample`` gives a copy
whose future noise comes from a generator we seed, so each sample is a fresh draw of the
noise.

Per move: up to ``candidates`` legal actions (all of them when there are fewer, else a
seeded random subset), each simulated ``samples`` times. Sample ``k`` uses the same noise
seed for every candidate (common random numbers), so candidates are compared on equal
luck. After the candidate, the rest of the mover's turn is played at random (at most
``depth`` actions) because a build or a placement scores nothing by itself: its value
shows when the toy falls. A sample is worth the mover's score margin over the mean of the
other players when the turn ends, plus ``100 * returns()`` if the game ended.

With ``guide=SPEC`` (``planner:guide=aimer`` in Ledges, or a network) the guide plays the
rest of the turn instead of random moves, and proposes the candidates: its own move, then
its next choices, up to ``candidates`` in all: the aimer's ``ranked`` (the cat, toy and bat
by the aiming features' expected points), a network's ``action_probabilities`` (most
likely first, as ISMCTS's prior reads them); a guide with neither is refused. Where the
aimer ranks nothing (its builds) the planner plays the guide's move without simulating
(its strength over the aimer: docs/arena.md, *Planner*).

Options (``planner:candidates=16,samples=4,depth=8,seconds=S,guide=SPEC``). With ``seconds`` the
planner is anytime: it simulates sample after sample, each for every candidate in turn (so
candidates stay compared on the same noise), until the budget is spent or ``samples`` (when
given; else without bound) are done, and checks the clock between two simulations, so a
move takes at most S plus one simulation; each candidate's value is its mean over the
samples it got (a sample cut short by the deadline is left out for every candidate, but
the first, which then decides alone: ``budget.sample_rounds``).
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.base import TERMINAL
from catzoo.policies.base import Policy, legal_actions
from catzoo.policies.search.budget import Budget, sample_rounds
from catzoo.policies.search.inner import InnerPolicy
from catzoo.policies.search.options import SearchOptionError, check_options, require_state

OPTIONS = {
    "candidates": (int, 8, lambda v: v >= 1, "at least 1"),
    "samples": (int, 2, lambda v: v >= 1, "at least 1"),
    "depth": (int, 8, lambda v: v >= 0, "at least 0"),
    "seconds": (float, None, lambda v: v > 0, "positive"),
    "guide": (str, None, lambda v: bool(v) and v.partition(":")[0] not in ("planner", "best"),
              "the aimer or a network (not a planner or best)"),
}
MOST_SAMPLES = 100_000  # with a time budget and no ``samples``: bounded by the time alone
END_WEIGHT = 100.0  # winning the game outweighs any margin of points


class PlannerPolicy(Policy):
    name = "planner"

    def __init__(self, num_players: int | None = None, seed: int | None = None, **options):
        opts = check_options("planner", options, OPTIONS)
        self.candidates = opts["candidates"]
        self.seconds = opts["seconds"]
        self.samples = (MOST_SAMPLES if self.seconds and "samples" not in options
                        else opts["samples"])
        self.clock = None  # the budget's clock: None for the process's (budget.py)
        self.depth = opts["depth"]
        self.guide = (None if opts["guide"] is None
                      else InnerPolicy("planner: its guide", opts["guide"], seed))
        self._guide = None  # the guide loaded for the table of the current move
        self.rng = random.Random(seed)
        self.last_values: dict[int, float] = {}  # candidate -> mean value, last move

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = random.Random(seed)
        if self.guide is not None:
            self.guide.reset(seed)

    def act(self, observation, *, state=None, player=None) -> int:
        legal = [int(a) for a in legal_actions(observation)]
        if len(legal) == 1:
            return legal[0]
        require_state("planner", "simulates", state, player)
        rng = self.rng
        if self.guide is not None:
            pool = self._guided_pool(observation, state, int(player))
            if len(pool) == 1:
                self.last_values = {}
                return pool[0]
        else:
            pool = legal if len(legal) <= self.candidates else rng.sample(legal, self.candidates)
        # Seeds drawn as the rounds start: bounded by the time alone with ``seconds``.
        seeds = (rng.getrandbits(64) for _ in range(self.samples))
        values = sample_rounds(pool, seeds,
                               lambda action, noise: self._simulate(state, int(player), action,
                                                                    noise),
                               Budget(self.seconds, self.clock))
        self.last_values = values
        return max(pool, key=lambda a: values[a])  # first of equals: pool order is seeded

    def _guided_pool(self, observation, state, player: int) -> list[int]:
        """The guide's move first, then its next-ranked legal moves (none where it ranks
        nothing)."""
        self._guide = guide = self.guide.for_state(state)
        move = int(guide.act(observation, state=state, player=player))
        if hasattr(guide, "ranked"):  # the aimer
            order = guide.ranked(observation, state=state)
        elif hasattr(guide, "action_probabilities"):  # a network: its prior, as ISMCTS's
            p = guide.action_probabilities(observation["observation"][None],
                                           observation["action_mask"][None])[0]
            legal = legal_actions(observation)
            order = legal[np.argsort(-p[legal], kind="stable")]
        else:
            raise SearchOptionError(f"planner: guide={self.guide.spec!r} ranks no moves (it "
                                    "has neither a ranking nor action probabilities)")
        others = [int(a) for a in (order if order is not None else ()) if int(a) != move]
        return [move, *others[: self.candidates - 1]]

    def _simulate(self, state, player: int, action: int, noise: int) -> float:
        sim = state.resample(player, random.Random(noise))
        sim.apply(action)
        play = random.Random(noise ^ 0x5EED)
        steps = 0
        while sim.current_player == player and steps < self.depth:
            if self.guide is not None:
                seen = {"observation": sim.observation(player), "action_mask": sim.legal_mask()}
                sim.apply(int(self._guide.act(seen, state=sim, player=player)))
            else:
                legal = sim.legal_actions()
                sim.apply_unchecked(legal[int(play.random() * len(legal))])
            steps += 1
        return margin(sim, player)


def score_margin(state, player: int) -> float:
    """``player``'s score over the other players' mean score (the planner's and PIMC's
    value of a position short of the game's end)."""
    return margin_of(state.scores(), player)


def margin_of(scores, player: int) -> float:
    """``player``'s score in ``scores`` (one per seat) over the others' mean."""
    scores = np.asarray(scores, dtype=np.float64)
    others = np.delete(scores, player)
    return float(scores[player] - (others.mean() if others.size else 0.0))


def margin(state, player: int) -> float:
    value = score_margin(state, player)
    if state.current_player == TERMINAL:
        value += END_WEIGHT * float(state.returns()[player])
    return value
