"""The Cats Knocking Things Off Ledges aimer: the heuristic's building, then the cat, the
toy and every bat chosen by the point-mass model's expected points under the dexterity
noise (the aiming features of ``catzoo.games.ledges.features``).

* build: as the heuristic bot (``policies/heuristics/ledges.py``);
* cat: the legal platform whose best toy, side and bat expects the most points; the
  heuristic's choice when the model expects nothing anywhere;
* toy: the toy and side whose best bat expects the most points (the toy's icon counts for
  its +1); the heuristic's choice when the model expects nothing;
* bat: the legal bat that expects the most points (a blocked bat expects none); it never
  stops batting while a bat is left, as the heuristic.

The heuristic aims each bat at the nearest predicted miss of a target's centre; the aimer
weighs each option over the noise instead (its results against the heuristic are in
``checkpoints/README.md``).

The features come from the observation when the env has ``aim_features=True`` (no extra
cost), else from the engine state that callers pass to ``act`` (``state=``): they are
public, computed from the poses at rest, so nothing hidden is read.
"""

from __future__ import annotations

import numpy as np

from catzoo.games.ledges import features as F
from catzoo.games.ledges import geometry as G
from catzoo.games.ledges.layout import BAT_OPTIONS, CAT_OPTIONS, OPTION_FEATURES, TOY_OPTIONS
from catzoo.games.ledges.state import (
    BAT,
    BAT_BASE,
    BUILD,
    CAT,
    CAT_BASE,
    NUM_BUILD,
    STOP,
    TOY,
    TOY_BASE,
)
from catzoo.policies.base import legal_actions
from catzoo.policies.heuristics.ledges import LedgesHeuristic

NUM_TOY_ACTIONS = TOY_OPTIONS // 2


class LedgesAimer(LedgesHeuristic):
    name = "aimer"

    def act(self, observation, *, state=None, player=None) -> int:
        obs = observation["observation"]
        size = self.layout.obs_size
        if obs.shape[0] not in (size, size + OPTION_FEATURES):
            return super().act(observation, state=state, player=player)  # its error
        phase = int(np.argmax(self.layout.decode(obs[:size])["phase"]))
        legal = legal_actions(observation)
        if phase == BUILD and legal[0] < NUM_BUILD:
            return super().act(observation, state=state, player=player)
        mask = observation["action_mask"].astype(bool)
        if phase == BAT:
            value = self._features(obs, state, phase)[:, 0]
            value = np.where(mask[BAT_BASE:STOP], value, -1.0)
            if value.max() >= 0.0:
                return BAT_BASE + int(np.argmax(value))
        elif phase == TOY:
            value = self._features(obs, state, phase)[:, 0]
            value = np.where(mask[TOY_BASE:TOY_BASE + NUM_TOY_ACTIONS], value, -1.0)
            if value.max() > 0.0:
                return TOY_BASE + int(np.argmax(value))
        elif phase == CAT:
            value = self._features(obs, state, phase)[:, 0]
            value = np.where(mask[CAT_BASE:CAT_BASE + G.NUM_PLATFORMS], value, -1.0)
            if value.max() > 0.0:
                return CAT_BASE + int(np.argmax(value))
        return super().act(observation, state=state, player=player)

    def _features(self, obs: np.ndarray, state, phase: int) -> np.ndarray:
        """The phase's aiming features, (options, features per option)."""
        if obs.shape[0] == self.layout.obs_size + OPTION_FEATURES:
            block = obs[self.layout.obs_size:]
        elif state is not None:
            block = state.options_block().astype(np.float32)  # as the observation holds it
        else:
            raise ValueError(
                "ledges aimer: the observation has no aiming features (env option "
                "aim_features=False) and no engine state was passed to act(state=...)"
            )
        if phase == BAT:
            return block[:BAT_OPTIONS].reshape(F.NUM_BATS, F.BAT_FEATURES)
        if phase == TOY:
            return block[BAT_OPTIONS:BAT_OPTIONS + TOY_OPTIONS].reshape(-1, 2)
        return block[BAT_OPTIONS + TOY_OPTIONS:].reshape(CAT_OPTIONS // 2, 2)
