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
from catzoo.games.ledges import state as S
from catzoo.games.ledges.layout import BAT_OPTIONS, OPTION_FEATURES, TOY_OPTIONS
from catzoo.policies.base import legal_actions
from catzoo.policies.heuristics.ledges import LedgesHeuristic

# Per aimed phase: its actions (first, end), where their options lie in the aiming
# features (start, stop, features per option), and whether the best legal option must
# expect points to be taken over the heuristic's choice (a bat is taken whatever it
# expects: the aimer never stops batting while a bat is left).
AIMED = {
    S.BAT: ((S.BAT_BASE, S.STOP), (0, BAT_OPTIONS, F.BAT_FEATURES), False),
    S.TOY: ((S.TOY_BASE, S.BAT_BASE), (BAT_OPTIONS, BAT_OPTIONS + TOY_OPTIONS, 2), True),
    S.CAT: ((S.CAT_BASE, S.TOY_BASE), (BAT_OPTIONS + TOY_OPTIONS, OPTION_FEATURES, 2), True),
}


class LedgesAimer(LedgesHeuristic):
    name = "aimer"

    def act(self, observation, *, state=None, player=None) -> int:
        obs = observation["observation"]
        size = self.layout.obs_size
        if obs.shape[0] not in (size, size + OPTION_FEATURES):
            return super().act(observation, state=state, player=player)  # its error
        phase = int(np.argmax(self.layout.decode(obs[:size])["phase"]))
        legal_actions(observation)  # the error for a mask with no legal action
        if phase in AIMED:  # the build is the heuristic's
            (first, end), (start, stop, per_option), needs_points = AIMED[phase]
            value = self._features(obs, state)[start:stop].reshape(-1, per_option)[:, 0]
            value = np.where(observation["action_mask"][first:end].astype(bool), value, -1.0)
            best = value.max()
            if best > 0.0 or (best == 0.0 and not needs_points):
                return first + int(np.argmax(value))
        return super().act(observation, state=state, player=player)

    def _features(self, obs: np.ndarray, state) -> np.ndarray:
        """The aiming features of every phase (the observation's last block)."""
        if obs.shape[0] == self.layout.obs_size + OPTION_FEATURES:
            return obs[self.layout.obs_size:]
        if state is not None:
            return state.options_block().astype(np.float32)  # as the observation holds it
        raise ValueError(
            "ledges aimer: the observation has no aiming features (env option "
            "aim_features=False) and no engine state was passed to act(state=...)"
        )
