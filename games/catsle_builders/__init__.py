"""CATsle Builders: the rules engine (no RL library imported here)."""

from catzoo.games.catsle_builders.options import CatsleBuildersOptions
from catzoo.games.catsle_builders.scoring import board_score, rating
from catzoo.games.catsle_builders.state import CatsleBuildersState, card_name

__all__ = ["CatsleBuildersOptions", "CatsleBuildersState", "board_score", "card_name", "rating"]
