"""Text rendering of a Lunar state (the spectator's view: every hand shown)."""

from __future__ import annotations

from catzoo.games.lunar.options import NUM_CARDS, NUM_SUITS, SUITS


def cards_text(counts) -> str:
    names = [SUITS[c] if c < NUM_SUITS else str(c - NUM_SUITS + 1)
             for c in range(NUM_CARDS) for _ in range(int(counts[c]))]
    return " ".join(names) if names else "-"


def render_text(state) -> str:
    from catzoo.games.lunar.state import PHASES, TILE_NAMES

    n = state.num_players
    a, b = state.team_scores
    team_names = ("P0+P2", "P1+P3") if n == 4 else ("P0", "P1")
    lines = []
    if state.is_terminal():
        lines.append(f"Game over after {len(state.round_scores)} round(s): "
                     f"{team_names[0]} {a}, {team_names[1]} {b}.")
    else:
        lines.append(
            f"Round {state.round_index + 1}  phase: {PHASES[state.phase]}  "
            f"start player: P{state.round_start}  to act: P{state.current_player}"
        )
        tiles = ", ".join(f"{TILE_NAMES[i]} P{h}" for i, h in enumerate(state.tiles))
        lines.append(f"scores {team_names[0]} {a}, {team_names[1]} {b}  lead tiles: {tiles}")
    if state.trump >= 0:
        lines.append(f"trump: {SUITS[state.trump]}")
    else:
        up = [SUITS[s] for s in range(NUM_SUITS) if state.face_up >> s & 1]
        lines.append(f"trump tiles face up: {', '.join(up)}")
    for t in (0, 1):
        lines.append(f"  team {team_names[t]}: track {state.track[t]}  "
                     f"kept stars {state.kept_stars[t]}")
    if n == 2:
        lines.append(f"sky: {cards_text(state.sky)}")
    if state.trick:
        played = ", ".join(
            f"P{p}: {SUITS[c] if c < NUM_SUITS else c - NUM_SUITS + 1}"
            + (" (sky)" if from_sky else "")
            for p, c, from_sky in state.trick
        )
        lead = SUITS[state.lead_suit] if state.lead_suit >= 0 else "none yet"
        lines.append(f"trick (lead suit {lead}): {played}")
    for p in range(n):
        extra = ""
        if n == 4:
            extra = f"  passed {cards_text(state.passed[p])}"
        lines.append(f"  P{p}: hand {cards_text(state.hands[p])}{extra}")
    return "\n".join(lines)
