"""Pure rule functions of Lunar: the trick winner and round scoring.

Both rules live in the compiled core (``core.pyx``), which plays them in every game; these
are the core's own functions, for tests and tools that call them directly.

Teams are numbered 0 and 1: player ``p`` is on team ``p % 2`` (with 4 players partners
sit opposite, so 0 & 2 and 1 & 3; with 2 players each player is a team of one).
"""

from __future__ import annotations

from catzoo.games.lunar.core import round_points, trick_winner  # noqa: F401
