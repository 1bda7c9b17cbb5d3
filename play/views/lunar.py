"""Lunar as one seat sees it: its hand, what it passed and received, the sky (2 players),
the trump tiles, the trick, the teams' tracks; the other hands only as counts and the
partner's picks only once they arrive."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from catzoo.games.lunar.options import NUM_CARDS, NUM_SUITS, SUITS
from catzoo.games.lunar.state import HAND_BASE, PHASES, PICK_BASE, SKY_BASE, TILE_NAMES, TRUMP_BASE
from catzoo.play.views.generic import cards_line, scores_table, trick_line


def card(c: int) -> dict:
    if c < NUM_SUITS:
        return {"card": c, "suit": SUITS[c], "rank": None, "name": SUITS[c]}
    return {"card": c, "suit": None, "rank": c - NUM_SUITS + 1, "name": str(c - NUM_SUITS + 1)}


def _cards(counts) -> list[dict]:
    return [card(c) for c in range(NUM_CARDS) for _ in range(int(counts[c]))]


def board(state, seat: int) -> dict:
    n, o = state.num_players, state.options
    over = state.is_terminal()
    last = None
    if state.last_trick is not None:
        cards, winner = state.last_trick
        last = {"cards": [_played(q, c, sky) for q, c, sky in cards], "winning_team": winner}
    out = {
        "round": state.round_index + (0 if over else 1),
        "phase": "over" if over else PHASES[state.phase],
        "teams": [[p for p in range(n) if p % 2 == t] for t in (0, 1)],
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
        "trick": [_played(q, c, sky) for q, c, sky in state.trick],
        "last_trick": last,
        "hand": _cards(state.hands[seat]),
        "hand_counts": [sum(h) for h in state.hands],
        "round_scores": [list(s) for s in state.round_scores],
    }
    if n == 4:
        out["passed"] = _cards(state.passed[seat])
        out["received"] = _cards(state.received[seat])
        out["picks_made"] = [sum(state.passed[p]) for p in range(n)]
    else:
        out["sky"] = _cards(state.sky)
        out["deck"] = [len(state._order[t]) - state._deck_pos[t] for t in (0, 1)]
    return out


def _played(p: int, c: int, from_sky: bool) -> dict:
    return {"player": p, **card(c), "from_sky": bool(from_sky)}


def describe(state, actor: int, action: int, viewer: int) -> str:
    if action < TRUMP_BASE and viewer != actor:
        return "passes a card face down"  # [R] the partner sees the picks at the exchange
    return state.action_to_string(action)


def move(state, action: int) -> dict:
    if action < TRUMP_BASE:
        return {"key": f"hand:{action - PICK_BASE}"}
    if action < HAND_BASE:
        return {"key": f"tile:{SUITS[action - TRUMP_BASE]}"}
    if action < SKY_BASE:
        return {"key": f"hand:{action - HAND_BASE}"}
    return {"key": f"sky:{action - SKY_BASE}"}


def rich(view: dict):
    b = view["board"]
    head = f"{view['title']}: round {b['round']}, phase {b['phase']}"
    head += f", trump {b['trump']}" if b["trump"] else f", trump tiles up: {', '.join(b['face_up'])}"
    parts = [Text(head, style="bold")]
    teams = "   ".join(
        f"team {'+'.join(f'P{p}' for p in members)}: {b['team_scores'][t]} points, "
        f"track {b['track'][t]}, kept stars {b['kept_stars'][t]}"
        for t, members in enumerate(b["teams"]))
    parts.append(Text(teams + f"   (target: more than {b['target']})"))
    if "sky" in b:
        parts.append(cards_line("sky", [c["name"] for c in b["sky"]])
                     + Text(f"   decks: {b['deck'][0]} suits, {b['deck'][1]} ranks left"))
    if b["last_trick"] and not b["trick"]:
        parts.append(Text("last trick: ") + _trick_text(view, b["last_trick"]["cards"])
                     + Text(f"  won by team {b['last_trick']['winning_team']}"))
    lead = f" (lead suit {b['lead_suit']})" if b["lead_suit"] else ""
    parts.append(Text("trick: ") + (_trick_text(view, b["trick"]) if b["trick"] else Text("-"))
                 + Text(lead))
    parts.append(scores_table(view, {"cards": b["hand_counts"],
                                     "team": [p % 2 for p in range(view["num_players"])]}))
    if "passed" in b and (b["passed"] or b["received"]):
        parts.append(cards_line("you passed", [c["name"] for c in b["passed"]])
                     + Text("   ") + cards_line("you received", [c["name"] for c in b["received"]]))
    parts.append(cards_line("your hand", [c["name"] for c in b["hand"]]))
    return Group(*parts)


def _trick_text(view: dict, cards: list[dict]) -> Text:
    return trick_line(view, cards, lambda c: Text(c["name"] + (" (sky)" if c["from_sky"] else "")))
