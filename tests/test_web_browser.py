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
    with ServerThread(bot_delay=0) as url:
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


@pytest.mark.parametrize("game", list(GAMES))
def test_a_game_played_to_the_end_by_clicking(server, page, game, tmp_path):
    token = start(page, server, game, PLAYERS[game], seed=7, options=SHORT.get(game, ""))
    rng = random.Random(game)
    clicks = 0
    while page.get_attribute("body", "data-state") == "your-turn":
        turn = page.get_attribute("body", "data-turn")
        targets = page.locator(CLICKABLE)
        if targets.count() == 0:  # a two-step choice: first the kind of move
            groups = page.locator(".group-btn")
            assert groups.count() > 1
            groups.nth(rng.randrange(groups.count())).click()
            continue
        shown = {int(a) for a in targets.evaluate_all("els => els.map(e => e.dataset.action)")}
        legal = legal_now(server, token)
        assert shown <= legal and shown, (shown, legal)  # only legal moves are clickable
        if not page.locator(".group-btn").count():
            assert shown == legal
        targets.nth(rng.randrange(targets.count())).click()
        clicks += 1
        page.wait_for_selector(f"body:not([data-turn='{turn}'])", state="attached")
        page.wait_for_selector(NEXT, state="attached")
        assert clicks < 400
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


def test_bots_answer_after_a_delay_and_wrong_links_say_so(browser):
    with ServerThread(bot_delay=0.3) as url:
        page = browser.new_page()
        start(page, url, "cat_tree", 2, seed=1, options="turns=1")
        page.locator(CLICKABLE).first.click()
        page.wait_for_selector("body[data-state='waiting']", state="attached")
        assert "is thinking" in page.inner_text("#status")
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
