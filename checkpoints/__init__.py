"""The policies shipped with CatZoo, one checkpoint directory per game and player count
(``GAME/<N>p/``: ``policy.safetensors`` and ``policy.json``, which records that count),
installed as package data.

Load one by name from any working directory: ``load_policy("shipped:lunar",
num_players=4)``, or the spec ``shipped:lunar`` in any command, which loads the policy of
the table's player count (``shipped:lunar:4p`` names the count); see README.md here for
how each was trained.
"""
