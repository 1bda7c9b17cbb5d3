"""The games a server holds: each a ``Room`` around a ``Table``, found by secret tokens.

A room has an unguessable id; each human seat has its own unguessable token, the only key
to that seat's view and moves (an id alone opens nothing). All changes to a table happen
on the event loop under the room's lock; bots think in a worker thread on a copy of the
state, so slow bots never stall other games.

The store is bounded, and shared fairly between clients (by address):

* one client holds at most ``per_client`` unfinished games; starting one more drops its own
  game idle longest if that one has had no move for ``own_idle_seconds``, else is refused
  (429, with ``Retry-After``), before anyone else's game is touched;
* a game with no move (by anyone, bots included) for ``idle_seconds`` is dropped: reading
  or long-polling a game does not keep it alive, only playing does;
* when the store is full, finished games make way first (least recently played first),
  then the game idle longest among those of the client holding the most games, if it has
  had no move for ``evict_seconds``; else the new game is refused with 503 and a
  ``Retry-After`` saying when a game will be evictable.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from catzoo.play.table import Table

log = logging.getLogger("catzoo.web")

LONG_POLL_SECONDS = 20.0


class RoomError(Exception):
    """A request the room refuses; ``status`` is the HTTP status to answer with, and
    ``retry_after`` (seconds), when set, when trying again may succeed."""

    def __init__(self, status: int, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.status = status
        self.retry_after = None if retry_after is None else max(1, math.ceil(retry_after))

    @property
    def headers(self) -> dict[str, str]:
        return {} if self.retry_after is None else {"Retry-After": str(self.retry_after)}


class Room:
    def __init__(self, table: Table, bot_delay: float, client: str = ""):
        self.id = secrets.token_urlsafe(16)
        self.table = table
        self.bot_delay = bot_delay
        self.client = client  # the address that started the game
        self.tokens = {secrets.token_urlsafe(24): s.index for s in table.seats if s.human}
        self.lock = asyncio.Lock()
        self.changed = asyncio.Event()
        self.error: str | None = None  # a bot failed: the game cannot go on
        # ``touched``: the last move (or the start); reads do not count.
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
        """Play ``seat``'s move. Refused, the game unchanged: with ``RoomError`` when the
        game stopped or ``turn`` (the moves the player saw) is not the moves played; with
        the table's own errors (``Table.apply``: the game is over, not this seat's turn,
        not a legal move), which the app answers by their type."""
        async with self.lock:
            if self.error:
                raise RoomError(409, f"the game stopped: {self.error}")
            if turn is not None and turn != len(self.table.events) and not self.table.over:
                raise RoomError(409, f"the game has moved on (move {len(self.table.events)} now, "
                                     f"not {turn}): look again before moving")
            self.table.apply(action, player=seat)
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
                    self.table.apply_bot(action)
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


PER_CLIENT = 10
OWN_IDLE_SECONDS = 60.0
EVICT_SECONDS = 300.0


@dataclass(eq=False)
class RoomStore:
    """Every room of the server, bounded and shared fairly between clients (see above)."""

    max_rooms: int = 200
    idle_seconds: float = 3600.0
    per_client: int = PER_CLIENT
    own_idle_seconds: float = OWN_IDLE_SECONDS
    evict_seconds: float = EVICT_SECONDS
    clock: Callable[[], float] = time.monotonic
    rooms: dict[str, Room] = field(default_factory=dict, init=False)  # by room id
    seats: dict[str, tuple[Room, int]] = field(default_factory=dict, init=False)  # by token

    def admit(self, client: str) -> None:
        """Raise the ``RoomError`` that ``add`` would for a game of ``client``, changing
        nothing: checked before a table (and its bots) is built for a request refused."""
        self._add(None, client, dry_run=True)

    def add(self, room: Room) -> None:
        """Hold ``room``, making way as described above, or raise ``RoomError``."""
        self._add(room, room.client)

    def _add(self, room: Room | None, client: str, dry_run: bool = False) -> None:
        now = self.clock()
        if not dry_run:
            self._purge(now)
        mine = sorted((r for r in self.rooms.values()
                       if r.client == client and not r.finished), key=lambda r: r.touched)
        if len(mine) >= self.per_client:
            idle = now - mine[0].touched
            if idle < self.own_idle_seconds:
                raise RoomError(
                    429, f"you have {len(mine)} unfinished games on this server, the most one "
                         f"client may hold; finish one, or retry in "
                         f"{math.ceil(self.own_idle_seconds - idle)} s, when your game idle "
                         "longest will make way", retry_after=self.own_idle_seconds - idle)
            if dry_run:
                return
            self.remove(mine[0])
        if len(self.rooms) >= self.max_rooms:
            self._make_way(now, dry_run)
        if room is None:  # a dry run
            return
        self.rooms[room.id] = room
        for token, seat in room.tokens.items():
            self.seats[token] = (room, seat)

    def seat(self, token: str) -> tuple[Room, int]:
        found = self.seats.get(token)
        if found is None:
            raise RoomError(404, "no game has this seat (the link is wrong or the game expired)")
        return found

    def remove(self, room: Room) -> None:
        room.close()
        self.rooms.pop(room.id, None)
        for token in room.tokens:
            self.seats.pop(token, None)

    def _purge(self, now: float) -> None:
        for room in list(self.rooms.values()):
            if now - room.touched > self.idle_seconds:
                self.remove(room)

    def _make_way(self, now: float, dry_run: bool = False) -> None:
        """Free one place in a full store, or raise 503 saying when one will be free."""
        done = [r for r in self.rooms.values() if r.finished]
        if done:
            if not dry_run:
                self.remove(min(done, key=lambda r: r.touched))
            return
        held = Counter(r.client for r in self.rooms.values())
        idle = [r for r in self.rooms.values() if now - r.touched >= self.evict_seconds]
        if idle:
            # The biggest holder gives up its game idle longest.
            if not dry_run:
                self.remove(max(idle, key=lambda r: (held[r.client], now - r.touched)))
            return
        wait = self.evict_seconds - (now - min(r.touched for r in self.rooms.values()))
        raise RoomError(503, f"the server holds {self.max_rooms} games already, all in play; "
                             f"try again in {math.ceil(wait)} s, when the game idle longest "
                             "may make way", retry_after=wait)

    def close(self) -> None:
        for room in list(self.rooms.values()):
            self.remove(room)
