"""50 games at once against a real server on the loopback interface: bounded in time,
stopping by itself, every game played to its end and checked against its replay."""

from __future__ import annotations

import asyncio
import random
import warnings

import httpx

from catzoo.play.replay import parse_replay
from catzoo.web.server import ServerThread

GAMES = 50
# Short games (the API tests and the browser tests play the long ones), and no physics:
# its cost is the simulator's, not the server's.
KINDS = [
    ("cat_in_the_box", ["human", "heuristic"], {"rounds": "single"}),
    ("cat_tree", ["human", "heuristic"], {"turns": "2"}),
    ("catsle_builders", ["human", "random", "random"], {"rounds": "single", "hand_size": "4"}),
]


async def create(client: httpx.AsyncClient, i: int) -> dict:
    game, seats, options = KINDS[i % len(KINDS)]
    r = await client.post("/api/games", json={"game": game, "seats": seats, "seed": i,
                                              "options": options})
    assert r.status_code == 201, r.text
    return r.json()


async def play_one(client: httpx.AsyncClient, i: int, created: dict) -> str:
    game, seats, _ = KINDS[i % len(KINDS)]
    token = next(s["token"] for s in created["seats"] if s["human"])
    seat = seats.index("human")
    rng = random.Random(i)
    after = -1
    while True:
        v = (await client.get(f"/api/seat/{token}", params={"after": after})).json()
        if v["over"]:
            break
        if v["to_act"] != seat:
            after = v["turn"]
            continue
        r = await client.post(f"/api/seat/{token}/move",
                              json={"action": rng.choice(v["moves"])["action"], "turn": v["turn"]})
        assert r.status_code == 200, r.text
        after = r.json()["turn"] - 1
    replay = parse_replay((await client.get(f"/api/seat/{token}/replay")).text)
    assert replay.result["scores"] == v["result"]["scores"]
    return game


async def play_all(url: str) -> list[str]:
    limits = httpx.Limits(max_connections=GAMES + 10)
    async with httpx.AsyncClient(base_url=url, timeout=30, limits=limits, trust_env=False) as c:
        created = await asyncio.gather(*(create(c, i) for i in range(GAMES)))
        # All 50 are held at once: the server is full until one ends.
        full = await c.post("/api/games", json={"game": "cat_tree", "seats": ["human", "random"]})
        assert full.status_code == 503, full.text
        return await asyncio.wait_for(
            asyncio.gather(*(play_one(c, i, created[i]) for i in range(GAMES))), timeout=100)


def test_fifty_concurrent_games():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        # One test client plays all 50: the per-client limit must not be what stops it.
        server = ServerThread(bot_delay=0, max_games=GAMES, max_games_per_client=GAMES + 1)
    with server as url:
        assert url.startswith("http://127.0.0.1:")
        played = asyncio.run(play_all(url))
        store = server.server.config.app.state.store
        assert len(store.rooms) == GAMES and all(r.table.over for r in store.rooms.values())
    assert sorted(set(played)) == sorted(k[0] for k in KINDS) and len(played) == GAMES
    assert not server.thread.is_alive()


def test_a_full_server_says_so_and_makes_room_when_games_end():
    with ServerThread(bot_delay=0, max_games=2) as url, \
            httpx.Client(base_url=url, trust_env=False, timeout=10) as c:
        body = {"game": "cat_tree", "seats": ["human", "random"], "options": {"turns": "1"}}
        tokens = [c.post("/api/games", json=body).json()["seats"][0]["token"] for _ in range(2)]
        r = c.post("/api/games", json=body)
        assert r.status_code == 503 and "holds 2 games" in r.json()["error"]
        v = c.get(f"/api/seat/{tokens[0]}").json()
        while not v["over"]:
            if v["to_act"] == 0:
                v = c.post(f"/api/seat/{tokens[0]}/move",
                           json={"action": v["moves"][0]["action"]}).json()
            else:
                v = c.get(f"/api/seat/{tokens[0]}", params={"after": v["turn"]}).json()
        assert c.post("/api/games", json=body).status_code == 201  # the finished one went
        assert c.get(f"/api/seat/{tokens[0]}").status_code == 404
        assert c.get(f"/api/seat/{tokens[1]}").status_code == 200


def test_the_server_answers_only_to_its_own_names():
    with ServerThread(bot_delay=0) as url, \
            httpx.Client(base_url=url, trust_env=False, timeout=10) as c:
        assert c.get("/").status_code == 200
        r = c.get("/api/catalogue", headers={"host": "evil.example"})
        assert r.status_code == 400
        page = c.get("/")
        assert "script-src 'self'" in page.headers["content-security-policy"]
        assert page.headers["x-content-type-options"] == "nosniff"
