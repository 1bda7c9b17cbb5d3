"""Text rendering of a Cat in the Box state (the spectator's view: every hand shown)."""

from __future__ import annotations

from catzoo.games.cat_in_the_box.options import COLOURS
from catzoo.games.cat_in_the_box.state import PHASES

SYMBOL = {-1: ".", -2: "#"}


def hand_text(counts) -> str:
    cards = [str(k + 1) for k in range(len(counts)) for _ in range(int(counts[k]))]
    return " ".join(cards) if cards else "-"


def render_text(state) -> str:
    o = state.options
    width = o.max_number
    lines = [headline(state),
             "research board   " + " ".join(str(k + 1) for k in range(width))]
    for name in o.row_order:
        colour = COLOURS.index(name)
        cells = [SYMBOL.get(int(v), str(int(v))) for v in state.owner[colour, :width]]
        lines.append(f"  {name:<14} " + " ".join(cells))
    if state.trick:
        played = ", ".join(f"P{p}: {k + 1} {COLOURS[c]}" for p, c, k in state.trick)
        lines.append(f"trick (led {COLOURS[state.led]}): {played}")
    for p in range(state.num_players):
        markers = "".join(
            COLOURS[c][0].upper() if state.markers[p][c] else "x" for c in range(4)
        )
        pred = state.predictions[p] if state.predictions[p] >= 0 else "-"
        aside = state.aside[p] + 1 if state.aside[p] >= 0 else "-"
        lines.append(
            f"  P{p}: score {state.total_scores[p]:>3}  tricks {state.tricks[p]}  "
            f"predicted {pred}  markers {markers}  aside {aside}  hand {hand_text(state.hands[p])}"
        )
    return "\n".join(lines)


def headline(state) -> str:
    """The round, phase and player to act; once over, how many rounds were played."""
    if state.is_terminal():
        return f"Game over after {len(state.round_scores)} round(s)."
    return (f"Round {state.round_index + 1}/{state.options.num_rounds}  phase: "
            f"{PHASES[state.phase]}  start player: P{state.round_start}  to act: "
            f"P{state.current_player}")
