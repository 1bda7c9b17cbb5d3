"""Scenarios of Cats Knocking Things Off Ledges, for the rules and the physics tests: an
exact game (dexterity 0, the platform cards pinned), a quiet end of a turn, the build
actions by where they stand, and names for the actions' arguments.

Import it after ``pytest.importorskip("mujoco")``: the engine needs MuJoCo."""

from __future__ import annotations

from catzoo.games.ledges import LedgesState
from catzoo.games.ledges.state import (
    BAT,
    STOP,
    bat_action,
    build_action,
    platform_anchor,
    table_anchor,
)

# Build variants: a round platform on a short / tall pillar; a rectangular one on two short /
# two tall pillars, turned 0 degrees (lengthwise).
ROUND_SHORT, ROUND_TALL, RECT_SS, RECT_TT = 0, 1, 2, 14
# Bat directions (in steps of 45 degrees counter-clockwise from +x) and strengths.
EAST, WEST = 0, 4
TAP, PUSH, SWIPE, WHACK = range(4)
# The toys, by icon.
YARN, MOUSE, FISH, FEATHER = range(4)


def exact(chance=(0, 8, 9, 10, 11), players: int = 2, **options) -> LedgesState:
    """A game without dexterity noise whose platform cards are drawn in ``chance``'s order,
    so that its outcome is exact on one machine."""
    return LedgesState.new(seed=0, num_players=players, dexterity=0.0, chance=list(chance),
                           **options)


def pass_turn(state: LedgesState) -> None:
    """End the current turn quietly: the first legal build, cat and toy, a tap east, then
    stop."""
    start = state.turns_done
    while state.turns_done == start and not state.is_terminal():
        if state.phase == BAT:
            state.apply(STOP if state.is_legal(STOP) else bat_action(EAST, TAP))
        else:
            state.apply(state.legal_actions()[0])


def on_platform(card: int, anchor: int, variant: int) -> int:
    """The build of ``variant`` on anchor ``anchor`` of platform ``card``."""
    return build_action(platform_anchor(card, anchor), variant)


def on_table(row: int, column: int, variant: int) -> int:
    """The build of ``variant`` on the table's anchor (``row``, ``column``), (3, 3) the
    centre."""
    return build_action(table_anchor(row, column), variant)
