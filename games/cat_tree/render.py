"""Text rendering of a Cat Tree state (the spectator's view: both hands shown).

The grid is drawn top row first, the floor under it; a piece is its structure's letter,
upper case when it scores, lower case when it is detached from the tree; ``.`` is empty.
The rows from which the altitude bonus applies are marked with ``*``.
"""

from __future__ import annotations

from catzoo.games.cat_tree.options import LETTERS, TYPE_NAMES
from catzoo.games.cat_tree.state import PHASES

LEGEND = ", ".join(f"{letter} {name}" for letter, name in zip(LETTERS, TYPE_NAMES))


def grid_lines(grid, counted: int, width: int, height: int, altitude_row: int) -> list[str]:
    lines = []
    for row in range(height - 1, -1, -1):
        cells = []
        for col in range(width):
            i = row * width + col
            kind = grid[i]
            if kind < 0:
                cells.append(".")
            else:
                letter = LETTERS[kind]
                cells.append(letter if (counted >> i) & 1 else letter.lower())
        mark = "*" if row >= altitude_row else " "
        lines.append(f"{row:>2}{mark}| " + " ".join(cells))
    lines.append("   +" + "=" * (2 * width))
    lines.append("     " + " ".join(str(c % 10) for c in range(width)))
    return lines


def render_text(state) -> str:
    o = state.options
    lines = [headline(state),
             *grid_lines(state.grid, state.counted, o.width, o.height, state.rules.altitude_row)]
    if not state.is_terminal():
        for p in range(2):
            hand = " ".join(TYPE_NAMES[k] for k in state.hands[p])
            kept = TYPE_NAMES[state.kept[p]] if state.kept[p] >= 0 else "-"
            status = "to place" if state.to_place[p] else ""
            lines.append(f"  P{p}: hand {hand}  kept {kept} {status}".rstrip())
    lines.append(f"  ({LEGEND}; lower case: detached; *: altitude bonus)")
    return "\n".join(lines)


def headline(state) -> str:
    """The turn, phase, leader, first to place, player to act and shared score; once over,
    the final score."""
    turns = state.options.turns
    if state.is_terminal():
        return f"Game over after {turns} turns. Shared score: {state.total}"
    first = f"P{state.first}" if state.first >= 0 else "-"
    return (f"Turn {state.turn + 1}/{turns}  phase: {PHASES[state.phase]}  leader: "
            f"P{state.leader}  first: {first}  to act: P{state.current_player}  "
            f"score: {state.total}")
