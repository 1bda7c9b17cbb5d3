"""Defaults for a game without its own view module, and pieces the others share.

A game CatZoo does not know how to show safely gets no board at all and sees other
players' moves only as "moves": better too little than a hidden card leaked.
"""

from __future__ import annotations

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

PLAYER_STYLES = ("bold red", "bold blue", "bold green", "bold magenta", "bold cyan")


def board(state, seat: int) -> dict:
    return {}


def describe(state, actor: int, action: int, viewer: int) -> str:
    return state.action_to_string(action) if viewer == actor else "moves"


def move(state, action: int) -> dict:
    return {}


def rich(view: dict):
    return Group(scores_table(view))


# --- shared by the game modules ----------------------------------------------------------
def who(view: dict, p: int | None) -> Text:
    if p is None:
        return Text("-")
    name = "you" if p == view["seat"] else view["seats"][p]["name"]
    return Text(f"P{p} {name}", style=PLAYER_STYLES[p % len(PLAYER_STYLES)])


def scores_table(view: dict, extra: dict[str, list] | None = None) -> RichTable:
    """One row per seat: name, score and any per-seat columns in ``extra``."""
    t = RichTable(title="players", title_justify="left", show_edge=False, pad_edge=False)
    t.add_column("seat")
    t.add_column("score", justify="right")
    extra = extra or {}
    for name in extra:
        t.add_column(name)
    for p, score in enumerate(view["scores"]):
        mark = " <" if view["to_act"] == p else ""
        t.add_row(who(view, p) + Text(mark), str(score),
                  *[str(column[p]) for column in extra.values()])
    return t


def trick_line(view: dict, cards: list[dict], card_text) -> Text:
    """The cards of a trick in play order, each as its player and ``card_text(card)``."""
    out = Text()
    for i, c in enumerate(cards):
        if i:
            out += Text(", ")
        out += who(view, c["player"]) + Text(" ") + card_text(c)
    return out if cards else Text("-")


def cards_line(title: str, cards: list[str]) -> Text:
    return Text(f"{title}: ", style="bold") + Text("  ".join(cards) if cards else "-")
