"""The rules pages (docs/rules/GAME.md, installed as package data ``catzoo.docs``) that
the terminal table prints on ``rules`` and the browser table links to."""

from __future__ import annotations

from importlib import resources

from catzoo.games.registry import get_game


class NoRulesError(LookupError):
    pass


def rules_page(game: str) -> str:
    """The Markdown text of ``game``'s rules page."""
    name = get_game(game).name
    try:
        page = resources.files("catzoo.docs") / "rules" / f"{name}.md"
        return page.read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError, NotADirectoryError):
        raise NoRulesError(f"the rules page of {name} (docs/rules/{name}.md) is not "
                           "installed") from None


def rules_location(game: str) -> str:
    """Where the page is, to tell a player: the installed file's path."""
    name = get_game(game).name
    try:
        return str(resources.files("catzoo.docs") / "rules" / f"{name}.md")
    except ModuleNotFoundError:
        return f"docs/rules/{name}.md"
