"""Hand-written bots, one module per game, each documented in its docstring."""
