"""Cat in the Box: the rules engine (no RL library imported here)."""

from catzoo.games.cat_in_the_box.options import CatInTheBoxOptions
from catzoo.games.cat_in_the_box.state import CatInTheBoxState, play_action, trick_winner

__all__ = ["CatInTheBoxOptions", "CatInTheBoxState", "play_action", "trick_winner"]
