"""Playing CatZoo games against bots: the table, the per-seat views, replay files.

``Table`` seats humans and bots around one rules engine; ``catzoo.play.views`` turns the
engine's state into what one seat may see (JSON for the web, rich text for the terminal);
``catzoo.play.replay`` saves and loads JSON replays; ``catzoo.play.terminal`` is the text
table behind ``catzoo play``.
"""

from catzoo.play.replay import Replay, load_replay, save_replay
from catzoo.play.table import HUMAN, SeatError, Table

__all__ = ["HUMAN", "Replay", "SeatError", "Table", "load_replay", "save_replay"]
