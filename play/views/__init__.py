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

The terminal draws from the JSON view too, so the one place that reads the engine's hidden
state for a seat is ``board``; the tests check it against the engine's re-dealing of the
hidden cards (``GameState.resample``): what a seat is sent must not change with them.
Each game's record (``GameInfo.view``) names its module; games without one get
``generic``, which shows no board and hides others' moves.
"""

from __future__ import annotations

import importlib

from catzoo.games.registry import get_game

EVENTS_SHOWN = 40
GENERIC = "catzoo.play.views.generic"


def for_game(name: str):
    return importlib.import_module(get_game(name).view or GENERIC)


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
    shown = table.events if events is None else table.events[-events:] if events else []
    return {
        "game": table.game,
        "title": table.info.title,
        "seat": seat,
        "num_players": table.num_players,
        "seats": [{"seat": s.index, "name": s.name, "human": s.human} for s in table.seats],
        "scores": [_number(v) for v in state.scores()],
        "to_act": table.to_act,
        "turn": len(table.events),
        "over": table.over,
        "board": table.view_module.board(state, seat),
        "moves": moves(table, seat),
        "events": [{"number": e.number, "player": e.player, "text": e.texts[seat]}
                   for e in shown],
        "result": table.result(),
    }


def _number(value):
    value = float(value)
    return int(value) if value.is_integer() else value
