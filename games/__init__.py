"""CatZoo rules engines: pure game logic, no gymnasium, pettingzoo or torch."""

from catzoo.games.base import GameState, IllegalActionError, OptionsError
from catzoo.games.registry import GAMES, get_game

__all__ = ["GAMES", "GameState", "IllegalActionError", "OptionsError", "get_game"]
