"""The policies shipped with CatZoo, one checkpoint directory per game (``GAME/``:
``policy.safetensors`` and ``policy.json``), installed as package data.

Load one by name from any working directory: ``load_policy("shipped:lunar")``, or the
spec ``shipped:lunar`` in any command; see README.md here for how each was trained.
"""
