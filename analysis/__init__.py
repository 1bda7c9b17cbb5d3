"""Research tools apart from the rules: solvers, bounds and reference results for the games.

Nothing in the engines (``catzoo.games``), the envs or the bots needs this package: it
reads the engines, never the other way round (as OpenSpiel keeps its solvers in
``algorithms/``, not in ``games/``).
"""
