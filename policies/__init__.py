"""Policies: one interface (observation dict in, action out) for every bot and checkpoint."""

from catzoo.policies.base import NoLegalActionError, Policy, legal_actions
from catzoo.policies.random_policy import RandomPolicy
from catzoo.policies.registry import available_policies, make_policy

__all__ = [
    "NoLegalActionError",
    "Policy",
    "RandomPolicy",
    "available_policies",
    "legal_actions",
    "make_policy",
]
