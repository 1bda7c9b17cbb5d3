"""Input features a policy network may take besides its observation (``network.features``).

A network can find it hard to learn arithmetic that a hand-written bot does in a few lines:
the CATsle Builders heuristic weighs, for every card, the chance that each later player
beats it, counted from the unseen cards, which a clone of it does not learn whatever its
size (docs/training.md gives the figures). A feature set hands the network such
estimates, computed from the observation alone (so any table can feed it), by the bot's
own code (one source).

A network with features reads ``[observation, features(observation, mask)]`` (the mask
of the viewer's legal actions: all zeros when it is not to act); its checkpoint
records the set's name (``policy.json`` ``"features"``), and ``load_policy`` adds them
again at any table. The sets are looked up by name here, never from the checkpoint's
text, so a checkpoint only picks one of this list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np


@dataclass(frozen=True)
class FeatureSet:
    game: str
    doc: str
    size: Callable[[int], int]  # num_players -> width
    # (observations (B, D), action masks (B, A), num_players, env options) -> (B, width)
    compute: Callable[[np.ndarray, np.ndarray, int, dict], np.ndarray]


class FeatureError(ValueError):
    """An unknown feature set, or one for another game."""


# --- CATsle Builders: the heuristic's estimates --------------------------------------------
CATSLE_WIDTH = 3 * 60 + 5 + 1
SCALE = 5.0  # card values run about -8 to +3 a card, so estimates / 5 stay near [-2, 1]


@cache
def _catsle_bot(num_players: int, takes: tuple | None):
    from catzoo.policies.heuristics.catsle_builders import CatsleBuildersHeuristic

    return CatsleBuildersHeuristic(num_players, take_counts=takes)


def _catsle_estimates(obs: np.ndarray, masks: np.ndarray, num_players: int,
                      options: dict) -> np.ndarray:
    from catzoo.policies.heuristics.catsle_builders import NUM_CARDS, TIE, estimates

    takes = options.get("take_counts")
    bot = _catsle_bot(num_players, None if takes is None else tuple(takes))
    view = bot.layout.decode(obs)
    hand = view["hand"] > 0
    playable = masks[:, :NUM_CARDS] > 0  # none when the viewer is not to play
    est = estimates(view, num_players, bot.num_suits, bot.takes, playable.any(axis=1))
    play = np.where(playable, est.play, -np.inf)
    top = play.max(axis=1, keepdims=True)
    best = playable & (play >= top - TIE)
    B = obs.shape[0]
    out = np.empty((B, CATSLE_WIDTH), dtype=np.float32)
    out[:, :NUM_CARDS] = np.where(playable, est.play / SCALE, 0.0)
    out[:, NUM_CARDS:2 * NUM_CARDS] = best
    out[:, 2 * NUM_CARDS:3 * NUM_CARDS] = np.where(hand, est.beat, 0.0)
    out[:, 3 * NUM_CARDS:3 * NUM_CARDS + 5] = est.suit_value / SCALE
    out[:, -1] = est.unknown_value / SCALE
    return out


# --- Cats Knocking Things Off Ledges: the aimer's move -------------------------------------
def _ledges_aimer(obs: np.ndarray, masks: np.ndarray, num_players: int,
                  options: dict) -> np.ndarray:
    from catzoo.policies.heuristics.ledges_aimer import choice_features

    return choice_features(obs, masks, num_players, options)


def _ledges_aimer_width(num_players: int) -> int:
    from catzoo.policies.heuristics.ledges_aimer import CHOICE_WIDTH

    return CHOICE_WIDTH


FEATURES: dict[str, FeatureSet] = {
    "catsle_heuristic": FeatureSet(
        "catsle_builders",
        "the heuristic's estimates: per card the expected value of playing it / 5 (cards "
        "it may play), a flag on the heuristic's choice, the chance a later player beats "
        "it (cards in hand); the value of a card of each suit / 5; the mean value of an "
        "unseen card / 5",
        lambda n: CATSLE_WIDTH, _catsle_estimates),
    "ledges_aimer": FeatureSet(
        "ledges",
        "the aimer bot's move as one-hots: a build's anchor and variant, the cat's card, the "
        "toy and side, the bat or stop (policies/heuristics/ledges_aimer.py; it reads the "
        "aiming features, env option aim_features)",
        _ledges_aimer_width, _ledges_aimer),
}


def configured(config: dict) -> str | None:
    """The set a training config's network reads (``network.features``; "" or absent: none)."""
    return config.get("network", {}).get("features") or None


def get(name: str, game: str | None = None) -> FeatureSet:
    """The feature set ``name`` (for ``game``, when given); ``FeatureError`` otherwise."""
    if not isinstance(name, str) or name not in FEATURES:
        raise FeatureError(f"unknown feature set {name!r}; known: {', '.join(FEATURES)}")
    fs = FEATURES[name]
    if game is not None and game.replace("-", "_") != fs.game:
        raise FeatureError(f"feature set {name!r} is for {fs.game}, not {game}")
    return fs


def augment(name: str | None, obs: np.ndarray, masks: np.ndarray, num_players: int,
            options: dict | None = None) -> np.ndarray:
    """``[obs, features(obs, masks)]`` as float32 for a batch ``(B, D)``; ``obs`` itself
    when ``name`` is None."""
    if name is None:
        return obs
    extra = FEATURES[name].compute(obs, masks, num_players, options or {})
    return np.concatenate([obs, extra], axis=1, dtype=np.float32)


def width(name: str | None, num_players: int) -> int:
    return 0 if name is None else FEATURES[name].size(num_players)
