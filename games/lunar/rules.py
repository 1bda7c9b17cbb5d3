"""Pure rule functions of Lunar: round scoring, and the trick winner (compiled with the
round it decides, in ``round_core.pyx``).

Teams are numbered 0 and 1: player ``p`` is on team ``p % 2`` (with 4 players partners
sit opposite, so 0 & 2 and 1 & 3; with 2 players each player is a team of one).
"""

from __future__ import annotations

from catzoo.games.lunar.round_core import trick_winner  # noqa: F401


def round_points(track_position: int, kept_stars: int, track_stars) -> int:
    """[R] The stars beside the team's trick-track position plus one per kept star."""
    return track_stars[track_position] + kept_stars
