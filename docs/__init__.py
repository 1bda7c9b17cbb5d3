"""CatZoo's documentation; the rules pages (``rules/GAME.md``) are installed as package
data, so the terminal and browser tables can show a game's rules from any directory
(``catzoo.play.rules``)."""
