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
* ``GET  /rules/{game}``                 the game's rules page (docs/rules/GAME.md);
* ``GET  /api/openapi.json``             the API's OpenAPI schema (the request bodies are
  the pydantic models below, which FastAPI checks before a handler runs).

Every error is ``{"error": message}`` with a 4xx status, and leaves the game as it was:
422 for a body the models refuse, the status of a ``RoomError`` for what the room refuses,
and ``STATUS`` for the table's and the engines' own errors, chosen by their type.
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
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
)
from pydantic_core import PydanticCustomError
from starlette.exceptions import HTTPException as StarletteHTTPException

from catzoo.games.base import GameOverError, IllegalActionError, NotYourTurnError, OptionsError
from catzoo.games.registry import GAMES, UnknownGameError, get_game
from catzoo.play.replay import seat_views
from catzoo.play.table import SeatError, Table
from catzoo.web.catalogue import CHECKPOINT_PREFIX, HUMAN, MOVE_SECONDS, Catalogue
from catzoo.web.guard import BodyLimit, SecurityHeaders
from catzoo.web.rooms import PER_CLIENT, Room, RoomError, RoomStore

STATIC = Path(__file__).parent / "static"
RENDERERS = "<!-- renderers: one script a game, from its record (GameInfo.renderer); catzoo.web.app -->"
TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
NO_STORE = {"Cache-Control": "no-store"}

# The table's and the engines' refusals of a request, by type (the most specific class an
# error is an instance of decides): 409 for a move the game's course refuses now, 400 for
# a move or a seating that is wrong in itself.
STATUS: dict[type[Exception], int] = {
    GameOverError: 409,
    NotYourTurnError: 409,
    IllegalActionError: 400,
    SeatError: 400,
    OptionsError: 400,
}


def _refusal(kind: str, reason: str) -> PydanticCustomError:
    # the reason as context, not as the template: a name typed by the user may hold braces
    return PydanticCustomError(kind, "{reason}", {"reason": reason})


def _known_game(name: str) -> str:
    try:
        return get_game(name).name
    except UnknownGameError as err:
        raise _refusal("unknown_game", str(err)) from None


def _with_a_human(seats: list[str]) -> list[str]:
    if HUMAN not in seats:
        raise _refusal("no_human_seat", "at least one seat must be human")
    return seats


def _typed_option(text: str):
    """Options typed in a browser arrive as strings: read them as the command line does."""
    from catzoo.cli.main import parse_option

    return parse_option(f"x={text}")[1]


GameName = Annotated[str, Field(min_length=1, max_length=80,
                                json_schema_extra={"enum": sorted(GAMES)}),
                     AfterValidator(_known_game)]
Name = Annotated[str, Field(min_length=1, max_length=80)]
OptionValue = (StrictBool | StrictInt | StrictFloat
               | Annotated[StrictStr, Field(max_length=200), AfterValidator(_typed_option)])


class NewGame(BaseModel):
    """A new game: the body of ``POST /api/games``."""

    model_config = ConfigDict(extra="forbid")
    game: GameName = Field(description="the game, by its name in the catalogue")
    seats: Annotated[list[Name], AfterValidator(_with_a_human)] = Field(
        min_length=1, max_length=8,
        description="one choice per seat, in seat order: 'human', a bot of the catalogue, "
                    "or 'checkpoint:NAME'; at least one human")
    seed: StrictInt | None = Field(default=None, ge=0, le=2**31 - 1,
                                   description="the deal's seed (default: a random one)")
    options: dict[Annotated[str, Field(max_length=40)], OptionValue] = Field(
        default_factory=dict, max_length=16,
        description="the game's options (not the player count: that is the seats'); a "
                    "string is read as the command line reads -o key=value")


class Move(BaseModel):
    """A move: the body of ``POST /api/seat/{token}/move``."""

    model_config = ConfigDict(extra="forbid")
    action: StrictInt = Field(ge=0, le=1_000_000,
                              description="the move, one of the view's moves[].action")
    turn: StrictInt | None = Field(default=None, ge=0, le=10**9,
                                   description="the view's turn (moves played) the move was "
                                               "chosen on: refused (409) if the game has "
                                               "moved on since")


class ErrorReply(BaseModel):
    """Every refusal, whatever its status."""

    error: str


ERRORS = {status: {"model": ErrorReply} for status in (400, 404, 409, 413, 422, 429, 503)}


def create_app(*, bot_delay: float = 0.6, max_games: int = 200, idle_seconds: float = 3600.0,
               max_games_per_client: int = PER_CLIENT, bot_seconds: float = MOVE_SECONDS,
               checkpoint_dirs: list[str] | None = None,
               allowed_hosts: list[str] | None = None) -> FastAPI:
    store = RoomStore(max_games, idle_seconds, per_client=max_games_per_client)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        store.close()

    app = FastAPI(title="CatZoo", docs_url=None, redoc_url=None,
                  openapi_url="/api/openapi.json", lifespan=lifespan)
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

    def refused(status: int):
        async def answer(request: Request, err: Exception):
            return JSONResponse({"error": str(err)}, status_code=status, headers=NO_STORE)
        return answer

    for kind, status in STATUS.items():
        app.add_exception_handler(kind, refused(status))

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

    @app.post("/api/games", status_code=201, responses=ERRORS)
    async def new_game(body: NewGame, request: Request):
        n = len(body.seats)
        seats = [catalogue.resolve(body.game, n, s) for s in body.seats]
        client = request.client.host if request.client else ""
        store.admit(client)  # a refusal costs no table and no bots
        names = [seat_name(s, choice) for s, choice in zip(seats, body.seats)]
        # the full spec for the legend: a bot's with its options (best's with what it
        # plays, which the table adds), a checkpoint's menu name
        legends = [choice.removeprefix(CHECKPOINT_PREFIX)
                   if choice.startswith(CHECKPOINT_PREFIX) else s
                   for s, choice in zip(seats, body.seats)]
        table = Table(body.game, seats, seed=body.seed, options=body.options, names=names,
                      legends=legends,
                      bot_factory=functools.partial(catalogue.make_bot, options=body.options))
        room = Room(table, app.state.bot_delay, client=client)
        store.add(room)
        room.start_bots()
        seats_out = [{"seat": s.index, "name": s.name, "human": s.human} for s in table.seats]
        for token, seat in room.tokens.items():
            seats_out[seat]["token"] = token
        return JSONResponse({"game_id": room.id, "seats": seats_out}, status_code=201,
                            headers=NO_STORE)

    @app.get("/api/seat/{token}", responses=ERRORS)
    async def seat_view(token: str, after: Annotated[int | None, Query(ge=-1, le=10**9)] = None):
        room, seat = find(token)
        if after is not None:
            await room.wait_change(after)
        return JSONResponse(room.view(seat), headers=NO_STORE)

    @app.post("/api/seat/{token}/move", responses=ERRORS)
    async def move(token: str, body: Move):
        room, seat = find(token)
        await room.move(seat, body.action, body.turn)
        return JSONResponse(room.view(seat), headers=NO_STORE)

    @app.get("/api/seat/{token}/replay", responses=ERRORS)
    async def replay(token: str):
        room, _ = find(token)
        if not room.table.over:
            raise RoomError(409, "the replay is available once the game is over")
        name = f"catzoo-{room.table.game}-{room.table.seed}.json"
        return Response(room.table.replay().to_json(), media_type="application/json",
                        headers={**NO_STORE,
                                 "Content-Disposition": f'attachment; filename="{name}"'})

    replays: OrderedDict[str, list[dict]] = OrderedDict()  # room id -> views, a few kept

    @app.get("/api/seat/{token}/replay/{at}", responses=ERRORS)
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
