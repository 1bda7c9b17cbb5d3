"""Lunar: the rules engine (no RL library imported here)."""

from catzoo.games.lunar.options import LunarOptions
from catzoo.games.lunar.rules import trick_winner
from catzoo.games.lunar.state import LunarState

__all__ = ["LunarOptions", "LunarState", "trick_winner"]
