"""CatZoo in Ray RLlib (new API stack: RLModules, env runners); needs the ``rllib`` extra.

* ``CatZooMultiAgentEnv``: any CatZoo game as a turn-based ``MultiAgentEnv``, observations
  ``{"observations", "action_mask"}`` as RLlib's action-masking module reads them;
* ``MaskedMLPModule`` (the masked actor-critic PPO trains) and ``BotModule`` (CatZoo bots
  as frozen modules);
* ``LeagueMapping`` and ``LeagueCallback``: self-play against league snapshots, as CatZoo's
  own trainer plays it;
* ``ppo_config``/``train``: the whole recipe, run by ``catzoo train --config
  configs/rllib/GAME.yaml``; ``export_policy``: a trained module as a CatZoo checkpoint.

See docs/rllib.md.
"""

from catzoo.integrations.rllib.env import CatZooMultiAgentEnv
from catzoo.integrations.rllib.export import actor_weights, export_policy
from catzoo.integrations.rllib.modules import BotModule, MaskedMLPModule
from catzoo.integrations.rllib.selfplay import LeagueCallback, LeagueMapping
from catzoo.integrations.rllib.trainer import ppo_config, train

__all__ = ["BotModule", "CatZooMultiAgentEnv", "LeagueCallback", "LeagueMapping",
           "MaskedMLPModule", "actor_weights", "export_policy", "ppo_config", "train"]
