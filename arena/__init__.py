"""The arena: seat-rotating seeded matches between policies, with ratings and intervals.

``run_arena`` (Python API), ``catzoo arena`` (command line); see docs/arena.md.
"""

from catzoo.arena.api import ArenaPolicyError, ArenaResult, run_arena
from catzoo.arena.schedule import ArenaSetupError

__all__ = ["ArenaPolicyError", "ArenaResult", "ArenaSetupError", "run_arena"]
