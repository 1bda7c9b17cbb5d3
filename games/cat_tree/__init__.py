"""Cat Tree? We can handle this!: the rules engine (no RL library imported here)."""

from catzoo.games.cat_tree.options import CatTreeOptions
from catzoo.games.cat_tree.state import CatTreeState

__all__ = ["CatTreeOptions", "CatTreeState"]
