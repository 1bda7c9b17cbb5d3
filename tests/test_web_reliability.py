"""The web server against strangers (issues 24 and 27): the crash request answered, bots
bounded in time, one client unable to lock everyone out, slow or oversized requests cut
off, TCP_NODELAY on every connection, and short error messages."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import socket
import subprocess
import sys
import time
import warnings

import httpx
import pytest

from catzoo.games.ledges.state import LedgesState
from catzoo.policies.registry import SEARCH, parse_spec
from catzoo.policies.search import ISMCTSPolicy
from catzoo.web.catalogue import Catalogue
from catzoo.web.guard import BodyLimit
from catzoo.web.rooms import Room, RoomError, RoomStore
from catzoo.web.server import ServerThread

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from catzoo.web import create_app

CAT_TREE = {"game": "cat_tree", "seats": ["human", "random"], "options": {"turns": "1"}}


# --- the crash request, against `catzoo serve` itself ---------------------------------------------
def test_two_ledges_ismcts_games_leave_catzoo_serve_alive(tmp_path):
    """Issue 27: POST /api/games {"game": "ledges", "seats": ["ismcts", "human"]} twice
    killed the server with SIGSEGV within seconds. It also starts with a broken checkpoint
    among its --checkpoints (issue 24), skipping it with a warning naming it."""
    from tests.test_training_checkpoint import make_checkpoint

    make_checkpoint(tmp_path / "good")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "policy.json").write_text(json.dumps({"game": ["lunar"]}))
    (tmp_path / "broken" / "policy.safetensors").write_bytes(b"")
    proc = subprocess.Popen(
        [sys.executable, "-m", "catzoo.cli.main", "serve", "--port", "0", "--bot-delay", "0",
         "--bot-seconds", "0.3", "--checkpoints", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        with httpx.Client(base_url=url, trust_env=False, timeout=30) as c:
            games = c.get("/api/catalogue").json()["games"]
            offered = {g["name"]: [k["name"] for k in g["checkpoints"]] for g in games}
            assert "good" in offered["cat_in_the_box"]  # beside the shipped one
            tokens = []
            for _ in range(2):
                r = c.post("/api/games", json={"game": "ledges", "seats": ["ismcts", "human"]})
                assert r.status_code == 201, r.text
                tokens.append(r.json()["seats"][1]["token"])
            # Both bots search at once, each in its thread; the human plays its first
            # legal move whenever it is to act, so the bots keep searching.
            deadline = time.monotonic() + 120
            bot_moves = [0, 0]
            while min(bot_moves) < 2 and time.monotonic() < deadline and proc.poll() is None:
                for i, token in enumerate(tokens):
                    view = c.get(f"/api/seat/{token}").json()
                    assert view["error"] is None, view["error"]
                    if view["over"]:
                        bot_moves[i] = max(bot_moves[i], 2)
                    elif view["to_act"] == 1:
                        r = c.post(f"/api/seat/{token}/move",
                                   json={"action": view["moves"][0]["action"],
                                         "turn": view["turn"]})
                        assert r.status_code == 200, r.text
                    else:
                        after = c.get(f"/api/seat/{token}",
                                      params={"after": view["turn"]}).json()
                        bot_moves[i] += after["turn"] - view["turn"]
            assert proc.poll() is None, "the server died"
            assert min(bot_moves) >= 2, bot_moves
            assert c.get("/api/catalogue").status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "skipping checkpoint" in err and "broken" in err and "Traceback" not in err, err


# --- bounded bots -------------------------------------------------------------------------------
def test_every_bot_the_server_seats_has_a_bounded_move_time():
    """The menu's bots as the server builds them: a search bot always with a time budget
    (the menu's iterations, and ``move_seconds`` a move), any other a fixed amount of work
    a move (random, the heuristics; checkpoints are one forward pass)."""
    catalogue = Catalogue([], shipped=False, move_seconds=1.5)
    for game in ("cat_in_the_box", "lunar", "catsle_builders", "cat_tree", "ledges"):
        n = 3 if game == "catsle_builders" else 2
        for bot in catalogue.bots(game):
            policy = catalogue.make_bot(catalogue.resolve(game, n, bot), game, n, seed=0)
            if isinstance(policy, ISMCTSPolicy):
                assert policy.seconds == 1.5 and policy.iterations == 200, (game, bot)
            else:
                assert parse_spec(bot)[0] not in SEARCH, (game, bot)
    # A search spec that names its own budget keeps it; Ledges' lookahead searches too.
    assert catalogue.make_bot("ismcts:seconds=0.5", "lunar", 2, seed=0).seconds == 0.5
    assert catalogue.make_bot("lookahead", "ledges", 2, seed=0).seconds == 1.5


class FakeClock:
    """A clock advancing one second at each reading."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def test_ismcts_stops_a_playout_at_its_deadline(monkeypatch):
    """A ledges playout simulates a whole game (one move of 200 iterations took 268 s):
    with ``seconds`` the playout itself stops at the deadline."""
    state = LedgesState.new(num_players=2, seed=3)
    steps = []
    real = LedgesState.apply_unchecked

    def counted(self, action):
        steps.append(action)
        real(self, action)

    monkeypatch.setattr(LedgesState, "apply_unchecked", counted)
    bot = ISMCTSPolicy(seed=1, iterations=200, seconds=3)
    bot.clock = FakeClock()  # its budget's clock (policies/search/budget.py)
    legal = state.legal_actions()
    assert bot.search(state, 0, legal) in legal
    assert bot.last_iterations == 1
    assert len(steps) <= 3  # one tree step, then a playout cut at the deadline


# --- one client cannot lock everyone out ---------------------------------------------------------
def new_game(client):
    return client.post("/api/games", json=CAT_TREE)


def test_200_unfinished_games_from_one_client_lock_out_only_that_client():
    app = create_app(bot_delay=0)
    store = app.state.store
    with TestClient(app) as greedy:
        answers = [new_game(greedy) for _ in range(200)]
        made = [r for r in answers if r.status_code == 201]
        refused = [r for r in answers if r.status_code != 201]
        assert len(made) == store.per_client == 10
        assert {r.status_code for r in refused} == {429}
        retry = int(refused[-1].headers["retry-after"])
        assert 0 < retry <= store.own_idle_seconds
        assert "unfinished games" in refused[-1].json()["error"]
        assert f"retry in {retry} s" in refused[-1].json()["error"]
        other = TestClient(app, client=("10.0.0.2", 4000))
        assert new_game(other).status_code == 201  # everyone else still plays
        # Polling does not keep a game alive: a minute on, the idlest makes way.
        first = made[0].json()["seats"][0]["token"]
        for _ in range(3):
            assert greedy.get(f"/api/seat/{first}").status_code == 200
        start = time.monotonic()
        store.clock = lambda: start + store.own_idle_seconds + 1
        assert new_game(greedy).status_code == 201
        assert greedy.get(f"/api/seat/{first}").status_code == 404
        assert sum(r.client == "testclient" for r in store.rooms.values()) == 10


class FakeTable:
    over = False

    def __init__(self):
        self.seats = []


def room(client: str, touched: float) -> Room:
    r = Room(FakeTable(), 0, client=client)
    r.touched = touched
    return r


def test_a_full_store_evicts_the_biggest_holders_idlest_game_or_says_when_to_retry():
    now = [1000.0]
    store = RoomStore(max_rooms=4, per_client=3, evict_seconds=300, clock=lambda: now[0])
    games = [room("a", 800), room("a", 950), room("a", 990), room("b", 750)]
    for g in games:
        store.add(g)
    # Every game had a move in the last 300 s: refused, saying when one may make way.
    with pytest.raises(RoomError) as info:
        store.add(room("c", 1000))
    err = info.value
    assert err.status == 503 and err.headers == {"Retry-After": "50"}
    assert "try again in 50 s" in str(err)
    # 60 s on, b's game (idle 310 s) and a's first (idle 260 s)... only b's may go:
    now[0] = 1060.0
    store.add(room("c", 1060))
    assert games[3].id not in store.rooms
    # Finished games make way before any game in play.
    games[1].table.over = True
    store.add(room("d", 1060))
    assert games[1].id not in store.rooms and games[0].id in store.rooms


def test_when_several_games_are_idle_the_biggest_holder_gives_one_up():
    store = RoomStore(max_rooms=4, per_client=3, evict_seconds=300, clock=lambda: 1200.0)
    games = [room("a", 850), room("a", 860), room("a", 870), room("b", 700)]
    for g in games:
        store.add(g)
    store.add(room("c", 1200))  # b's game is idler, but a holds three
    assert games[0].id not in store.rooms and games[3].id in store.rooms


def test_the_503_says_when_to_retry_over_http():
    app = create_app(bot_delay=0, max_games=1)
    with TestClient(app) as c:
        assert new_game(c).status_code == 201
        r = TestClient(app, client=("10.0.0.3", 1)).post("/api/games", json=CAT_TREE)
        assert r.status_code == 503
        assert 0 < int(r.headers["retry-after"]) <= 300
        assert "holds 1 games" in r.json()["error"]


# --- slow, oversized and kept-alive connections ----------------------------------------------------
def raw(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=20)
    return sock


def test_a_connection_that_never_finishes_its_headers_is_closed():
    with ServerThread(bot_delay=0, header_timeout=0.5) as url:
        sock = raw(url)
        sock.sendall(b"GET /api/catalogue HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        closed = False
        for _ in range(50):  # a header line now and then: at most 10 s of trickling
            try:
                sock.sendall(b"X-Slow: 1\r\n")
            except OSError:
                closed = True
                break
            sock.settimeout(0.2)
            try:
                if sock.recv(1024) == b"":
                    closed = True
                    break
            except TimeoutError:
                pass
        sock.close()
        assert closed
        # A whole request on a kept-alive connection is served as ever.
        with httpx.Client(base_url=url, trust_env=False) as c:
            for _ in range(3):
                assert c.get("/api/catalogue").status_code == 200


def test_an_oversized_chunked_body_gets_413():
    with ServerThread(bot_delay=0) as url:
        sock = raw(url)
        chunk = b"x" * 4096
        head = (b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: "
                b"application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        sock.sendall(head)
        try:
            for _ in range(8):  # 32 KB, twice the limit
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server may close once it has answered
        sock.settimeout(20)
        reply = b""
        while b"\r\n\r\n" not in reply:
            part = sock.recv(4096)
            if not part:
                break
            reply += part
        sock.close()
        assert reply.startswith(b"HTTP/1.1 413"), reply[:200]


def test_a_body_still_arriving_after_the_timeout_gets_408():
    sent = []

    async def never(*_):
        await asyncio.sleep(3600)

    async def app(scope, receive, send):
        raise AssertionError("the app must not run")

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "POST", "headers": [(b"transfer-encoding", b"chunked")]}
    asyncio.run(BodyLimit(app, timeout=0.05)(scope, never, send))
    assert sent[0]["status"] == 408


def test_every_accepted_connection_has_tcp_nodelay():
    with ServerThread(bot_delay=0) as url, httpx.Client(base_url=url, trust_env=False) as c:
        assert c.get("/api/catalogue").status_code == 200
        server = None
        for _ in range(100):
            conns = list(_server_state(url).connections)
            if conns:
                server = conns
                break
            time.sleep(0.01)
        assert server
        for protocol in server:
            sock = protocol.transport.get_extra_info("socket")
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)


_SERVERS: dict = {}


def _server_state(url):
    return _SERVERS[url]


@pytest.fixture(autouse=True)
def _remember_servers(monkeypatch):
    real = ServerThread.__enter__

    def enter(self):
        url = real(self)
        _SERVERS[url] = self.server.server_state
        return url

    monkeypatch.setattr(ServerThread, "__enter__", enter)


# --- short messages -------------------------------------------------------------------------------
def test_the_ledges_illegal_action_message_is_a_summary():
    state = LedgesState.new(num_players=2, seed=1)
    legal = state.legal_actions()
    with pytest.raises(ValueError) as info:
        state.apply(3538)
    text = str(info.value)
    assert len(text) < 600, len(text)  # it was 46,583 characters
    assert "action 3538 (stop batting) is not legal" in text
    assert f"legal actions: {len(legal)} in all" in text and f"from {legal[0]} (build" in text


@pytest.mark.parametrize("body", [
    "[" * 7000 + "]" * 7000,
    '{"game": "lunar", "seats": ["human", "random"], "seed": ' + "9" * 5000 + "}",
    '{"game": "lunar", "seats": ["human", "random"], "options": {"target": NaN}}',
    '{"game": "ledges", "seats": ["human", "random"], "options": {"dexterity": 1e400}}',
    '{"game": "lunar", "seats": ["human", "random"], "options": {"num_players": 2}}',
])
def test_json_bombs_and_bad_values_in_a_request_get_a_4xx(body):
    with TestClient(create_app(bot_delay=0), raise_server_exceptions=False) as c:
        r = c.post("/api/games", content=body, headers={"content-type": "application/json"})
        assert 400 <= r.status_code < 500, r.text
        assert r.json()["error"]
