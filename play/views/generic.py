"""Defaults for a game without its own view module, and pieces the others share.

A game CatZoo does not know how to show safely gets no board at all and sees other
players' moves only as "moves": better too little than a hidden card leaked.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

# Players' colours, none of them a suit's (Cat in the Box's rows are blue, yellow, green
# and red; the browser's palette in web/static/draw.js follows the same rule).
PLAYER_STYLES = ("bold magenta", "bold cyan", "bold dark_orange", "bold purple",
                 "bold grey50")


def board(state, seat: int) -> dict:
    return {}


def describe(state, actor: int, action: int, viewer: int) -> str:
    return state.action_to_string(action) if viewer == actor else "moves"


def move(state, action: int) -> dict:
    return {}


def rich(view: dict):
    return Group(scores_table(view))


# --- shared by the game modules ----------------------------------------------------------
def hidden_from_others(below: int, seen_as: str):
    """A ``describe`` for a game whose actions under ``below`` the other seats see only as
    ``seen_as`` (a card set aside face down); every other action is seen by all."""
    def describe(state, actor: int, action: int, viewer: int) -> str:
        if action < below and viewer != actor:
            return seen_as
        return state.action_to_string(action)
    return describe


def keys_by_range(*ranges):
    """A ``move`` from the ranges of a game's action space: ``(start, key)`` pairs by
    increasing start, the first at 0. An action of the range from ``start`` to the next
    range's belongs to the drawn element ``key(state, action - start)`` names; a ``key``
    of None (or returning None) ties it to none."""
    starts = [start for start, _ in ranges]
    if not starts or starts[0] != 0 or starts != sorted(starts):
        raise ValueError(f"ranges must start at 0 and increase, got starts {starts}")

    def move(state, action: int) -> dict:
        start, key = ranges[bisect_right(starts, action) - 1]
        name = key(state, action - start) if key is not None else None
        return {} if name is None else {"key": name}
    return move


def trick_round(state, phases, suits) -> dict:
    """What a trick-taking game's board shows of the round in play: its number of
    ``options.num_rounds``, the phase (named by ``phases``; "over" at the end), who began
    the round, who leads the trick and the suit led (named by ``suits``)."""
    o, over = state.options, state.is_terminal()
    return {"round": min(state.round_index + 1, o.num_rounds), "rounds": o.num_rounds,
            "phase": "over" if over else phases[state.phase], "round_start": state.round_start,
            "leader": None if over else state.leader,
            "led": suits[state.led] if state.led >= 0 else None}


def players_sheet(state, notes: dict) -> dict:
    """The score sheet of a game of single players (no teams) that keeps each round's
    scores (``round_scores``) and the totals (``total_scores``)."""
    sides = [[p] for p in range(state.num_players)]
    return round_sheet(state.round_scores, sides, state.total_scores)


def rounds_played(state, meaning: str) -> dict:
    """The ending of a game of single players over ``options.num_rounds`` rounds;
    ``meaning`` says what its tie-break compares (``tie_break``)."""
    count = state.options.num_rounds
    reason = "the one round was played" if count == 1 else f"all {count} rounds were played"
    return {"reason": reason,
            "tie_break": tie_break(state, [[p] for p in range(state.num_players)], meaning)}


def who(view: dict, p: int | None) -> Text:
    if p is None:
        return Text("-")
    name = "you" if p == view["seat"] else view["seats"][p]["name"]
    return Text(f"P{p} {name}", style=PLAYER_STYLES[p % len(PLAYER_STYLES)])


def team_label(members) -> str:
    """A team as every table names it: "team P0+P2"."""
    return "team " + "+".join(f"P{p}" for p in members)


def players_text(view: dict, players) -> Text:
    """A row's players: one seat (in its colour), or a team."""
    players = list(players)
    if len(players) == 1:
        return who(view, players[0])
    out = Text("team ")
    for i, p in enumerate(players):
        if i:
            out += Text("+")
        out += Text(f"P{p}", style=PLAYER_STYLES[p % len(PLAYER_STYLES)])
    return out


def summary_table(view: dict, summary: dict) -> Group:
    """A round summary (``views.summary``) as a table and its notes."""
    t = RichTable(title=summary["title"], title_justify="left", show_edge=False,
                  title_style="bold")
    for i, name in enumerate(summary["head"]):
        cells = [row["cells"][i - 1] for row in summary["rows"]] if i else []
        numeric = i and all(_is_number(c) for c in cells)
        t.add_column(name, justify="right" if numeric else "left")
    for row in summary["rows"]:
        t.add_row(players_text(view, row["who"]), *row["cells"])
    return Group(t, *[Text("  " + note) for note in summary["notes"]])


def sheet_table(view: dict, sheet: dict) -> RichTable:
    """The score sheet: a row per seat or team, a column per round, the total last."""
    t = RichTable(title=sheet.get("title", "score sheet"), title_justify="left",
                  show_edge=False)
    t.add_column("")
    for name in sheet["head"]:
        t.add_column(name, justify="right")
    for row in sheet["rows"]:
        t.add_row(players_text(view, row["who"]), *row["cells"])
    return t


def legend(view: dict) -> Text:
    """The seats with the full spec behind each short name."""
    out = Text("seats: ")
    for i, s in enumerate(view["seats"]):
        if i:
            out += Text(", ")
        out += who(view, s["seat"])
        if s.get("spec") and s["spec"] not in (s["name"], "human"):
            out += Text(f" ({s['spec']})", style="dim")
    return out


def round_sheet(rounds: list, sides: list[list[int]], totals: list, title: str = "score sheet"):
    """A score sheet from each round's points per side (``rounds[r][k]``: side k)."""
    head = [f"R{r + 1}" for r in range(len(rounds))] + ["total"]
    rows = [{"who": list(side), "cells": [_num(points[k]) for points in rounds] + [_num(totals[k])]}
            for k, side in enumerate(sides)]
    return {"title": title, "head": head, "rows": rows}


def _is_number(text: str) -> bool:
    try:
        float(str(text).replace("+", "", 1))
    except ValueError:
        return text in ("-", "?")
    return True


def _num(v) -> str:
    v = float(v)
    return str(int(v)) if v.is_integer() else f"{v:g}"


def tie_break(state, sides: list[list[int]], meaning: str) -> str | None:
    """The tie-break's story at the end, from ``standing_keys()`` (score first, then the
    tie-breaks): None when the top score is not shared; ``meaning`` says what the second
    key is ("the higher score in the final round")."""
    keys = state.standing_keys()
    scores = state.scores()
    best = max(scores)
    top = [side for side in sides if scores[side[0]] == best]
    if len(top) < 2:
        return None
    names = " and ".join(_side_name(side) for side in top)
    if len(keys[0]) < 2:
        return f"{names} are tied on {_num(best)} points: a shared win."
    winners = set(state.winners())
    won = [side for side in top if side[0] in winners]
    values = ", ".join(f"{_side_name(side)} {_num(keys[side[0]][1])}" for side in top)
    if len(won) == len(top):
        return (f"{names} are tied on {_num(best)} points and on the tie-break ({meaning}: "
                f"{values}): a shared win.")
    return (f"{names} are tied on {_num(best)} points; the tie-break, {meaning}, goes to "
            f"{' and '.join(_side_name(side) for side in won)} ({values}).")


def _side_name(side) -> str:
    return f"P{side[0]}" if len(side) == 1 else team_label(side)


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
