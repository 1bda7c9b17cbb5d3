"""The games a server holds: each a ``Room`` around a ``Table``, found by secret tokens.

A room has an unguessable id; each human seat has its own unguessable token, the only key
to that seat's view and moves (an id alone opens nothing). All changes to a table happen
on the event loop under the room's lock; bots think in a worker thread on a copy of the
state, so slow bots never stall other games.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time

from catzoo.games.base import IllegalActionError
from catzoo.play.table import Table

log = logging.getLogger("catzoo.web")

LONG_POLL_SECONDS = 20.0


class RoomError(Exception):
    """A request the room refuses; ``status`` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class Room:
    def __init__(self, table: Table, bot_delay: float):
        self.id = secrets.token_urlsafe(16)
        self.table = table
        self.bot_delay = bot_delay
        self.tokens = {secrets.token_urlsafe(24): s.index for s in table.seats if s.human}
        self.lock = asyncio.Lock()
        self.changed = asyncio.Event()
        self.error: str | None = None  # a bot failed: the game cannot go on
        self.created = self.touched = time.monotonic()
        self.closed = False  # the server is stopping or dropped the room: stop waiting
        self._bots: asyncio.Task | None = None

    @property
    def finished(self) -> bool:
        return self.table.over or self.error is not None

    def view(self, seat: int) -> dict:
        out = self.table.view(seat)
        out["error"] = self.error
        return out

    def _notify(self) -> None:
        self.touched = time.monotonic()
        event, self.changed = self.changed, asyncio.Event()
        event.set()

    async def wait_change(self, after: int, timeout: float = LONG_POLL_SECONDS) -> None:
        """Return once more than ``after`` moves were played, the game stopped, or later."""
        deadline = time.monotonic() + timeout
        while len(self.table.events) <= after and not self.finished and not self.closed:
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                await asyncio.wait_for(self.changed.wait(), left)
            except TimeoutError:
                return

    async def move(self, seat: int, action: int, turn: int | None) -> None:
        async with self.lock:
            if self.error:
                raise RoomError(409, f"the game stopped: {self.error}")
            if self.table.over:
                raise RoomError(409, "the game is over")
            if turn is not None and turn != len(self.table.events):
                raise RoomError(409, f"the game has moved on (move {len(self.table.events)} now, "
                                     f"not {turn}): look again before moving")
            try:
                self.table.apply(action, player=seat)
            except IllegalActionError as err:
                raise RoomError(409 if "not your turn" in str(err) else 400, str(err)) from None
            self._notify()
        self.start_bots()

    def start_bots(self) -> None:
        if self.table.bot_to_act() and (self._bots is None or self._bots.done()):
            self._bots = asyncio.get_running_loop().create_task(self._run_bots())

    async def _run_bots(self) -> None:
        try:
            while self.table.bot_to_act() and not self.error:
                if self.bot_delay:
                    await asyncio.sleep(self.bot_delay)
                action = await asyncio.to_thread(self.table.bot_action)
                async with self.lock:
                    self.table.apply(action)
                    self._notify()
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a broken bot stops its game, never the server
            log.exception("bot failed in game %s", self.id)
            self.error = f"a bot failed: {err}"
            self._notify()

    def close(self) -> None:
        self.closed = True
        if self._bots is not None:
            self._bots.cancel()
        self.changed.set()


class RoomStore:
    """Every room of the server, bounded: when full, finished and idle rooms make way."""

    def __init__(self, max_rooms: int = 200, idle_seconds: float = 3600.0):
        self.max_rooms = max_rooms
        self.idle_seconds = idle_seconds
        self.rooms: dict[str, Room] = {}
        self.seats: dict[str, tuple[Room, int]] = {}

    def add(self, room: Room) -> None:
        self._purge()
        if len(self.rooms) >= self.max_rooms:
            raise RoomError(503, f"the server holds {self.max_rooms} games already; "
                                 "try again once some have ended")
        self.rooms[room.id] = room
        for token, seat in room.tokens.items():
            self.seats[token] = (room, seat)

    def seat(self, token: str) -> tuple[Room, int]:
        found = self.seats.get(token)
        if found is None:
            raise RoomError(404, "no game has this seat (the link is wrong or the game expired)")
        found[0].touched = time.monotonic()
        return found

    def remove(self, room: Room) -> None:
        room.close()
        self.rooms.pop(room.id, None)
        for token in room.tokens:
            self.seats.pop(token, None)

    def _purge(self) -> None:
        now = time.monotonic()
        for room in list(self.rooms.values()):
            if now - room.touched > self.idle_seconds:
                self.remove(room)
        if len(self.rooms) >= self.max_rooms:
            # Full: finished games go first, the longest untouched first.
            done = sorted((r for r in self.rooms.values() if r.finished), key=lambda r: r.touched)
            for room in done[: len(self.rooms) - self.max_rooms + 1]:
                self.remove(room)

    def close(self) -> None:
        for room in list(self.rooms.values()):
            self.remove(room)
