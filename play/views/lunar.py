"""Lunar as one seat sees it: its hand, what it passed and received, the sky (2 players),
the trump tiles, the trick, the teams' tracks; the other hands only as counts and the
partner's picks only once they arrive."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from catzoo.games.lunar.options import NUM_CARDS, NUM_SUITS, SUITS
from catzoo.games.lunar.state import HAND_BASE, PHASES, PICK_BASE, SKY_BASE, TILE_NAMES, TRUMP_BASE
from catzoo.play.views import generic, summary
from catzoo.play.views.generic import (
    cards_line,
    round_sheet,
    scores_table,
    team_label,
    tie_break,
    trick_line,
)

STAR = "\u2605"  # a card carrying a star is drawn with it


def card(c: int, stars=None) -> dict:
    """A card identity; ``stars`` (the options' ``card_stars``) marks the starred ones."""
    star = int(stars[c]) if stars is not None else 0
    if c < NUM_SUITS:
        return {"card": c, "suit": SUITS[c], "rank": None, "name": SUITS[c] + STAR * star,
                "stars": star}
    return {"card": c, "suit": None, "rank": c - NUM_SUITS + 1,
            "name": str(c - NUM_SUITS + 1) + STAR * star, "stars": star}


def _cards(counts, stars=None) -> list[dict]:
    return [card(c, stars) for c in range(NUM_CARDS) for _ in range(int(counts[c]))]


def _teams(n: int) -> list[list[int]]:
    return [[p for p in range(n) if p % 2 == t] for t in (0, 1)]


def board(state, seat: int) -> dict:
    n, o = state.num_players, state.options
    stars = o.card_stars
    over = state.is_terminal()
    last = None
    if state.last_trick is not None:
        cards, winner = state.last_trick
        last = {"cards": [_played(q, c, sky, stars) for q, c, sky in cards],
                "winning_team": winner, "winner": team_label(_teams(n)[winner])}
    out = {
        "round": state.round_index + (0 if over else 1),
        "phase": "over" if over else PHASES[state.phase],
        "teams": _teams(n),
        "team_names": [team_label(m) for m in _teams(n)],
        "team_scores": list(state.team_scores),
        "target": o.target,
        "track": list(state.track),
        "kept_stars": list(state.kept_stars),
        "track_stars": list(o.track_stars),
        "card_stars": list(o.card_stars),
        "tiles": {TILE_NAMES[i]: h for i, h in enumerate(state.tiles)},
        "round_start": state.round_start,
        "leader": None if over else state.leader,
        "trump": SUITS[state.trump] if state.trump >= 0 else None,
        "face_up": [SUITS[s] for s in range(NUM_SUITS) if state.face_up >> s & 1],
        "turned_by": {SUITS[s]: p for s, p in enumerate(state.turned_by) if p >= 0},
        "lead_suit": SUITS[state.lead_suit] if state.lead_suit >= 0 else None,
        "trick": [_played(q, c, sky, stars) for q, c, sky in state.trick],
        "last_trick": last,
        "hand": _cards(state.hands[seat], stars),
        "hand_counts": [sum(h) for h in state.hands],
        "round_scores": [list(s) for s in state.round_scores],
        "starred": [card(c, stars)["name"] for c in range(NUM_CARDS) if stars[c]],
    }
    if n == 4:
        out["passed"] = _cards(state.passed[seat], stars)
        out["received"] = _cards(state.received[seat], stars)
        out["picks_made"] = [sum(state.passed[p]) for p in range(n)]
    else:
        out["sky"] = _cards(state.sky, stars)
        out["deck"] = [len(state._order[t]) - state._deck_pos[t] for t in (0, 1)]
    return out


def _played(p: int, c: int, from_sky: bool, stars=None) -> dict:
    return {"player": p, **card(c, stars), "from_sky": bool(from_sky)}


# --- rounds -----------------------------------------------------------------------------
def rounds(state, notes: dict) -> list[dict]:
    """Each finished round: per team its trick-track position and the stars printed
    there, the stars on the cards it kept, and its points."""
    o, teams = state.options, _teams(state.num_players)
    out = []
    for r, record in enumerate(state.round_records):  # the core's, as it scored the round
        rows = []
        for t, members in enumerate(teams):
            pos = record["track"][t]
            rows.append((members, [pos, o.track_stars[pos], record["kept_stars"][t],
                                   record["points"][t]]))
        lines = ["Stars beside the track positions 0-12: " + _track_text(o.track_stars)]
        out.append(summary(f"Round {r + 1}: result",
                           ["team", "track position", "stars there", "stars on kept cards",
                            "points"], rows, lines, round=r + 1))
    return out


def _track_text(track_stars) -> str:
    return "  ".join(f"{i}:{s}{STAR}" if s else f"{i}:-" for i, s in enumerate(track_stars))


def sheet(state, notes: dict) -> dict:
    return round_sheet(state.round_scores, _teams(state.num_players), state.team_scores)


def ending(state) -> dict:
    o = state.options
    a, b = state.team_scores
    teams = _teams(state.num_players)
    if o.rounds == "single":
        reason = "the one round was played (rounds=single)"
    elif max(a, b) > o.target and a != b:
        reason = f"{team_label(teams[0 if a > b else 1])} passed {o.target} points"
    else:
        reason = f"the limit of {o.max_rounds} rounds was reached"
    return {"reason": reason, "tie_break": tie_break(state, teams, "")}


# [R] the partner sees the picks at the exchange
describe = generic.hidden_from_others(TRUMP_BASE, "passes a card face down")
# a card of the hand (to pass, then to play), a trump tile, a card of the sky
move = generic.keys_by_range(
    (PICK_BASE, lambda state, i: f"hand:{i}"),
    (TRUMP_BASE, lambda state, i: f"tile:{SUITS[i]}"),
    (HAND_BASE, lambda state, i: f"hand:{i}"),
    (SKY_BASE, lambda state, i: f"sky:{i}"))


def rich(view: dict):
    b = view["board"]
    head = f"{view['title']}: round {b['round']}, phase {b['phase']}"
    head += f", trump {b['trump']}" if b["trump"] else f", trump tiles up: {', '.join(b['face_up'])}"
    parts = [Text(head, style="bold")]
    teams = "   ".join(
        f"{b['team_names'][t]}: {b['team_scores'][t]} points, "
        f"track {b['track'][t]}, kept stars {b['kept_stars'][t]}"
        for t in range(2))
    parts.append(Text(teams + f"   (target: more than {b['target']})"))
    parts.append(_track_line(b))
    parts.append(Text(f"cards with a star ({STAR}, one point each when kept): "
                      + (", ".join(b["starred"]) or "none"), style="dim"))
    if "sky" in b:
        parts.append(cards_line("sky", [c["name"] for c in b["sky"]])
                     + Text(f"   decks: {b['deck'][0]} suits, {b['deck'][1]} ranks left"))
    if b["last_trick"] and not b["trick"]:
        parts.append(Text("last trick: ") + _trick_text(view, b["last_trick"]["cards"])
                     + Text(f"  won by {b['last_trick']['winner']}"))
    lead = f" (lead suit {b['lead_suit']})" if b["lead_suit"] else ""
    parts.append(Text("trick: ") + (_trick_text(view, b["trick"]) if b["trick"] else Text("-"))
                 + Text(lead))
    parts.append(scores_table(view, {"cards": b["hand_counts"],
                                     "team": [b["team_names"][p % 2]
                                              for p in range(view["num_players"])]}))
    if "passed" in b and (b["passed"] or b["received"]):
        parts.append(cards_line("you passed", [c["name"] for c in b["passed"]])
                     + Text("   ") + cards_line("you received", [c["name"] for c in b["received"]]))
    parts.append(cards_line("your hand", [c["name"] for c in b["hand"]]))
    return Group(*parts)


def _track_line(b: dict) -> Text:
    """The trick track: each position with the stars it scores at the round's end, and
    where each team's marker is."""
    out = Text("track (position:stars): ")
    marks = {}
    for t, pos in enumerate(b["track"]):
        marks.setdefault(pos, []).append(t)
    for i, s in enumerate(b["track_stars"]):
        style = "bold reverse" if i in marks else ""
        cell = f"{i}:{s}{STAR}" if s else f"{i}:-"
        if i in marks:
            cell += "[" + ",".join(b["team_names"][t].removeprefix("team ") for t in marks[i]) + "]"
        out += Text(cell, style=style) + Text(" ")
    return out


def _trick_text(view: dict, cards: list[dict]) -> Text:
    return trick_line(view, cards, lambda c: Text(c["name"] + (" (sky)" if c["from_sky"] else "")))
