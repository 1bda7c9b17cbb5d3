"""SPARTA (Lerer, Hu, Foerster and Brown 2020, "Improving Policies via Search in
Cooperative Partially Observable Games"): single-agent search on top of a blueprint policy,
for cooperative games (Cat Tree).

At each of its decisions a player searches its own move assuming every other decision,
its partner's and its own later ones, is the blueprint's (by default the shipped policy
for the table): for each legal move and each of many re-deals of the cards hidden from it
(``state.resample``), the move and then the blueprint at both seats are played to the
game's end, valued by the shared score (``returns()``). The partner's play is then what
the blueprint would do, which is what it does when the partner plays the blueprint or
searches the same way (the search deviates rarely, so each player's assumption stays
nearly true). As in the paper, the player keeps the blueprint's move unless the best
move's mean is more than ``threshold`` above it: a deviation chosen on noise costs what
a real one gains, and the threshold keeps the blueprint where the samples cannot tell.

The search is PIMC's (``catzoo.policies.search.pimc``; every rollout of a move stepped
together in C, the blueprint deciding for all of them in one batched call), played to the
end; the paper's exact belief over the partner's hand is replaced by the uniform re-deal
consistent with what the player saw. Options as pimc's, with ``horizon=end`` and
``threshold`` (in ``returns()`` units: Cat Tree's is the score / 100) defaulting to
``THRESHOLD``; ``seconds=S`` for a time budget.

``reply=K`` searches one decision deeper where the next decision is made in the open
(``state.open_decision()``: in Cat Tree the placing order and the placements, made after
the reveal): a move is valued with the decision after it taken as that decision's own
search would take it (by the player or the partner, who see the same position), not as
the blueprint would: each of its ``K`` likeliest moves under the blueprint (and the
blueprint's own) is rolled out on every re-deal, and the move's value is that of the reply
of the best mean, kept only if it beats the blueprint's reply by ``threshold``, as the
replying search keeps it. So the order is chosen for the placements it allows, and the
first placement for the second's best answer to it. The replies' means are over the
re-deals, never a best reply per re-deal (which would read the re-dealt future). A keep is
valued one ply deep as before: the partner's keep is hidden from the player and made from
a hand the player does not know.
"""

from __future__ import annotations

import random

import numpy as np

from catzoo.policies.search import pimc
from catzoo.policies.search.budget import Budget
from catzoo.policies.search.determinize import determinize
from catzoo.policies.search.options import check_options
from catzoo.policies.search.rollouts import Search, move_values

THRESHOLD = 0.02  # two points of Cat Tree's shared score

OPTIONS = {
    **pimc.OPTIONS,
    "policy": (str, "shipped",
               lambda v: bool(v) and v.partition(":")[0] not in ("pimc", "sparta", "ismcts", "best"),
               "a policy name or checkpoint path (not a search bot)"),
    "horizon": (str, "end", lambda v: v in ("deal", "end"), "deal or end"),
    "threshold": (float, THRESHOLD, lambda v: v >= 0, "at least 0"),
    "reply": (int, 0, lambda v: v >= 0, "at least 0"),
    "reply_moves": (int, 0, lambda v: v >= 0, "at least 0"),
}


class SPARTAPolicy(pimc.PIMCPolicy):
    name = "sparta"
    options = OPTIONS

    def __init__(self, num_players: int | None = None, seed: int | None = None, **options):
        super().__init__(num_players, seed, **options)
        opts = check_options(type(self).name, options, type(self).options)
        self.reply, self.reply_moves = opts["reply"], opts["reply_moves"]

    def values(self, state, player: int, legal: list[int], rollout, budget=None) -> dict[int, float]:
        replies = self._replies(state, player, legal, rollout) if self.reply else {}
        if not any(replies.values()):
            return super().values(state, player, legal, rollout, budget)
        redeal = self.redealer.for_state(state)
        out = dict.fromkeys(legal, -float("inf"))  # a move the first ply set aside
        if self.reply_moves and len(legal) > self.reply_moves + 1:
            # first one ply over every move for half the budget, then the replies of the
            # likeliest moves by it (and the blueprint's) for the rest
            half = None
            if budget is not None and budget.deadline is not None:
                half = Budget(None, budget.clock)
                half.deadline = budget.start + (budget.deadline - budget.start) / 2
            first = super().values(state, player, legal, rollout, half)
            own = int(rollout.act_batch(state.observation(player)[None], state.legal_mask()[None])[0])
            keep = sorted(legal, key=lambda a: -first[a])[: self.reply_moves]
            legal = [a for a in legal if a in keep or a == own]

        def chunk(size: int) -> dict:
            # one generator state for every move's search: the same re-deals for all of them
            seed = self.rng.getrandbits(64)
            searches = []
            for a in legal:
                child, candidates, _ = replies[a] or (state, [a], None)
                searches.append(Search(child, player, candidates, random.Random(seed), redeal))
            found = move_values(searches, rollout, determinizations=size, horizon=self.horizon,
                                playouts=self.playouts, mix=self.mix)
            return {(a, None if replies[a] is None else b): v
                    for a, values in zip(legal, found) for b, v in values.items()}

        means = self.budgeted(chunk, budget)
        for a in legal:
            if replies[a] is None:
                out[a] = means[(a, None)]
                continue
            _, candidates, blueprint = replies[a]
            best = max(candidates, key=lambda b: means[(a, b)])
            kept = best if means[(a, best)] > means[(a, blueprint)] + self.threshold else blueprint
            out[a] = means[(a, kept)]
        return out

    def _replies(self, state, player: int, legal: list[int], rollout) -> dict:
        """For each move after which the next decision is made in the open and has a choice:
        the position after it, the replies searched (the blueprint's ``reply`` likeliest and
        its own) and the blueprint's own; None for the others. The position after a move
        made in the open hides nothing the player does not already know; the replies are
        ranked on a re-deal of it, not on the real game's hidden cards."""
        out = dict.fromkeys(legal)
        opened = getattr(state, "open_decision", None)
        if opened is None or not opened() or not hasattr(rollout, "action_probabilities"):
            return out
        rng = random.Random(self.rng.getrandbits(64))
        for a in legal:
            child = state.clone()
            child.apply(a)
            if not child.open_decision():
                continue
            det = determinize(child, player, rng)
            mover = det.current_player
            mask = det.legal_mask()
            moves = np.flatnonzero(mask)
            if moves.size < 2:
                continue
            odds = rollout.action_probabilities(det.observation(mover)[None], mask[None])[0]
            ranked = moves[np.argsort(-odds[moves], kind="stable")]
            blueprint = int(ranked[0])
            out[a] = (child, sorted({*ranked[: self.reply].tolist(), blueprint}), blueprint)
        return out
