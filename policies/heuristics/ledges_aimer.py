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

from functools import cache

import numpy as np

from catzoo.games.ledges import features as F
from catzoo.games.ledges import geometry as G
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
        legal_actions(observation)  # the error for a mask with no legal action, first
        order = self.ranked(observation, state=state)
        if order:
            return order[0]
        return super().act(observation, state=state, player=player)  # builds; its errors

    def ranked(self, observation, *, state=None) -> list[int] | None:
        """The legal cat platforms, toys or bats best first by the features' expected
        points, where the aimer takes the best of them (None elsewhere: the builds, and a
        cat or toy whose best expects nothing, are the heuristic's)."""
        obs = observation["observation"]
        size = self.layout.obs_size
        if obs.shape[0] not in (size, size + OPTION_FEATURES):
            return None
        phase = int(np.argmax(self.layout.decode(obs[:size])["phase"]))
        if phase not in AIMED:
            return None
        (first, end), (start, stop, per_option), needs_points = AIMED[phase]
        value = self._features(obs, state)[start:stop].reshape(-1, per_option)[:, 0]
        legal = np.flatnonzero(observation["action_mask"][first:end])
        best = value[legal].max() if legal.size else -1.0
        if not (best > 0.0 or (best == 0.0 and not needs_points)):
            return None
        order = legal[np.argsort(-value[legal], kind="stable")]  # the first of equals first
        return [first + int(i) for i in order]

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


# --- the aimer's move as input features (catzoo.policies.features, "ledges_aimer") ----------
# One-hot blocks: a build's anchor and variant (the policy's logit of anchor * 18 + variant
# can add the two), the cat's card, the toy and side, the bat (or stop).
CHOICE_BLOCKS = (("anchor", G.NUM_ANCHORS), ("variant", G.NUM_VARIANTS),
                 ("cat", G.NUM_PLATFORMS), ("toy", S.BAT_BASE - S.TOY_BASE),
                 ("bat", S.NUM_ACTIONS - S.BAT_BASE))
CHOICE_WIDTH = sum(size for _, size in CHOICE_BLOCKS)


@cache
def _steady_aimer(num_players: int) -> LedgesAimer:
    """The aimer taking the first of equally scored builds: a function of its input."""
    bot = LedgesAimer(num_players, seed=0)
    bot.random_ties = False
    return bot


def choice_features(obs: np.ndarray, masks: np.ndarray, num_players: int,
                    options: dict) -> np.ndarray:
    """(B, ``CHOICE_WIDTH``): the aimer's move at each row of observations (with the aiming
    features, env option ``aim_features``) and action masks, as one-hots (all zeros where
    the mask allows nothing: the viewer is not to act)."""
    if not options.get("aim_features"):
        raise ValueError("ledges_aimer input features: the aimer reads the aiming features "
                         "(env option aim_features=True)")
    bot = _steady_aimer(num_players)
    out = np.zeros((obs.shape[0], CHOICE_WIDTH), dtype=np.float32)
    starts = np.cumsum([0] + [size for _, size in CHOICE_BLOCKS])
    for row in np.flatnonzero(np.asarray(masks).any(axis=1)):
        action = bot.act({"observation": obs[row], "action_mask": masks[row]})
        if action < S.NUM_BUILD:
            anchor, variant = divmod(action, G.NUM_VARIANTS)
            out[row, starts[0] + anchor] = out[row, starts[1] + variant] = 1.0
        elif action < S.TOY_BASE:
            out[row, starts[2] + action - S.CAT_BASE] = 1.0
        elif action < S.BAT_BASE:
            out[row, starts[3] + action - S.TOY_BASE] = 1.0
        else:
            out[row, starts[4] + action - S.BAT_BASE] = 1.0
    return out
