"""What one seat may see of a game, as JSON (the web) and as rich text (the terminal).

Each game has a small module here with:

* ``board(state, seat) -> dict``: the table as ``seat`` sees it (its own hand, the public
  board, counts of the other hands...), JSON-ready, built only from what that seat may know;
* ``describe(state, actor, action, viewer) -> str``: ``action`` (about to be applied by
  ``actor``) as ``viewer`` sees it; hidden actions come out as "sets a card aside";
* ``move(state, action) -> dict``: a legal move of the seat to act, for the UI: its
  ``label``, the ``key`` of the drawn element it belongs to (a card, a cell) and an
  optional ``group`` (a first choice, like the piece to build, before the second);
* ``rich(view) -> renderable``: the terminal drawing of a ``seat_view`` dict.

and, optionally, what a player needs to follow the game as it goes:

* ``rounds(state, notes) -> list``: a summary of each finished round (``summary`` below);
* ``sheet(state, notes) -> dict``: the score sheet, every round so far and the totals;
* ``ending(state) -> dict``: once the game is over, why it ended and the tie-break that
  decided it, if one did;
* ``watch(state, action, notes)``: a context manager around each move the table applies,
  to note what the state alone does not keep (the last round's final trick track in
  Lunar, each turn of Ledges, the bat's trajectory); ``notes`` is the table's dict.

The terminal draws from the JSON view too, so the one place that reads the engine's hidden
state for a seat is ``board``; the tests check it against the engine's re-dealing of the
hidden cards (``GameState.resample``): what a seat is sent must not change with them.
Each game's record (``GameInfo.view``) names its module; games without one get
``generic``, which shows no board and hides others' moves.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager, nullcontext

from catzoo.games.registry import get_game

EVENTS_SHOWN = 40
GENERIC = "catzoo.play.views.generic"


def for_game(name: str):
    return importlib.import_module(get_game(name).view or GENERIC)


@contextmanager
def watch(module, state, action: int, notes: dict):
    """Around one move: the game module's ``watch`` if it has one."""
    hook = getattr(module, "watch", None)
    with hook(state, action, notes) if hook is not None else nullcontext():
        yield


def summary(title: str, head: list[str], rows: list[tuple], notes: list[str] = (),
            **extra) -> dict:
    """A table of one round's result, as both tables draw it: ``rows`` are
    ``(players, cells)``, the players (a seat, or a team's seats) the row is about and
    its cells under ``head`` (whose first column names them)."""
    return {"title": title, "head": list(head),
            "rows": [{"who": list(who), "cells": [str(c) for c in cells]} for who, cells in rows],
            "notes": list(notes), **extra}


def moves(table, seat: int) -> list[dict]:
    """The legal moves of ``seat`` if it is to act, else none."""
    if table.to_act != seat:
        return []
    module, state = table.view_module, table.state
    out = []
    for action in state.legal_actions():
        entry = {"action": action, "label": state.action_to_string(action), "key": None,
                 "group": None}
        entry.update(module.move(state, action))
        out.append(entry)
    return out


def seat_view(table, seat: int, events: int | None = EVENTS_SHOWN) -> dict:
    state = table.state
    module = table.view_module
    shown = table.events if events is None else table.events[-events:] if events else []
    notes = table.notes
    animation = notes.get("animation")
    if animation is not None and animation.get("event") != len(table.events) - 1:
        animation = None  # only the last move's
    return {
        "game": table.game,
        "title": table.info.title,
        "rules": f"/rules/{table.game}",
        "seat": seat,
        "num_players": table.num_players,
        "seats": [{"seat": s.index, "name": s.name, "human": s.human, "spec": s.legend}
                  for s in table.seats],
        "scores": [_number(v) for v in state.scores()],
        "to_act": table.to_act,
        "turn": len(table.events),
        "over": table.over,
        "board": table.view_module.board(state, seat),
        "moves": moves(table, seat),
        "events": [{"number": e.number, "player": e.player, "text": e.texts[seat]}
                   for e in shown],
        "rounds": module.rounds(state, notes) if hasattr(module, "rounds") else [],
        "sheet": module.sheet(state, notes) if hasattr(module, "sheet") else None,
        "animation": animation,
        "result": result(table),
    }


def result(table) -> dict | None:
    """The final scores and winners, and (from the game's module) why the game ended and
    which tie-break decided it."""
    out = table.result()
    if out is not None:
        ending = getattr(table.view_module, "ending", None)
        out.update({"reason": None, "tie_break": None, **(ending(table.state) if ending else {})})
    return out


def _number(value):
    value = float(value)
    return int(value) if value.is_integer() else value
