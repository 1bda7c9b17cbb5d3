"""Cats Knocking Things Off Ledges: the rules engine on MuJoCo physics (no RL library here)."""

from catzoo.games.ledges.options import LedgesOptions
from catzoo.games.ledges.state import LedgesState

__all__ = ["LedgesOptions", "LedgesState"]
