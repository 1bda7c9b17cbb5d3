"""CatZoo inside other RL libraries: ``catzoo.integrations.rllib`` (Ray RLlib)."""
