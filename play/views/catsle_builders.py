"""CATsle Builders as one seat sees it: its hand, every board's columns, the trick and who
takes what from it; the other hands only as counts."""

from __future__ import annotations

from rich.console import Group
from rich.table import Table as RichTable
from rich.text import Text

from catzoo.games.catsle_builders.options import SUIT_LETTERS, SUITS, VALUES
from catzoo.games.catsle_builders.scoring import board_score, column_score
from catzoo.games.catsle_builders.state import COLUMN_BASE, PHASES, TAKE_BASE, cards_of
from catzoo.play.views import generic, summary
from catzoo.play.views.generic import cards_line, scores_table, trick_line, who

TIE_BREAK = "the most perfect columns in the last round"  # [S] see standing_keys


def card(c: int) -> dict:
    return {"card": c, "suit": SUITS[c // VALUES], "value": c % VALUES + 1,
            "name": f"{SUIT_LETTERS[c // VALUES]}{c % VALUES + 1}"}


def board(state, seat: int) -> dict:
    o, n = state.options, state.num_players
    over = state.is_terminal()
    limits = list(o.limits)
    boards = state.round_boards[-1] if over and state.round_boards else state.col_cards
    last = None
    if state.last_trick is not None:
        cards, rating = state.last_trick
        last = {"cards": [{"player": p, **card(c)} for p, c in cards], "rating": list(rating)}
    return {
        **generic.trick_round(state, PHASES, SUITS),
        "trick_number": min(state.tricks_done + 1, o.hands),
        "tricks": o.hands,
        "limits": limits,
        "takes": list(o.takes),
        "trick": [{"player": p, **card(c), "left": bool(state.remaining >> c & 1)}
                  for p, c in state.trick],
        "rating": list(state.rating),
        "pending": card(state.pending) if state.pending >= 0 else None,
        "last_trick": last,
        "hand": [card(c) for c in cards_of(state.hands[seat])],
        "hand_counts": [state.hands[p].bit_count() for p in range(n)],
        "boards": [[{"limit": limit, "cards": [card(c) for c in boards[p][k]],
                     "points": column_score(len(boards[p][k]), limit)}
                    for k, limit in enumerate(limits)] for p in range(n)],
        "round_scores": [list(s) for s in state.round_scores],
    }


def rounds(state, notes: dict) -> list[dict]:
    """Each finished round: per player every column against its limit (and its sideways
    cards), the perfect columns and their bonus, the round's points."""
    o, n = state.options, state.num_players
    limits = list(o.limits)
    out = []
    for r, boards in enumerate(state.round_boards):
        rows = []
        for p in range(n):
            counts = [len(cards) for cards in boards[p]]
            cells = []
            for count, limit in zip(counts, limits):
                side = max(0, count - limit)
                cells.append(f"{count}/{limit}" + (f" ({side} sideways)" if side else "")
                             + f" -> {column_score(count, limit):+d}")
            _, perfect = board_score(counts, limits, o.perfect_bonus)
            cells += [perfect, f"{o.perfect_bonus[perfect]:+d}", state.round_scores[r][p]]
            rows.append(([p], cells))
        bonus = ", ".join(f"{k}: {b:+d}" for k, b in enumerate(o.perfect_bonus))
        notes_ = [("Within its limit a column scores its card count; above it, minus one "
                   "per sideways card; perfect columns (exactly at a limit above 0) earn a "
                   f"bonus by their number ({bonus}); a negative round scores 0.")]
        out.append(summary(f"Round {r + 1} of {o.num_rounds}: result",
                           ["player", *[f"col {k} (limit {lim})" for k, lim in enumerate(limits)],
                            "perfect", "bonus", "points"], rows, notes_, round=r + 1))
    return out


sheet = generic.players_sheet


def ending(state) -> dict:
    return generic.rounds_played(state, TIE_BREAK)


def describe(state, actor: int, action: int, viewer: int) -> str:
    return state.action_to_string(action)  # every play, take and column is public [S]


# the hand's card, the trick's card taken, the mover's own column
move = generic.keys_by_range(
    (0, lambda state, i: f"hand:{i}"),
    (TAKE_BASE, lambda state, i: f"trick:{i}"),
    (COLUMN_BASE, lambda state, i: f"column:{state.current_player}:{i}"))


def rich(view: dict):
    b = view["board"]
    head = (f"{view['title']}: round {b['round']}/{b['rounds']}, trick {b['trick_number']}/"
            f"{b['tricks']}, phase {b['phase']}" + (f", led {b['led']}" if b["led"] else ""))
    parts = [Text(head, style="bold")]
    if b["last_trick"] and not b["trick"]:
        cards = ", ".join(f"P{c['player']} {c['name']}" for c in b["last_trick"]["cards"])
        parts.append(Text(f"last trick: {cards}; strongest first: "
                          + " > ".join(f"P{p}" for p in b["last_trick"]["rating"])))
    trick = Text("trick: ") + trick_line(
        view, b["trick"], lambda c: Text(c["name"], style="" if c["left"] else "strike dim"))
    if b["rating"]:
        trick += Text("   takes: " + ", ".join(
            f"P{p} {t}" for p, t in zip(b["rating"], b["takes"])))
    parts.append(trick)
    if b["pending"]:
        parts.append(Text(f"card to place in a column: {b['pending']['name']}", style="bold"))
    cols = RichTable(title="boards (column: cards / limit -> points)", title_justify="left",
                     show_edge=False)
    cols.add_column("seat")
    for k, limit in enumerate(b["limits"]):
        cols.add_column(f"col {k} (limit {limit})")
    for p, columns in enumerate(b["boards"]):
        cols.add_row(who(view, p), *[
            (" ".join(c["name"] for c in col["cards"]) or ".") + f" -> {col['points']}"
            for col in columns])
    parts.append(cols)
    parts.append(scores_table(view, {"cards": b["hand_counts"]}))
    parts.append(cards_line("your hand", [c["name"] for c in b["hand"]]))
    return Group(*parts)
