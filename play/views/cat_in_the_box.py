"""Cat in the Box as one seat sees it: its hand and set-aside card, the research board,
predictions, markers, the trick; the others' hands only as counts, their set-aside cards
only as "set aside"."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from catzoo.games.base import TERMINAL
from catzoo.games.cat_in_the_box.options import COLOURS, TWO_PLAYER_BONUS_MAX_TRICKS
from catzoo.games.cat_in_the_box.scoring import largest_group
from catzoo.games.cat_in_the_box.state import ASIDE_BASE, NUMBERS, PHASES, PLAY_BASE, PREDICT_BASE
from catzoo.play.views import generic, summary
from catzoo.play.views.generic import PLAYER_STYLES, cards_line, scores_table, trick_line

TIE_BREAK = "the higher score in the final round"  # [R] see CatInTheBoxState.standing_keys

COLOUR_STYLES = {"blue": "blue", "yellow": "yellow", "green": "green", "red": "red"}


def board(state, seat: int) -> dict:
    o, n = state.options, state.num_players
    width = o.max_number
    owner = state.owner
    hand = [k + 1 for k in range(NUMBERS) for _ in range(state.counts[seat][k])]
    last = None
    if state.last_trick is not None:
        cards, winner = state.last_trick
        last = {"cards": [_card(p, c, k) for p, c, k in cards], "winner": winner}
    return {
        **generic.trick_round(state, PHASES, COLOURS),
        "red_broken": bool(state.red_broken),
        "numbers": width,
        "rows": [{"colour": name,
                  "cells": [int(v) for v in owner[COLOURS.index(name), :width]]}
                 for name in o.row_order],
        "trick": [_card(p, c, k) for p, c, k in state.trick],
        "last_trick": last,
        # [R] with 2 players three leftover cards are shown face up.
        "revealed": [k + 1 for k in state.leftover[:3]] if n == 2 else [],
        "hand": hand,
        "aside": state.aside[seat] + 1 if state.aside[seat] >= 0 else None,
        "predictions_allowed": list(o.allowed_predictions),
        "players": [{
            "tricks": state.tricks[p],
            "prediction": state.predictions[p] if state.predictions[p] >= 0 else None,
            "markers": {COLOURS[c]: bool(state.markers[p][c]) for c in range(4)},
            "cards": sum(state.counts[p]),
            "set_aside": state.aside[p] >= 0,
        } for p in range(n)],
        "round_scores": [list(s) for s in state.round_scores],
    }


def _card(p: int, colour: int, k: int) -> dict:
    return {"player": p, "colour": COLOURS[colour], "number": k + 1}


def rounds(state, notes: dict) -> list[dict]:
    """Each finished round: per player the tricks against the prediction, the bonus and
    why (the largest group of its tokens), and who caused a paradox and what it cost."""
    n, order = state.num_players, state.options.row_order
    out = []
    for r, rec in enumerate(state.round_records):
        rows, lines = [], []
        for p in range(n):
            tricks, predicted, points = rec["tricks"][p], rec["predictions"][p], rec["scores"][p]
            group = largest_group(rec["tokens"][p], order)
            if p == rec["paradox_player"]:
                why, bonus = "paradox: minus one per trick, no bonus", "-"
            elif points > tricks:
                bonus = f"+{points - tricks}"
                why = (f"{TWO_PLAYER_BONUS_MAX_TRICKS} tricks or fewer" if n == 2
                       else "prediction met") + f": largest group of {group} tokens"
            else:
                bonus = "0"
                why = (f"more than {TWO_PLAYER_BONUS_MAX_TRICKS} tricks" if n == 2
                       else f"predicted {predicted}, took {tricks}")
            rows.append(([p], [tricks, "-" if predicted < 0 else predicted, group, bonus,
                               points, why]))
        if rec["paradox_player"] != TERMINAL:
            p = rec["paradox_player"]
            tricks = rec["tricks"][p]
            lines.append(f"P{p} caused a paradox after {rec['tricks_played']} trick(s), which "
                         f"ended the round. It cost P{p} its bonus, and its {tricks} trick(s) "
                         f"count minus one point each: {rec['scores'][p]} instead of +{tricks}.")
        out.append(summary(f"Round {r + 1} of {state.options.num_rounds}: result",
                           ["player", "tricks", "predicted", "largest group", "bonus",
                            "points", "why"], rows, lines, round=r + 1))
    return out


sheet = generic.players_sheet


def ending(state) -> dict:
    return generic.rounds_played(state, TIE_BREAK)


describe = generic.hidden_from_others(PREDICT_BASE, "sets a card aside")  # [R] face down
# the hand's card of that number; no element for a prediction; the board's cell of the card
move = generic.keys_by_range(
    (ASIDE_BASE, lambda state, k: f"hand:{k + 1}"),
    (PREDICT_BASE, None),
    (PLAY_BASE, lambda state, i: _cell_key(*divmod(i, NUMBERS))))


def _cell_key(colour: int, k: int) -> str:
    return f"cell:{COLOURS[colour]}:{k + 1}"


def rich(view: dict):
    b = view["board"]
    parts = [Text(f"{view['title']}: round {b['round']}/{b['rounds']}, phase {b['phase']}"
                  + (f", led {b['led']}" if b["led"] else "")
                  + (", red broken" if b["red_broken"] else ""), style="bold")]
    grid = RichTable(title="research board", title_justify="left", show_edge=False)
    grid.add_column("")
    for k in range(1, b["numbers"] + 1):
        grid.add_column(str(k), justify="center")
    for row in b["rows"]:
        cells = []
        for v in row["cells"]:
            if v == -2:
                cells.append(Text("#", style="dim"))
            elif v == -1:
                cells.append(Text("."))
            else:
                cells.append(Text(f"P{v}", style=PLAYER_STYLES[v % len(PLAYER_STYLES)]))
        grid.add_row(Text(row["colour"], style=COLOUR_STYLES[row["colour"]]), *cells)
    parts.append(grid)
    if b["revealed"]:
        parts.append(cards_line("face-up leftovers", [str(k) for k in b["revealed"]]))
    if b["last_trick"] and not b["trick"]:
        winner = b["last_trick"]["winner"]
        parts.append(Text("last trick: ") + _trick_text(view, b["last_trick"]["cards"])
                     + Text(f"  won by P{winner}" if winner is not None else "  (paradox)"))
    parts.append(Text("trick: ") + (_trick_text(view, b["trick"]) if b["trick"] else Text("-")))
    players = b["players"]
    parts.append(scores_table(view, {
        "tricks": [p["tricks"] for p in players],
        "predicted": ["-" if p["prediction"] is None else p["prediction"] for p in players],
        "markers": ["".join(c[0].upper() if held else "x" for c, held in p["markers"].items())
                    for p in players],
        "cards": [p["cards"] for p in players],
    }))
    aside = f"   set aside: {b['aside']}" if b["aside"] is not None else ""
    parts.append(cards_line("your hand", [str(k) for k in b["hand"]]) + Text(aside))
    return Group(*parts)


def _trick_text(view: dict, cards: list[dict]) -> Text:
    return trick_line(view, cards, lambda c: Text(f"{c['number']} {c['colour']}",
                                                  style=COLOUR_STYLES[c["colour"]]))
