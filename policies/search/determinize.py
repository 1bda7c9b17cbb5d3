"""Determinizations for the card-game searches (ISMCTS, PIMC): the hidden cards re-dealt from
one player's view, with a generator of their own; uniformly among the deals consistent with
the rules, or weighted by how likely the other players' observed moves were under a model of
their play.

**Weighted re-deals** (``Redeal``; Solinas, Rebstock & Buro 2019 for Skat). A uniform re-deal
ignores what the play says: a player who led a low card when holding a high one was
unlikely. Here ``candidates`` times as many re-deals are drawn as asked for, each is weighted
by the likelihood of every move the other players made since the round's deal (the cards
re-dealt are the round's), under ``policy`` (a network: its move probabilities given the mover's
observation in that re-deal), and the re-deals are drawn from the candidates in proportion
to their weights (sampling importance resampling). A move's probability is mixed with the
uniform one over its legal moves (``epsilon``), so a move the model finds impossible lowers a
re-deal's weight without zeroing it, and raised to ``temper`` (1: the model's likelihood;
below 1: flatter). Every candidate is a re-deal ``resample`` made, so every rule holds as in
a uniform one; only the odds change.

A candidate's observations come from replaying its game on the compiled core from the start
(the re-deal rewrites the round's deal and its log so that the log replays exactly), about a
microsecond a move, and the policy weighs every candidate's moves in one forward pass.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from catzoo.policies.search.inner import InnerPolicy
from catzoo.policies.search.options import SearchOptionError


def determinize(state, player: int, rng: random.Random, rewind: bool = False):
    """``state.resample(player, rng)`` given a fresh generator drawn from ``rng``: a clone
    that kept the real game's generator would deal the next round exactly as the real game
    will, which the searching player cannot know. ``rewind``: stopped before the partner's
    pick ``player`` has not seen (Cat Tree's ``resample(rewind=True)``)."""
    det = state.resample(player, rng, rewind=True) if rewind else state.resample(player, rng)
    det.reseed(rng.getrandbits(64))
    return det


@dataclass
class Redeal:
    """How re-deals are weighted (see the module's docstring). ``policy`` has
    ``action_probabilities(observations, masks)`` (a network, ``MLPPolicy``)."""

    policy: object
    candidates: int = 4
    temper: float = 1.0
    epsilon: float = 0.05


# The options every search bot takes for its re-deals (pimc, ismcts), checked by
# ``check_options``: ``redeal=weighted`` weighs them by ``redeal_policy`` (a network's name or
# checkpoint path; default the shipped network for the table), ``candidates`` per re-deal kept.
REDEAL_OPTIONS = {
    "redeal": (str, "uniform", lambda v: v in ("uniform", "weighted"), "uniform or weighted"),
    "candidates": (int, 4, lambda v: v >= 2, "at least 2"),
    "redeal_policy": (str, "shipped", lambda v: bool(v) and v.partition(":")[0] not in
                      ("ismcts", "pimc", "best", "sparta"), "a network (not a search bot)"),
}


class Redealer:
    """A bot's re-deal options (``REDEAL_OPTIONS``, checked) turned into the ``Redeal`` for
    each state it searches: None for uniform re-deals, else its network loaded for the
    state's table (``InnerPolicy``)."""

    def __init__(self, bot: str, opts: dict, seed: int | None):
        self.bot, self.candidates = bot, opts["candidates"]
        self.policy = (InnerPolicy(f"{bot}: its redeal_policy", opts["redeal_policy"], seed)
                       if opts["redeal"] == "weighted" else None)

    def for_state(self, state) -> Redeal | None:
        if self.policy is None:
            return None
        net = self.policy.for_state(state)
        if not hasattr(net, "action_probabilities"):
            raise SearchOptionError(f"{self.bot}: redeal_policy={self.policy.spec!r} is not a "
                                    "network (it has no action probabilities)")
        if not hasattr(type(state), "core_module"):
            raise SearchOptionError(f"{self.bot}: redeal=weighted replays the play on a "
                                    f"compiled core; {state.game_name} has none")
        return Redeal(net, candidates=self.candidates)


def determinizations(state, player: int, rng: random.Random, count: int,
                     redeal: Redeal | None = None, picks=None) -> list:
    """``count`` determinizations of ``state`` from ``player``'s view: uniform
    (``determinize`` ``count`` times, drawing from ``rng`` as that does), or weighted by
    ``redeal``; with ``picks`` (a policy), the partner's pick of this turn that ``player``
    has not seen is that policy's in each (``partner_picks``; the same re-deals
    otherwise)."""
    rewind = picks is not None and has_unseen_pick(state, player)
    if redeal is None or redeal.candidates <= 1:
        dets = [determinize(state, player, rng, rewind) for _ in range(count)]
        return partner_picks(dets, picks) if rewind else dets
    # weighted: each candidate weighed with its pick as drawn, then the chosen ones rewound
    pool = [determinize(state, player, rng) for _ in range(count * redeal.candidates)]
    weights = redeal_weights(pool, player, redeal)
    cumulative = np.cumsum(weights)
    chosen = [pool[min(len(pool) - 1, int(np.searchsorted(
        cumulative, rng.random() * cumulative[-1], side="right")))] for _ in range(count)]
    if not rewind:
        return [det.clone() for det in chosen]
    return partner_picks([det.before_unseen_pick(player) for det in chosen], picks)


def has_unseen_pick(state, player: int) -> bool:
    """Whether ``state`` holds a pick of this turn ``player`` has not seen (Cat Tree's
    ``unseen_pick``; no other game has one)."""
    return getattr(state, "unseen_pick", lambda p: None)(player) is not None


def partner_picks(rewound: list, policy) -> list:
    """Re-deals ``rewound`` to the partner's pick the searching player has not seen (Cat
    Tree's simultaneous keep: ``resample(rewind=True)``, ``before_unseen_pick``), each with
    that pick made by ``policy`` on its re-dealt hand, one ``act_batch`` for all of them.
    A re-deal draws that pick at even odds, since the real one is hidden; SPARTA assumes
    every other decision is the blueprint's, this one too: a partner keeping the
    blueprint's card from the hand it was re-dealt is what the searching player's belief
    says, and a pick at random is not."""
    if not rewound:
        return rewound
    mover = rewound[0].current_player
    actions = policy.act_batch(np.stack([r.observation(mover) for r in rewound]),
                               np.stack([r.legal_mask() for r in rewound]))
    for r, action in zip(rewound, actions.tolist()):
        r.apply(int(action))
    return rewound


def _replay(det):
    """A compiled core dealt as ``det``'s game was (its chance record), at its start."""
    from catzoo.games.compiled import core_config

    module = type(det).core_module
    return module.Core.new(core_config(module, det.options), 0, det.chance), int(
        module.CoreEvent.DEALT)


def round_start(det) -> int:
    """How many of ``det``'s actions came before its round's deal: the moves after it are
    the ones a re-deal of that round can make more or less likely. (The same for every
    re-deal of one position: the deals' times are public.)"""
    core, dealt = _replay(det)
    start = 0
    for i, action in enumerate(det.history):
        if core.apply(action) & dealt:
            start = i + 1
    return start


def observed_moves(det, player: int, start: int | None = None
                   ) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """The moves the players other than ``player`` made since the round's deal (the
    actions from ``start`` on, ``round_start`` when not given), each as (the mover's
    observation, its legal mask, the move) in ``det``'s re-deal: its game replayed on the
    compiled core from its chance record and action log."""
    from catzoo.games.base import bits_to_mask

    if start is None:
        start = round_start(det)
    core, _ = _replay(det)
    moves: list[tuple[np.ndarray, np.ndarray, int]] = []
    for i, action in enumerate(det.history):
        mover = core.current_player
        if i >= start and mover != player:
            moves.append((core.observe(mover), bits_to_mask(core.legal, det.num_actions), action))
        core.apply(action)
    return moves


def redeal_weights(dets: list, player: int, redeal: Redeal) -> np.ndarray:
    """Each re-deal's likelihood of the others' moves since the deal (``Redeal``), scaled so
    that the largest is 1."""
    start = round_start(dets[0]) if dets else 0
    per_det = [observed_moves(det, player, start) for det in dets]
    rows = [m for moves in per_det for m in moves]
    if not rows:
        return np.ones(len(dets))
    probs = redeal.policy.action_probabilities(np.stack([r[0] for r in rows]),
                                               np.stack([r[1] for r in rows]))
    legal = np.stack([r[1] for r in rows]).sum(axis=1)
    chosen = probs[np.arange(len(rows)), [r[2] for r in rows]]
    p = (1 - redeal.epsilon) * chosen + redeal.epsilon / legal
    log_p = redeal.temper * np.log(p)
    out, at = np.zeros(len(dets)), 0
    for k, moves in enumerate(per_det):
        out[k] = log_p[at:at + len(moves)].sum()
        at += len(moves)
    return np.exp(out - out.max())
