"""Search bots: information-set MCTS for the card games, a sampling planner for physics.

Both implement ``catzoo.policies.base.Policy`` and look at the engine state they are given
only through ``state.resample(player, rng)``, so they can sit at any seat anywhere.
"""

from catzoo.policies.search.ismcts import ISMCTSPolicy
from catzoo.policies.search.options import SearchOptionError
from catzoo.policies.search.planner import PlannerPolicy

__all__ = ["ISMCTSPolicy", "PlannerPolicy", "SearchOptionError"]
