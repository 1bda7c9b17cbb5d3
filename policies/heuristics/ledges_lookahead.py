"""The Cats Knocking Things Off Ledges lookahead: the aimer, its builds chosen by trying
them in the game's own simulator.

The aimer builds as the heuristic does, by hand-tuned scores, and every platform it adds
is shared with the other players; what a build is worth to the builder shows in the shot
that follows it. So at a build this bot takes a few candidates, the heuristic's own build
and its ``PER_MODE`` best under each of its two plans ("up": on the highest platform;
"landing": a low platform within reach of it), plays each in ``SAMPLES`` copies of the game
with fresh dexterity noise and cards (``LedgesState.resample``: nothing is hidden in Ledges,
so the copies know only what the table shows) and values it by the aiming features' best
expected points for the cat, toy and bat that would follow (``cat_features``); a build that
knocks something over or brings the tower down is worth ``FALL``. It takes the best mean,
the heuristic's build on a tie. Cat, toy and bats are the aimer's.

It reads the engine state, so it plays where ``act`` gets ``state=`` (the arena, the tables,
the imitation warm-start). Its strength against the aimer is in checkpoints/README.md.

``lookahead:seconds=S`` makes a build anytime (``best:ledges`` thinks 1 s): the samples are
played in rounds, each round one noise draw for every candidate in turn (so candidates stay
compared on the same luck), the clock checked between two simulations (a build that brings
the tower down simulates its fall, the longest step: up to a few CPU-seconds unbudgeted).
At the deadline the means of the whole rounds decide, or, before the first round is whole,
the candidates it reached (the heuristic's build always among them).
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.games.ledges import features as F
from catzoo.games.ledges import state as S
from catzoo.policies.base import legal_actions
from catzoo.policies.heuristics import ledges as H
from catzoo.policies.heuristics.ledges_aimer import LedgesAimer
from catzoo.policies.search.budget import Budget, sample_rounds
from catzoo.policies.search.options import check_options

PER_MODE = 4
SAMPLES = 2
FALL = -1.0  # in points: below any shot, so a build that ends the turn is never preferred


class LedgesLookahead(LedgesAimer):
    name = "lookahead"
    OPTIONS = {"seconds": (float, None, lambda v: v > 0, "positive")}

    def __init__(self, num_players: int = 2, seed: int | None = None, **options):
        super().__init__(num_players, seed)
        self.seconds = check_options("lookahead", options, self.OPTIONS)["seconds"]
        self.clock = None  # the budget's clock: None for the process's (search/budget.py)

    def act(self, observation, *, state=None, player=None) -> int:
        budget = Budget(self.seconds, self.clock)  # the move's whole time, its scoring too
        own = super().act(observation, state=state, player=player)
        builds = legal_actions(observation)
        if builds[0] >= S.NUM_BUILD:  # the build phase's actions are the builds, and only it has any
            return own
        if state is None:
            raise ValueError("ledges lookahead: a build is chosen in the simulator, so act() "
                             "needs the engine state (state=...)")
        obs = observation["observation"]
        plats = self._platforms(self.layout.decode(obs[: self.layout.obs_size]))
        candidates = [own]
        for mode in ("up", "landing"):
            scores = self.build_scores(builds, plats, mode)
            for i in np.argsort(-scores, kind="stable")[:PER_MODE]:
                if scores[i] > H.TILTED and int(builds[i]) not in candidates:
                    candidates.append(int(builds[i]))
        if len(candidates) == 1:
            return own
        seeds = [int(s) for s in self.rng.integers(2**63, size=SAMPLES)]
        values = sample_rounds(candidates, seeds,
                               lambda action, seed: self._value(state, action, seed), budget)
        return max(candidates, key=values.get)  # the heuristic's own build on a tie

    @staticmethod
    def _value(state, action: int, seed: int) -> float:
        mover = state.current_player
        copy = state.resample(mover, random.Random(seed))
        copy.apply(action)
        if copy.current_player != mover or copy.phase != S.CAT:
            return FALL
        return float(F.cat_features(copy)[:, 0].max() * F.POINTS_SCALE)
