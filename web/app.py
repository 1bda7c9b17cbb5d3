"""The FastAPI app behind ``catzoo serve``: pages, the game API, strict input checks.

API (JSON):

* ``GET  /api/catalogue``               games, player counts, bots and checkpoints on offer;
* ``POST /api/games``                   start a game: ``{game, seats, seed?, options?}``; the
  answer holds the game id and one secret token per human seat (the link to share);
* ``GET  /api/seat/{token}?after=N``    that seat's view; with ``after``, waits (long poll)
  until more than N moves were played;
* ``POST /api/seat/{token}/move``       ``{action, turn}``: play a legal move; the answer is
  the new view;
* ``GET  /api/seat/{token}/replay``     the replay file, once the game is over;
* ``GET  /api/seat/{token}/replay/{n}``  that seat's view after n moves, once the game is
  over (the page steps through the game with it, backwards and forwards);
* ``GET  /rules/{game}``                 the game's rules page (docs/rules/GAME.md).

Every error is ``{"error": message}`` with a 4xx status, and leaves the game as it was.
"""

from __future__ import annotations

import asyncio
import functools
import html
import re
from collections import OrderedDict
from contextlib import asynccontextmanager
from html import escape
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from catzoo.games.base import OptionsError
from catzoo.games.registry import GAMES
from catzoo.play.replay import seat_views
from catzoo.play.table import SeatError, Table
from catzoo.web.catalogue import CHECKPOINT_PREFIX, HUMAN, MOVE_SECONDS, Catalogue
from catzoo.web.guard import BodyLimit, SecurityHeaders
from catzoo.web.rooms import PER_CLIENT, Room, RoomError, RoomStore

STATIC = Path(__file__).parent / "static"
RENDERERS = "<!-- renderers: one script a game, from its record (GameInfo.renderer); catzoo.web.app -->"
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
NO_STORE = {"Cache-Control": "no-store"}

Name = Annotated[str, Field(min_length=1, max_length=80)]
OptionValue = StrictBool | StrictInt | StrictFloat | Annotated[StrictStr, Field(max_length=200)]


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: Name
    seats: list[Name] = Field(min_length=1, max_length=8)
    seed: StrictInt | None = Field(default=None, ge=0, le=2**31 - 1)
    options: dict[Annotated[str, Field(max_length=40)], OptionValue] = Field(
        default_factory=dict, max_length=16)


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: StrictInt = Field(ge=0, le=1_000_000)
    turn: StrictInt | None = Field(default=None, ge=0, le=10**9)


def create_app(*, bot_delay: float = 0.6, max_games: int = 200, idle_seconds: float = 3600.0,
               max_games_per_client: int = PER_CLIENT, bot_seconds: float = MOVE_SECONDS,
               checkpoint_dirs: list[str] | None = None,
               allowed_hosts: list[str] | None = None) -> FastAPI:
    store = RoomStore(max_games, idle_seconds, per_client=max_games_per_client)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        store.close()

    app = FastAPI(title="CatZoo", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)
    catalogue = Catalogue(list(checkpoint_dirs or []), move_seconds=bot_seconds)
    app.state.store = store
    app.state.catalogue = catalogue
    app.add_middleware(SecurityHeaders)
    app.add_middleware(BodyLimit)
    if allowed_hosts:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)

    @app.exception_handler(RoomError)
    async def room_error(request: Request, err: RoomError):
        return JSONResponse({"error": str(err)}, status_code=err.status,
                            headers={**NO_STORE, **err.headers})

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, err: RequestValidationError):
        problems = []
        for e in err.errors()[:5]:
            where = ".".join(str(part) for part in e.get("loc", ()) if part != "body")
            problems.append(f"{where}: {e.get('msg')}" if where else str(e.get("msg")))
        return JSONResponse({"error": "malformed request: " + "; ".join(problems)},
                            status_code=422, headers=NO_STORE)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, err: StarletteHTTPException):
        return JSONResponse({"error": str(err.detail)}, status_code=err.status_code,
                            headers=NO_STORE)

    # --- pages ------------------------------------------------------------------------------
    page = index_page()

    @app.get("/", include_in_schema=False)
    async def index():
        return HTMLResponse(page)

    @app.get("/play", include_in_schema=False)
    async def play_page():
        return HTMLResponse(page)

    @app.get("/rules/{game}", include_in_schema=False)
    async def rules(game: str):
        from catzoo.play.rules import NoRulesError, rules_page

        if game not in GAMES:
            raise RoomError(404, f"no rules page for {game!r}")
        try:
            text = rules_page(game)
        except NoRulesError as err:
            raise RoomError(404, str(err)) from None
        return Response(rules_html(GAMES[game].title, text), media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    # --- the API ------------------------------------------------------------------------------
    def find(token: str) -> tuple[Room, int]:
        if not TOKEN.match(token):
            raise RoomError(404, "no game has this seat (the link is wrong or the game expired)")
        return store.seat(token)

    @app.get("/api/catalogue")
    async def get_catalogue():
        return JSONResponse({"games": catalogue.to_json()}, headers=NO_STORE)

    @app.post("/api/games", status_code=201)
    async def new_game(body: NewGame, request: Request):
        if body.game not in GAMES:
            raise RoomError(400, f"unknown game {body.game!r}; known games: "
                                 + ", ".join(GAMES))
        n = len(body.seats)
        try:
            seats = [catalogue.resolve(body.game, n, s) for s in body.seats]
        except ValueError as err:
            raise RoomError(400, str(err)) from None
        if HUMAN not in seats:
            raise RoomError(400, "at least one seat must be human")
        client = request.client.host if request.client else ""
        store.admit(client)  # a refusal costs no table and no bots
        options = {k: _option_value(v) for k, v in body.options.items()}
        names = [seat_name(s, choice) for s, choice in zip(seats, body.seats)]
        # the full spec for the legend: a bot's with its options, a checkpoint's menu name
        legends = [choice.removeprefix(CHECKPOINT_PREFIX)
                   if choice.startswith(CHECKPOINT_PREFIX) else s
                   for s, choice in zip(seats, body.seats)]
        try:
            table = Table(body.game, seats, seed=body.seed, options=options, names=names,
                          legends=legends,
                          bot_factory=functools.partial(catalogue.make_bot, options=options))
        except (SeatError, OptionsError) as err:
            raise RoomError(400, str(err)) from None
        room = Room(table, app.state.bot_delay, client=client)
        store.add(room)
        room.start_bots()
        seats_out = [{"seat": s.index, "name": s.name, "human": s.human} for s in table.seats]
        for token, seat in room.tokens.items():
            seats_out[seat]["token"] = token
        return JSONResponse({"game_id": room.id, "seats": seats_out}, status_code=201,
                            headers=NO_STORE)

    @app.get("/api/seat/{token}")
    async def seat_view(token: str, after: Annotated[int | None, Query(ge=-1, le=10**9)] = None):
        room, seat = find(token)
        if after is not None:
            await room.wait_change(after)
        return JSONResponse(room.view(seat), headers=NO_STORE)

    @app.post("/api/seat/{token}/move")
    async def move(token: str, body: Move):
        room, seat = find(token)
        await room.move(seat, body.action, body.turn)
        return JSONResponse(room.view(seat), headers=NO_STORE)

    @app.get("/api/seat/{token}/replay")
    async def replay(token: str):
        room, _ = find(token)
        if not room.table.over:
            raise RoomError(409, "the replay is available once the game is over")
        name = f"catzoo-{room.table.game}-{room.table.seed}.json"
        return Response(room.table.replay().to_json(), media_type="application/json",
                        headers={**NO_STORE,
                                 "Content-Disposition": f'attachment; filename="{name}"'})

    replays: OrderedDict[str, list[dict]] = OrderedDict()  # room id -> views, a few kept

    @app.get("/api/seat/{token}/replay/{at}")
    async def replay_step(token: str, at: int):
        room, seat = find(token)
        table = room.table
        if not table.over:
            raise RoomError(409, "the replay is available once the game is over")
        total = len(table.events)
        if not 0 <= at <= total:
            raise RoomError(400, f"the game has moves 0 to {total}, not {at}")
        key = f"{room.id}:{seat}"
        if key not in replays:
            log = table.state.action_log()
            names = [s.name for s in table.seats]
            specs = [s.spec for s in table.seats]
            views = await asyncio.to_thread(seat_views, log, specs, names, seat)
            for view in views:  # the legend the players saw, never a server path
                for s in table.seats:
                    view["seats"][s.index]["spec"] = s.legend
            replays[key] = views
            while len(replays) > REPLAYS_KEPT:
                replays.popitem(last=False)
        replays.move_to_end(key)
        return JSONResponse({**replays[key][at], "replay": {"at": at, "total": total}},
                            headers=NO_STORE)

    app.state.bot_delay = bot_delay
    return app


def index_page() -> str:
    """The page, with a script tag for each installed game's renderer (its record's)."""
    tags = "\n".join(f'<script src="/static/{html.escape(info.renderer)}"></script>'
                     for info in GAMES.values() if info.renderer)
    text = (STATIC / "index.html").read_text()
    if RENDERERS not in text:
        raise RuntimeError(f"{STATIC / 'index.html'} has lost its renderers marker {RENDERERS!r}")
    return text.replace(RENDERERS, tags)


REPLAYS_KEPT = 8  # games whose step-by-step views are kept (a view per move each)


def rules_html(title: str, markdown: str) -> str:
    """A rules page as HTML; the Markdown is CatZoo's own, rendered with raw HTML off."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape(title)}: rules</title>"
            "<link rel=\"stylesheet\" href=\"/static/style.css\">"
            "<link rel=\"icon\" href=\"/static/favicon.svg\" type=\"image/svg+xml\"></head>"
            "<body class=\"rules\"><header><a href=\"/\" class=\"brand\">CatZoo</a>"
            f"<span>{escape(title)}: the rules</span></header><main>{body}</main></body></html>")


def seat_name(seat: str, choice: str) -> str:
    """A seat's short name, from the menu choice (never the server's path): "lunar
    policy" for ``checkpoint:shipped:lunar``, "ismcts" for the search bot."""
    from catzoo.policies.registry import short_name

    if seat == HUMAN:
        return "human"
    return short_name(choice.removeprefix(CHECKPOINT_PREFIX))


def _option_value(value):
    """Options typed in a browser arrive as strings: read them as the command line does."""
    if isinstance(value, str):
        from catzoo.cli.main import parse_option

        return parse_option(f"x={value}")[1]
    return value
