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
consistent with what the player saw, except for one decision the searching player knows
was made but not how: the partner's pick of this turn, kept before the reveal (Cat Tree's
player 1 keeps after player 0 without seeing its pick). A re-deal draws it at even odds;
SPARTA's assumption says it is the blueprint's, so with ``unseen_pick=policy`` (the
default; ``even`` keeps the re-deal's) each re-deal's partner keeps what the blueprint
keeps from the hand it was re-dealt (``determinize.partner_picks``). Options as pimc's,
with ``horizon=end`` and ``threshold`` (in ``returns()`` units: Cat Tree's is the score /
100) defaulting to ``THRESHOLD``; ``seconds=S`` for a time budget.
"""

from __future__ import annotations

from catzoo.policies.search import pimc

THRESHOLD = 0.02  # two points of Cat Tree's shared score

OPTIONS = {
    **pimc.OPTIONS,
    "policy": (str, "shipped",
               lambda v: bool(v) and v.partition(":")[0] not in ("pimc", "sparta", "ismcts", "best"),
               "a policy name or checkpoint path (not a search bot)"),
    "horizon": (str, "end", lambda v: v in ("deal", "end"), "deal or end"),
    "threshold": (float, THRESHOLD, lambda v: v >= 0, "at least 0"),
    "unseen_pick": (str, "policy", lambda v: v in ("policy", "even"), "policy or even"),
}


class SPARTAPolicy(pimc.PIMCPolicy):
    name = "sparta"
    options = OPTIONS

    def __init__(self, num_players: int | None = None, seed: int | None = None, **options):
        super().__init__(num_players, seed, **options)  # checks ``options`` on this table
        self.policy_picks = self.checked_options["unseen_pick"] == "policy"
