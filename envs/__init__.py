"""CatZoo PettingZoo environments.

    from catzoo.envs import cat_in_the_box_v0
    env = cat_in_the_box_v0.env(num_players=4, render_mode="ansi")

Importing this package also registers every env with ``pettingzoo.make``. Env modules
(``cat_in_the_box_v0``, ``lunar_v0``, ...) are imported on first use.
"""

from catzoo.envs.adapter import CatZooAECEnv, GameOverError
from catzoo.envs.registration import env_id, register_all

register_all()

__all__ = ["CatZooAECEnv", "GameOverError", "env_id"]
