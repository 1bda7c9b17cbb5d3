"""Search bots: information-set MCTS and determinized rollouts of a policy (PIMC) for the
card games, a sampling planner for physics.

All implement ``catzoo.policies.base.Policy`` and look at the engine state they are given
only through ``state.resample(player, rng)``, so they can sit at any seat anywhere.
"""

from catzoo.policies.search.ismcts import ISMCTSPolicy
from catzoo.policies.search.options import SearchOptionError
from catzoo.policies.search.pimc import PIMCPolicy
from catzoo.policies.search.planner import PlannerPolicy

__all__ = ["ISMCTSPolicy", "PIMCPolicy", "PlannerPolicy", "SearchOptionError"]
