"""Cat Tree as one seat sees it: the shared grid and score, its own two cards and pick, and
the partner's kept card only once both picks are revealed."""

from __future__ import annotations

from contextlib import contextmanager

from rich.console import Group
from rich.text import Text

from catzoo.games.cat_tree.options import LETTERS, TYPE_NAMES
from catzoo.games.cat_tree.state import KEEP, ORDER_BASE, PHASES, PLACE_BASE
from catzoo.play.views import generic, summary
from catzoo.play.views.generic import scores_table, who


# --- turns: the shared score after each, noted as the game goes ----------------------------
@contextmanager
def watch(state, action: int, notes: dict):
    turn = state.turn
    yield
    if state.turn != turn or state.is_terminal():
        totals = notes.setdefault("cat_tree_totals", [])
        if len(totals) <= turn:
            totals.append(state.total)


def rounds(state, notes: dict) -> list[dict]:
    """Each finished turn: what each player placed where, and the points it brought."""
    totals = notes.get("cat_tree_totals", [])
    w = state.options.width
    out = []
    for t, total in enumerate(totals):
        gained = total - (totals[t - 1] if t else 0)
        rows = []
        for turn, p, kind, cell in state.placements:
            if turn == t:
                where = "dismissed" if cell < 0 else f"row {cell // w}, column {cell % w}"
                rows.append(([p], [TYPE_NAMES[kind], where]))
        out.append(summary(f"Turn {t + 1} of {state.options.turns}: {gained:+d} points, "
                           f"shared score {total}", ["player", "placed", "where"], rows,
                           round=t + 1))
    return out


def sheet(state, notes: dict) -> dict:
    totals = notes.get("cat_tree_totals", [])
    gains = [total - (totals[t - 1] if t else 0) for t, total in enumerate(totals)]
    return {"title": "score sheet (the score is shared)",
            "head": [f"T{t + 1}" for t in range(len(gains))] + ["total"],
            "rows": [{"who": [0, 1], "cells": [f"{g:+d}" for g in gains] + [str(state.total)]}]}


def ending(state) -> dict:
    return {"reason": f"all {state.options.turns} turns were played (the score is shared: "
                      "both players win together)", "tie_break": None}


def board(state, seat: int) -> dict:
    o = state.options
    over = state.is_terminal()
    partner = 1 - seat
    revealed = over or state.phase != KEEP
    kept = [state.kept[p] if (p == seat or revealed) else -1 for p in range(2)]
    return {
        "turn": min(state.turn + 1, o.turns),
        "turns": o.turns,
        "phase": "over" if over else PHASES[state.phase],
        "leader": state.leader,
        "first": state.first if state.first >= 0 else None,
        "width": o.width,
        "height": o.height,
        "altitude_row": state.rules.altitude_row,
        "types": list(TYPE_NAMES),
        "letters": list(LETTERS),
        "grid": list(state.grid),
        "counted": [bool(state.counted >> i & 1) for i in range(state.num_cells)],
        "total": state.total,
        "hand": list(state.hands[seat]) if not over else [],
        "kept": [None if k < 0 else k for k in kept],
        "has_kept": [state.kept[p] >= 0 for p in range(2)],
        "to_place": [bool(state.to_place[p]) and revealed for p in range(2)],
        "partner": partner,
        "placements": [{"turn": t + 1, "player": p, "type": k, "cell": c}
                       for t, p, k, c in state.placements],
    }


# [S] picks are secret until both are made; "lower/higher" would tell of the other card.
describe = generic.hidden_from_others(ORDER_BASE, "keeps one of their two cards")


def _cell_key(state, cell: int) -> str | None:
    return None if PLACE_BASE + cell == state.dismiss else f"cell:{cell}"


# a card of the hand; no element for the order or for dismissing the card; a cell
move = generic.keys_by_range((0, lambda state, i: f"hand:{i}"), (ORDER_BASE, None),
                             (PLACE_BASE, _cell_key))


def rich(view: dict):
    b = view["board"]
    types, letters = b["types"], b["letters"]
    head = (f"{view['title']}: turn {b['turn']}/{b['turns']}, phase {b['phase']}, "
            f"leader P{b['leader']}, shared score {b['total']}")
    parts = [Text(head, style="bold")]
    w, h = b["width"], b["height"]
    for row in range(h - 1, -1, -1):
        line = Text(f"{row:>2}{'*' if row >= b['altitude_row'] else ' '}| ")
        for col in range(w):
            i = row * w + col
            kind = b["grid"][i]
            if kind < 0:
                line += Text(". ")
            else:
                letter = letters[kind] if b["counted"][i] else letters[kind].lower()
                line += Text(letter + " ", style="bold green" if b["counted"][i] else "dim")
        parts.append(line)
    parts.append(Text("   +" + "=" * (2 * w)))
    parts.append(Text("     " + " ".join(str(c % 10) for c in range(w))))
    parts.append(Text("     " + ", ".join(f"{letter} {name}" for letter, name in zip(letters, types))
                      + "; lower case: detached; *: altitude bonus", style="dim"))
    parts.append(scores_table(view, {
        "kept": ["-" if k is None else types[k] for k in b["kept"]],
        "to place": ["yes" if t else "" for t in b["to_place"]],
    }))
    if b["hand"]:
        parts.append(Text("your cards: ", style="bold") + Text(
            "  ".join(types[k] for k in b["hand"])))
    if b["placements"]:
        last = b["placements"][-1]
        where = "dismissed" if last["cell"] < 0 else f"at row {last['cell'] // w}, column {last['cell'] % w}"
        parts.append(Text("last placed: ") + who(view, last["player"])
                     + Text(f" {types[last['type']]} {where}"))
    return Group(*parts)
