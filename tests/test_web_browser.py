"""End to end in a real headless Chromium (Debian's package, driven by Playwright): open the
page, start a game of each kind, play it to the end by clicking, check the final scores
against the engine replaying the downloaded replay."""

from __future__ import annotations

import json
import os
import random

import httpx
import pytest

from catzoo.games.registry import GAMES
from catzoo.play.replay import parse_replay

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

if not os.path.exists(CHROMIUM):
    pytest.skip(f"browser tests need Debian's chromium at {CHROMIUM} "
                "(install it with .ci/install_browser.sh)", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright")

from catzoo.web.server import ServerThread

# each game's quick options (its record's), as typed into the page's options field
SHORT = {name: ", ".join(f"{k}={v}" for k, v in info.quick_options.items())
         for name, info in GAMES.items()}
PLAYERS = {"cat_in_the_box": 3, "lunar": 2, "catsle_builders": 3, "cat_tree": 2, "ledges": 2}
CLICKABLE = "#board [data-action], #moves [data-action]"
NEXT = "body[data-state='your-turn'], body[data-state='over'], body[data-state='error']"


@pytest.fixture(scope="module")
def server():
    # best (every default seat) thinks 0.05 s a move here, not the server's default 1 s
    with ServerThread(bot_delay=0, bot_seconds=0.05) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    yield page
    context.close()
    assert errors == [], errors


def start(page, url: str, game: str, players: int, seed: int, options: str = "") -> str:
    page.goto(url + "/")
    page.select_option("#game", game)
    page.select_option("#players", str(players))
    page.fill("#seed", str(seed))
    page.fill("#options", options)
    page.click("#start")
    page.wait_for_selector(NEXT, state="attached")
    return page.url.split("#", 1)[1]


def legal_now(url: str, token: str) -> set[int]:
    view = httpx.get(f"{url}/api/seat/{token}", trust_env=False).json()
    return {m["action"] for m in view["moves"]}


def play_by_clicking(page, rng: random.Random, check=None) -> int:
    """Random clicks on the moves offered until the player's turns are over (``check`` sees
    the clickable moves first); the number of moves made."""
    clicks = 0
    while page.get_attribute("body", "data-state") == "your-turn":
        turn = page.get_attribute("body", "data-turn")
        targets = page.locator(CLICKABLE)
        if targets.count() == 0:  # a two-step choice: first the kind of move
            groups = page.locator(".group-btn")
            assert groups.count() > 1
            groups.nth(rng.randrange(groups.count())).click()
            continue
        if check is not None:
            check(targets)
        targets.nth(rng.randrange(targets.count())).click()
        clicks += 1
        page.wait_for_selector(f"body:not([data-turn='{turn}'])", state="attached")
        page.wait_for_selector(NEXT, state="attached")
        assert clicks < 400
    return clicks


@pytest.mark.parametrize("game", list(GAMES))
def test_a_game_played_to_the_end_by_clicking(server, page, game, tmp_path):
    token = start(page, server, game, PLAYERS[game], seed=7, options=SHORT.get(game, ""))

    def only_legal_moves_clickable(targets) -> None:
        shown = {int(a) for a in targets.evaluate_all("els => els.map(e => e.dataset.action)")}
        legal = legal_now(server, token)
        assert shown <= legal and shown, (shown, legal)
        if not page.locator(".group-btn").count():
            assert shown == legal

    clicks = play_by_clicking(page, random.Random(game), only_legal_moves_clickable)
    assert page.get_attribute("body", "data-state") == "over" and clicks > 0
    shown_scores = [float(s) for s in page.locator(".final-score").all_inner_texts()]
    with page.expect_download() as download:
        page.click("#replay-link")
    path = tmp_path / "replay.json"
    download.value.save_as(path)
    replay = parse_replay(path.read_text())
    engine = replay.state()
    assert engine.is_terminal() and [float(s) for s in engine.scores()] == shown_scores
    assert replay.result["winners"] == engine.winners()
    assert json.loads(path.read_text())["log"]["seed"] == 7


def test_best_is_offered_first_seated_by_default_and_plays_a_whole_game(server, page):
    """A whole game of Cat in the Box (its default options, which the shipped network was
    trained for) against best, the default seat: the search over the network plays."""
    page.goto(server + "/")
    page.select_option("#game", "cat_in_the_box")
    page.select_option("#players", "2")
    seat = page.locator("select.seat[data-seat='1']")
    values = seat.locator("option").evaluate_all("els => els.map(e => e.value)")
    assert values[:2] == ["human", "best"] and seat.input_value() == "best"
    page.fill("#seed", "11")
    page.click("#start")
    page.wait_for_selector(NEXT, state="attached")
    assert play_by_clicking(page, random.Random(11)) > 0
    assert page.get_attribute("body", "data-state") == "over"
    legend = page.inner_text("#legend")
    assert "P1 best: best = pimc:seconds=0.05" in legend, legend  # what best plays here


def test_bots_answer_after_a_delay_and_wrong_links_say_so(browser):
    with ServerThread(bot_delay=0.3) as url:
        page = browser.new_page()
        start(page, url, "cat_tree", 2, seed=1, options="turns=1")
        page.locator(CLICKABLE).first.click()
        page.wait_for_selector("body[data-state='waiting']", state="attached")
        assert "P1 best is thinking" in page.inner_text("#status")
        assert "thinking" in page.get_attribute("#status", "class")
        page.wait_for_selector(NEXT, state="attached")
        page.goto(url + "/play#" + "x" * 32)
        page.wait_for_selector("body[data-state='error']", state="attached")
        assert "no game has this seat" in page.inner_text("#error")
        page.close()


def test_several_humans_get_one_link_each(server, page):
    page.goto(server + "/")
    page.select_option("#game", "lunar")
    page.select_option("#players", "2")
    page.select_option("select.seat[data-seat='1']", "human")
    page.click("#start")
    links = page.locator("a.invite")
    links.first.wait_for()
    hrefs = links.evaluate_all("els => els.map(e => e.href)")
    assert len(hrefs) == 2 and len(set(hrefs)) == 2
    page.goto(hrefs[1])
    page.wait_for_selector("body[data-turn='0']", state="attached")
    assert "you are P1" in page.inner_text("#title")


def test_the_seat_menu_offers_the_shipped_policy_of_the_chosen_player_count(page, tmp_path,
                                                                           monkeypatch):
    """Shipped for 2 and 3 players only: the seats offer it at those counts, not at 4 or 5;
    best, the default seat at every count, comes before it."""
    from catzoo.training import checkpoint as C
    from tests.test_training_checkpoint import make_checkpoint

    root = tmp_path / "shipped"
    for n in (2, 3):
        make_checkpoint(root / "cat_in_the_box" / f"{n}p", num_players=n)
    monkeypatch.setattr(C, "shipped_root", lambda: root)
    shipped = "checkpoint:shipped:cat_in_the_box"
    seat = "select.seat[data-seat='1']"
    with ServerThread(bot_delay=0) as url:
        page.goto(url + "/")
        page.select_option("#game", "cat_in_the_box")
        for n, offers in [(4, False), (3, True), (2, True), (5, False)]:
            page.select_option("#players", str(n))
            offered = page.eval_on_selector_all(f"{seat} option", "os => os.map(o => o.value)")
            assert offered.count(shipped) == (1 if offers else 0), (n, offered)
            assert offered.index("best") < offered.index("random"), offered
            assert page.input_value(seat) == "best", n
        page.select_option("#players", "3")
        for i in (1, 2):
            page.select_option(f"select.seat[data-seat='{i}']", shipped)
        page.click("#start")
        page.wait_for_selector(NEXT, state="attached")
        token = page.url.split("#", 1)[1]
        names = [s["name"] for s in api(url, "GET", f"/api/seat/{token}")["seats"]]
        assert names[1:] == ["cat_in_the_box policy"] * 2
        page.goto("about:blank")  # the table stops asking before its server stops


# --- what a player sees (issue 25): the games are moved on through the API, then looked at
def api(url: str, method: str, path: str, body=None) -> dict:
    return httpx.request(method, url + path, json=body, trust_env=False, timeout=60).json()


def new_game(url: str, game: str, seats: list[str], seed: int, **options) -> str:
    data = api(url, "POST", "/api/games", {"game": game, "seats": seats, "seed": seed,
                                           "options": options})
    return next(s["token"] for s in data["seats"] if s["human"])


def play_until(url: str, token: str, stop, limit: int = 800) -> dict:
    """The human plays its last listed move until ``stop(view)`` or the game's end."""
    for _ in range(limit):
        view = api(url, "GET", f"/api/seat/{token}")
        if stop(view) or view["over"]:
            return view
        if view["to_act"] == view["seat"]:
            api(url, "POST", f"/api/seat/{token}/move",
                {"action": view["moves"][-1]["action"], "turn": view["turn"]})
        else:
            api(url, "GET", f"/api/seat/{token}?after={view['turn']}")
    raise AssertionError("the game did not get there")


def open_seat(page, url: str, token: str) -> None:
    target = f"{url}/play#{token}"
    if page.url == target:  # the same URL again is a same-document navigation: no reload,
        page.reload()       # and the page would still show the turn it had
    else:
        page.goto(target)
    page.wait_for_selector("body:not([data-state='loading'])", state="attached")


def test_the_lobby_shows_no_empty_table_and_links_the_rules(server, page):
    page.goto(server + "/")
    page.wait_for_selector("#game option", state="attached")
    assert page.is_visible("#setup") and not page.is_visible("#table")
    assert not page.is_visible("text=Moves")
    page.select_option("#game", "lunar")
    assert page.get_attribute("#rules-link", "href") == "/rules/lunar"
    page.goto(server + "/rules/lunar")
    assert "Lunar: the rules as implemented" in page.inner_text("main h1")


SUITS = {"#3b6fd6", "#e0b400", "#3a9a4a", "#d23a3a"}  # Cat in the Box's rows


def test_a_round_summary_the_score_sheet_the_legend_and_player_colours(server, page):
    token = new_game(server, "cat_in_the_box", ["human", "heuristic", "ismcts"], 3)
    play_until(server, token, lambda v: len(v["rounds"]) >= 1)
    open_seat(page, server, token)
    summary = page.locator("#round-summary")
    assert summary.is_visible() and "Round 1 of 3: result" in summary.inner_text()
    assert page.locator("#round-table tr").count() == 1 + 3  # head, then each player
    assert "largest group" in summary.inner_text()
    assert page.is_visible("#sheet") and "R1" in page.inner_text("#sheet")
    assert "P2 ismcts: ismcts:iterations=200" in page.inner_text("#legend")
    assert page.get_attribute("#scores .who >> nth=2", "title") == "ismcts:iterations=200"
    page.click("#close-summary")
    assert not summary.is_visible() and page.is_visible("#sheet")
    play_until(server, token, lambda v: any(c >= 0 for row in v["board"]["rows"]
                                            for c in row["cells"]))
    open_seat(page, server, token)
    tokens = page.locator("#board g.cell circle").evaluate_all(
        "els => els.map(e => e.getAttribute('fill'))")
    assert tokens and not SUITS & set(tokens)  # a player's token is never a row's colour


def test_the_last_trick_stays_with_its_winner_and_lunar_shows_track_and_stars(server, page):
    token = new_game(server, "lunar", ["human", "heuristic", "heuristic", "heuristic"], 5)
    view = play_until(server, token, lambda v: v["board"]["phase"] == "play"
                      and not v["board"]["trick"] and v["board"]["last_trick"] is not None
                      and v["to_act"] == v["seat"])
    open_seat(page, server, token)
    text = page.inner_text("#board")
    assert f"Last trick, won by {view['board']['last_trick']['winner']}" in text
    assert view["board"]["last_trick"]["winner"].startswith("team P")
    assert "Cards with a star" in text and "1\u2605, 8\u2605" in text
    assert page.locator("#board .track-marker").count() == 2
    assert "team P0+P2" in text and "team 0" not in text


def test_the_ledges_bat_plays_in_both_views_then_shows_the_drop_and_score(server, page):
    pytest.importorskip("mujoco")
    token = new_game(server, "ledges", ["human", "heuristic"], 4, max_rounds=4)
    play_until(server, token, lambda v: v["animation"] is not None
               and v["animation"]["player"] == 1 and v["animation"]["frames"] > 4)
    open_seat(page, server, token)
    page.wait_for_selector("body[data-bat='shown']", state="attached")
    assert "P1 heuristic batted the toy" in page.inner_text("#bat-result")
    page.click("#replay-bat")
    page.wait_for_selector("body[data-bat='shown']", state="attached")
    # frames were drawn in both views (over the final drawing, hidden meanwhile), then
    # cleared: the page notes what its last frame drew
    drawn = dict(part.split(":") for part in page.get_attribute("body", "data-bat-drawn").split())
    assert set(drawn) == {"top", "side"} and all(int(n) > 0 for n in drawn.values())
    assert page.locator("#ledges-top g.anim").count() == 0
    assert page.get_attribute("#ledges-top g.scene", "visibility") is None
    assert int(page.get_attribute("body", "data-bat-frame")) > 2


def test_a_finished_game_replays_backwards_and_forwards(server, page):
    token = new_game(server, "cat_tree", ["human", "heuristic"], 2, turns=1)
    view = play_until(server, token, lambda v: False)
    total = view["turn"]
    open_seat(page, server, token)
    assert "The game ended: all 1 turns were played" in page.inner_text("#end-reason")
    page.click("#watch-replay")
    page.wait_for_selector("body[data-replay-at='0']", state="attached")
    for button, at in [("#replay-next", 1), ("#replay-next", 2), ("#replay-back", 1),
                       ("#replay-last", total), ("#replay-back", total - 1),
                       ("#replay-first", 0)]:
        page.click(button)
        page.wait_for_selector(f"body[data-replay-at='{at}']", state="attached")
        assert f"move {at} / {total}" in page.inner_text("#replay-at")
    assert page.locator("#board [data-action]").count() == 0  # watched, not played
