"""The web API: strict input, errors that leave games unharmed, one seat per token, and
no hidden fact in any message a player receives."""

from __future__ import annotations

import random
import warnings

import pytest

from catzoo.games.registry import GAMES
from catzoo.play import Table
from catzoo.play.replay import parse_replay
from catzoo.play.secrecy import leak

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # starlette's note about httpx in its test client
    from fastapi.testclient import TestClient

from catzoo.web import create_app

SHORT = {name: dict(info.quick_options) for name, info in GAMES.items()}  # the records'


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(bot_delay=0)) as c:
        yield c


def new_game(client, game, seats, seed=1, **options):
    r = client.post("/api/games", json={"game": game, "seats": seats, "seed": seed,
                                        "options": options or SHORT.get(game, {})})
    assert r.status_code == 201, r.text
    data = r.json()
    return data, {s["seat"]: s["token"] for s in data["seats"] if s["human"]}


def test_the_catalogue_offers_every_installed_game(client):
    games = {g["name"]: g for g in client.get("/api/catalogue").json()["games"]}
    assert set(games) == set(GAMES)
    assert {"random", "heuristic", "ismcts"} <= set(games["lunar"]["bots"])


@pytest.mark.parametrize(("body", "status", "message"), [
    ({"game": "chess", "seats": ["human", "random"]}, 422, "game: unknown game 'chess'"),
    ({"game": "lunar", "seats": ["human", "genius"]}, 400, "unknown seat 'genius'"),
    ({"game": "lunar", "seats": ["human", "/etc/passwd"]}, 400, "unknown seat '/etc/passwd'"),
    ({"game": "lunar", "seats": ["human", "checkpoint:x"]}, 400, "no checkpoint 'x'"),
    ({"game": "lunar", "seats": ["random", "random"]}, 422,
     "seats: at least one seat must be human"),
    ({"game": "lunar", "seats": ["human"] * 3}, 400, "played by 2 or 4 players, not 3"),
    ({"game": "lunar", "seats": ["human", "random"], "options": {"rounds": "many"}}, 400,
     "rounds='many' is not allowed"),
    ({"game": "lunar", "seats": ["human", "random"], "options": {"num_players": 2}}, 400,
     "player count comes from the seats"),
    ({"game": "lunar", "seats": ["human", "random"], "admin": True}, 422, "admin"),
    ({"game": "lunar", "seats": "human"}, 422, "seats"),
    ({"game": "lunar", "seats": ["human", "random"], "seed": "7"}, 422, "seed"),
    ({"game": "lunar", "seats": ["human"] * 9}, 422, "seats"),
    ({"game": "lunar", "seats": ["human", "random"], "options": {"x": [1]}}, 422, "options"),
])
def test_bad_new_games_get_an_error_reply(client, body, status, message):
    r = client.post("/api/games", json=body)
    assert r.status_code == status and message in r.json()["error"], r.text


def test_malformed_bodies_get_an_error_reply(client):
    assert client.post("/api/games", content=b"{not json",
                       headers={"content-type": "application/json"}).status_code == 422
    r = client.post("/api/games", content=b"x" * 100_000,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["error"]


def test_bad_moves_leave_the_game_unharmed(client):
    _, tokens = new_game(client, "cat_in_the_box", ["human", "heuristic", "heuristic"])
    url = f"/api/seat/{tokens[0]}"
    before = client.get(url).json()
    assert before["to_act"] == 0 and before["turn"] == 0
    legal = {m["action"] for m in before["moves"]}
    illegal = next(a for a in range(50) if a not in legal)
    for body, status, message in [
        ({"action": illegal, "turn": 0}, 400, f"action {illegal} ("),
        ({"action": illegal}, 400, "is not legal for player 0; legal actions: "),
        ({"action": 999_999}, 400, "action 999999 is out of range 0..49"),
        ({"action": -1}, 422, "action"),
        ({"action": 10**30}, 422, "action"),
        ({"action": "1"}, 422, "action"),
        ({"action": 1.0}, 422, "action"),
        ({"action": True}, 422, "action"),
        ({"action": min(legal), "turn": 5}, 409, "the game has moved on"),
        ({"action": min(legal), "extra": 1}, 422, "extra"),
        ({}, 422, "action"),
        ([1, 2], 422, ""),
    ]:
        r = client.post(f"{url}/move", json=body)
        assert r.status_code == status and message in r.json()["error"], (body, r.text)
        assert client.get(url).json() == before
    assert client.get(f"{url}/replay").status_code == 409
    r = client.post(f"{url}/move", json={"action": min(legal), "turn": 0})
    assert r.status_code == 200 and r.json()["turn"] >= 1


def test_a_seat_sees_and_acts_only_in_its_own_game(client):
    game_a, tokens_a = new_game(client, "lunar", ["human", "human"], seed=3)
    game_b, tokens_b = new_game(client, "lunar", ["human", "random"], seed=3)
    assert len(set(tokens_a.values()) | set(tokens_b.values())) == 3
    assert all(len(t) >= 32 for t in [*tokens_a.values(), *tokens_b.values()])
    for guess in (game_a["game_id"], game_b["game_id"], "0" * 32, "../../etc/passwd", "a" * 200):
        assert client.get(f"/api/seat/{guess}").status_code == 404
        assert client.post(f"/api/seat/{guess}/move", json={"action": 0}).status_code == 404
    view0 = client.get(f"/api/seat/{tokens_a[0]}").json()
    view1 = client.get(f"/api/seat/{tokens_a[1]}").json()
    assert view0["seat"] == 0 and view1["seat"] == 1 and view0["board"]["hand"] != view1["board"]["hand"]
    mover, waiter = (tokens_a[0], tokens_a[1]) if view0["to_act"] == 0 else (tokens_a[1], tokens_a[0])
    action = client.get(f"/api/seat/{mover}").json()["moves"][0]["action"]
    r = client.post(f"/api/seat/{waiter}/move", json={"action": action})
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    assert client.post(f"/api/seat/{mover}/move", json={"action": action}).status_code == 200
    assert client.get(f"/api/seat/{tokens_b[0]}").json()["turn"] == 0  # game b untouched


def play_collecting(client, game, seats, seed):
    """Play every human seat at random to the end; all messages received, per seat."""
    _, tokens = new_game(client, game, seats, seed=seed)
    rng = random.Random(seed)
    got = {seat: [] for seat in tokens}
    last = {seat: -1 for seat in tokens}
    for _ in range(5000):
        for seat, token in tokens.items():
            v = client.get(f"/api/seat/{token}", params={"after": last[seat]}).json()
            got[seat].append(v)
            last[seat] = v["turn"]
            if v["to_act"] == seat and not v["over"]:
                move = rng.choice(v["moves"])["action"]
                r = client.post(f"/api/seat/{token}/move", json={"action": move, "turn": v["turn"]})
                assert r.status_code == 200, r.text
                got[seat].append(r.json())
                last[seat] = r.json()["turn"] - 1
        if all(msgs[-1]["over"] for msgs in got.values()):
            return tokens, got
    raise AssertionError("the game did not end")


CASES = [("cat_in_the_box", ["human", "human", "heuristic"]), ("lunar", ["human", "heuristic"]),
         ("lunar", ["heuristic", "human", "heuristic", "human"]),
         ("catsle_builders", ["human", "heuristic", "random"]), ("cat_tree", ["heuristic", "human"]),
         ("ledges", ["human", "heuristic"])]


@pytest.mark.parametrize(("game", "seats"), CASES)
def test_no_message_of_a_played_game_reveals_a_hidden_fact(client, game, seats):
    tokens, got = play_collecting(client, game, seats, seed=8)
    replay = parse_replay(client.get(f"/api/seat/{next(iter(tokens.values()))}/replay").text)
    names = [s if s != "human" else "human" for s in seats]
    rng = random.Random(1)
    final = None
    for seat, messages in got.items():
        by_turn = {}
        for m in messages:
            assert m.pop("error") is None
            by_turn.setdefault(m["turn"], m)
            assert m == by_turn[m["turn"]], "two different messages for the same moment"
        worlds = 1 if game == "ledges" else 2  # ledges hides nothing and replays slowly
        for turn, message in by_turn.items():
            table = Table.from_log(dict(replay.log, actions=replay.log["actions"][:turn]),
                                   seats, names)
            assert message == table.view(seat)
            found = leak(message, table.state, seat, seats, names, rng, worlds=worlds)
            assert found is None, f"P{seat} at move {turn} learns a hidden fact: {found}"
        final = messages[-1]
    assert final["over"] and final["result"]["scores"] == replay.result["scores"]


def test_checkpoints_are_offered_by_name_never_by_path(tmp_path, monkeypatch):
    import catzoo.training
    from catzoo.web.catalogue import Catalogue

    metas = {"good": {"game": "lunar", "num_players": 2}, "other": {"game": "cat_tree", "num_players": 2}}
    for name in [*metas, "broken"]:
        (tmp_path / name).mkdir()
        (tmp_path / name / "policy.json").write_text("{}")

    def read_meta(folder):
        if folder.name not in metas:
            raise ValueError("corrupt")
        return metas[folder.name]

    monkeypatch.setattr(catzoo.training, "read_meta", read_meta)
    # The catalogue loads each checkpoint it offers (to skip broken ones): these have no
    # weights, so loading them is faked too.
    monkeypatch.setattr(catzoo.training, "load_policy", read_meta)
    catalogue = Catalogue([str(tmp_path)], shipped=False)  # (the shipped: test_shipped_policies)
    assert sorted(catalogue.checkpoints) == ["good", "other"]
    assert catalogue.resolve("lunar", 2, "checkpoint:good") == str(tmp_path / "good")
    lunar = next(g for g in catalogue.to_json() if g["name"] == "lunar")
    assert lunar["checkpoints"] == [{"name": "good", "players": 2}]
    for seat, message in [("checkpoint:other", "no checkpoint 'other' for lunar"),
                          ("checkpoint:broken", "no checkpoint 'broken'"),
                          (str(tmp_path / "good"), "unknown seat")]:
        with pytest.raises(ValueError, match=message):
            catalogue.resolve("lunar", 2, seat)
    with pytest.raises(ValueError, match="plays 2-player games, not 4"):
        catalogue.resolve("lunar", 4, "checkpoint:good")


def test_the_serve_command_listens_on_loopback_and_stops_on_ctrl_c():
    import re
    import signal
    import subprocess
    import sys

    import httpx

    proc = subprocess.Popen([sys.executable, "-m", "catzoo.cli.main", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line).group(0)
        assert httpx.get(url + "/api/catalogue", trust_env=False, timeout=10).status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and "Traceback" not in err, err


@pytest.mark.parametrize(("argv", "message"), [
    (["serve", "--port", "70000"], "is not a port number"),
    (["serve", "--bot-delay", "-1"], "--bot-delay must be 0 or more"),
])
def test_serve_errors_are_one_line_messages(argv, message, capsys):
    from catzoo.cli.main import main

    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_the_replay_steps_and_the_rules_pages(client):
    _, tokens = new_game(client, "cat_tree", ["human", "random"], turns=1)
    token = tokens[0]
    assert client.get(f"/api/seat/{token}/replay/0").status_code == 409  # not over yet
    view = client.get(f"/api/seat/{token}").json()
    while not view["over"]:
        if not view["moves"]:  # the bot's turn: wait for it
            view = client.get(f"/api/seat/{token}?after={view['turn']}").json()
            continue
        view = client.post(f"/api/seat/{token}/move",
                           json={"action": view["moves"][0]["action"], "turn": view["turn"]}).json()
    total = view["turn"]
    r = client.post(f"/api/seat/{token}/move", json={"action": 0})
    assert r.status_code == 409 and "the game is over" in r.json()["error"]
    r = client.post(f"/api/seat/{token}/move", json={"action": 0, "turn": 0})
    assert r.status_code == 409 and "the game is over" in r.json()["error"]
    steps = [client.get(f"/api/seat/{token}/replay/{k}").json() for k in (total, 0, 1)]
    assert [s["replay"] for s in steps] == [{"at": total, "total": total},
                                            {"at": 0, "total": total}, {"at": 1, "total": total}]
    assert steps[0]["board"] == view["board"] and steps[0]["moves"] == []
    assert steps[1]["turn"] == 0 and steps[2]["turn"] == 1
    r = client.get(f"/api/seat/{token}/replay/{total + 1}")
    assert r.status_code == 400 and f"moves 0 to {total}" in r.json()["error"]
    page = client.get("/rules/cat_tree")
    assert page.status_code == 200 and "<h1>" in page.text and "Cat Tree" in page.text
    assert client.get("/rules/chess").status_code == 404


def test_the_openapi_schema_declares_every_request_body(client):
    from catzoo.web.app import ErrorReply, Move, NewGame

    schema = client.get("/api/openapi.json").json()
    components = schema["components"]["schemas"]
    declared = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if "requestBody" in operation:
                ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                declared[(method.upper(), path)] = ref.rsplit("/", 1)[1]
    # every route that reads a body, from the app itself, and what it reads
    expected = {(method, route.path): route.body_field.field_info.annotation.__name__
                for route in client.app.routes if getattr(route, "body_field", None)
                for method in route.methods}
    assert declared == expected == {("POST", "/api/games"): "NewGame",
                                    ("POST", "/api/seat/{token}/move"): "Move"}
    for model in (NewGame, Move):
        body = components[model.__name__]
        assert set(body["properties"]) == set(model.model_fields)
        assert set(body.get("required", [])) == {
            name for name, f in model.model_fields.items() if f.is_required()}
        assert body["additionalProperties"] is False  # unknown fields are refused
    assert components["NewGame"]["properties"]["game"]["enum"] == sorted(GAMES)
    assert components["Move"]["properties"]["action"]["minimum"] == 0
    # the refusals as they are answered, not FastAPI's default shape
    assert set(components[ErrorReply.__name__]["properties"]) == {"error"}
    move = schema["paths"]["/api/seat/{token}/move"]["post"]["responses"]
    assert {"400", "404", "409", "422"} <= set(move)
    assert move["409"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorReply")


@pytest.mark.parametrize(("error", "status"), [
    ("IllegalActionError", 400),
    ("NotYourTurnError", 409),
    ("GameOverError", 409),
])
def test_a_refused_move_is_answered_by_the_type_of_its_error(client, monkeypatch, error, status):
    from catzoo.games import base

    # Each message says what another type would mean: the status must follow the type.
    refusal = getattr(base, error)("it is not your turn; the game is over; not legal")
    _, tokens = new_game(client, "lunar", ["human", "human"], seed=4)
    room, _ = client.app.state.store.seat(tokens[0])

    def refuse(action, player=None):
        raise refusal

    monkeypatch.setattr(room.table, "apply", refuse)
    r = client.post(f"/api/seat/{tokens[0]}/move", json={"action": 0})
    assert r.status_code == status and r.json() == {"error": str(refusal)}
