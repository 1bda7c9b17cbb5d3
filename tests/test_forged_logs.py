"""Forged and malformed replays (issue 24): every field of a log is checked against the
game's rules before any of it reaches an engine, and refused with a ``ReplayError`` naming
the field; ``catzoo replay`` answers with one line and exit status 2, never a traceback.
JSON bombs (deep nesting, huge integers, huge files) are refused the same way."""

from __future__ import annotations

import json
import os

import pytest

from catzoo.cli.main import main
from catzoo.games.base import ReplayError
from catzoo.games.registry import GAMES
from catzoo.play import Table
from catzoo.play.replay import MAX_REPLAY_BYTES, load_replay, parse_replay

SHORT = {"cat_in_the_box": {"rounds": "single"}, "lunar": {"rounds": "single"},
         "catsle_builders": {"rounds": "single"}, "cat_tree": {"turns": 2},
         "ledges": {"max_rounds": 1}}
PLAYERS = {"cat_in_the_box": 4, "lunar": 2, "catsle_builders": 3, "cat_tree": 2, "ledges": 2}
_REPLAYS: dict[str, str] = {}


def replay_of(game: str) -> dict:
    """A genuine replay of a short random game (as a fresh dict to tamper with)."""
    if game not in _REPLAYS:
        table = Table(game, ["random"] * PLAYERS[game], seed=5, options=SHORT[game])
        table.play_bots()
        _REPLAYS[game] = table.replay().to_json()
    return json.loads(_REPLAYS[game])


def refused(data, *fragments: str) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(ReplayError) as info:
        parse_replay(text, "forged.json")
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


@pytest.mark.parametrize("game", sorted(GAMES))
def test_the_genuine_replays_are_accepted(game):
    replay = parse_replay(json.dumps(replay_of(game)))
    assert replay.state().is_terminal()


# --- the reproductions ---------------------------------------------------------------
def test_a_30_card_hand_in_cat_in_the_box_is_refused():
    d = replay_of("cat_in_the_box")
    d["log"]["chance"][0][0][0] = [0] * 30
    refused(d, "chance[0]", "the hand of player 0", "holds 30 cards, not 10")


def test_duplicate_hands_in_catsle_builders_are_refused():
    d = replay_of("catsle_builders")
    hands = d["log"]["chance"][1][0]
    hands[1] = list(hands[0])
    refused(d, "chance[1]", "the deck has 1")


@pytest.mark.parametrize("start", [-1, 99, True, "0", 2**40])
def test_a_start_player_out_of_range_is_refused(start):
    d = replay_of("catsle_builders")
    d["log"]["chance"][0] = start
    refused(d, "chance[0] (the start player)", "is not a player (0 to 2)")


@pytest.mark.parametrize("card", [999, 2**40, -1, 1.5])
def test_a_catsle_builders_card_out_of_range_is_refused(card):
    d = replay_of("catsle_builders")
    d["log"]["chance"][1][0][0][0] = card
    refused(d, "chance[1]", "the hand of player 0, item 0", "is not a card (0 to 47)")


@pytest.mark.parametrize("card", [99, 2**40, -1])
def test_a_ledges_card_out_of_range_is_refused(card):
    d = replay_of("ledges")
    assert isinstance(d["log"]["chance"][0], int)  # the first tower's platform card
    d["log"]["chance"][0] = card
    refused(d, "chance[0]", "is not a platform card")


def test_a_log_with_fewer_seats_than_players_is_refused():
    d = replay_of("lunar")
    d["seats"] = ["only one"]
    refused(d, '"seats" names 1 players; the game has 2')


def test_the_replay_command_answers_forged_files_with_one_line(tmp_path, capsys):
    forged = []
    d = replay_of("cat_in_the_box")
    d["log"]["chance"][0][0][0] = [0] * 30
    forged.append(d)
    d = replay_of("catsle_builders")
    d["log"]["chance"][0] = 99
    forged.append(d)
    d = replay_of("ledges")
    d["log"]["chance"][0] = 99
    forged.append(d)
    d = replay_of("lunar")
    d["seats"] = ["only one"]
    forged.append(d)
    forged.append("[" * 100_000 + "]" * 100_000)
    for i, data in enumerate(forged):
        path = tmp_path / f"forged{i}.json"
        path.write_text(data if isinstance(data, str) else json.dumps(data))
        assert main(["replay", str(path), "--all"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("catzoo: ") and err.count("\n") == 1 and "Traceback" not in err


# --- beyond the issue: every other field --------------------------------------------------------
def tamper(game, change):
    d = replay_of(game)
    change(d["log"])
    return d


@pytest.mark.parametrize(("game", "change", "fragment"), [
    ("cat_in_the_box", lambda log: log["chance"][0][1].append(0), "leftover cards"),
    ("cat_in_the_box", lambda log: log["chance"][0][0].pop(), "the hands: holds 3 items"),
    ("cat_in_the_box", lambda log: log["chance"].append(log["chance"][0]), "at most 1"),
    ("cat_in_the_box", lambda log: log["chance"][0][0][0].__setitem__(0, 8), "is not a card"),
    ("lunar", lambda log: log["chance"][0][0].__setitem__(0, 7), "suit deck"),
    ("lunar", lambda log: log["chance"][0][1].__setitem__(0, log["chance"][0][1][1] % 8 + 4
                                                           if log["chance"][0][1][0] ==
                                                           log["chance"][0][1][1] else
                                                           log["chance"][0][1][1]),
     "rank deck"),
    ("cat_tree", lambda log: log["chance"][0].__setitem__(0, log["chance"][0][1]
                                                          if log["chance"][0][0] !=
                                                          log["chance"][0][1] else
                                                          (log["chance"][0][1] + 1) % 8),
     "the deck has 4"),
    ("cat_tree", lambda log: log["chance"][0].append(0), "holds 33 cards, not 32"),
    ("ledges", lambda log: log["chance"].__setitem__(1, [0.0] * 5), "holds 5 numbers"),
    ("ledges", lambda log: log["chance"].__setitem__(1, [1e300] * 9), "not a finite number"),
    ("ledges", lambda log: log["chance"].__setitem__(1, [0.0] * 8 + [True]), "item 8"),
    ("lunar", lambda log: log.update(chance={"a": 1}), "chance must be a list"),
    ("lunar", lambda log: log.update(seed=-5), "seed=-5"),
    ("lunar", lambda log: log.update(seed="7"), "seed='7'"),
    ("lunar", lambda log: log.update(options=[1]), "options must be a mapping"),
    ("lunar", lambda log: log["options"].update(num_players=2.0), "num_players=2.0"),
    ("lunar", lambda log: log["options"].update(target=[30]), "option target=(30,)"),
    ("lunar", lambda log: log.update(actions={"0": 1}), "has no action log"),
    ("lunar", lambda log: log["actions"].__setitem__(3, 2**40), "is out of range 0..39"),
    ("lunar", lambda log: log["actions"].__setitem__(3, "16"), "actions[3]"),
    ("lunar", lambda log: log["actions"].__setitem__(3, True), "actions[3]"),
    ("lunar", lambda log: log.update(format=2), "log format 2 is not supported"),
    ("lunar", lambda log: log.update(env_version=9), "env version 9"),
    ("lunar", lambda log: log.pop("options"), "has no options"),
])
def test_every_field_of_a_log_is_checked(game, change, fragment):
    refused(tamper(game, change), fragment)


def test_a_ledges_card_already_on_the_table_is_refused_when_it_is_drawn():
    d = replay_of("ledges")
    chance = d["log"]["chance"]
    cards = [i for i, c in enumerate(chance) if isinstance(c, int)]
    assert len(cards) >= 2  # the first tower's card, then a build's
    chance[cards[1]] = chance[cards[0]]
    refused(d, f"chance[{cards[1]}]", "left in the supply")


def test_forged_noise_never_reaches_the_simulator_nor_writes_into_the_cwd(tmp_path):
    d = replay_of("ledges")
    noise = next(i for i, c in enumerate(d["log"]["chance"]) if isinstance(c, list))
    d["log"]["chance"][noise] = [1e300] * len(d["log"]["chance"][noise])
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        refused(d, f"chance[{noise}]", "not a finite number")
        d["log"]["chance"][noise] = [11.0] * len(d["log"]["chance"][noise])
        refused(d, "within +-10")
    finally:
        os.chdir(cwd)
    assert list(tmp_path.iterdir()) == []  # no MUJOCO_LOG.TXT


def test_a_result_of_the_wrong_type_is_refused():
    d = replay_of("lunar")
    d["result"] = [1, 2]
    refused(d, '"result" must be an object')


# --- JSON bombs -------------------------------------------------------------------------------
def test_deep_nesting_in_a_replay_is_refused():
    refused("[" * 100_000 + "]" * 100_000, "is not JSON", "nested too deeply")
    d = replay_of("lunar")
    bomb = json.dumps(d).replace('"chance": [', '"chance": [' + "[" * 50_000 + "]" * 50_000
                                 + ", ", 1)
    refused(bomb, "nested too deeply")


def test_a_5000_digit_integer_in_a_replay_is_refused():
    d = json.dumps(replay_of("lunar")).replace('"seed": 5', '"seed": ' + "9" * 5000, 1)
    refused(d, "is not JSON", "digits")


def test_nan_is_not_json():
    d = json.dumps(replay_of("ledges"))
    refused(d.replace('"dexterity": 1.0', '"dexterity": NaN', 1), "is not JSON")


def test_an_oversized_replay_file_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from catzoo.games import safe_json

    path = tmp_path / "big.json"
    with open(path, "wb") as f:
        f.truncate(MAX_REPLAY_BYTES + 1)  # sparse: no disk used
    monkeypatch.setattr(safe_json.json, "loads", lambda *a, **k: pytest.fail("parsed"))
    with pytest.raises(ReplayError, match="more than the"):
        load_replay(path)


def test_a_pinned_ledges_card_on_the_table_is_refused_even_in_a_scenario():
    from catzoo.games.ledges.state import LedgesState

    state = LedgesState.new(num_players=2, dexterity=0.0, chance=[0, 0])  # card 0 twice
    build = state.legal_actions()[0]
    with pytest.raises(ReplayError, match=r"chance\[1\]: card 0 is not a platform card left"):
        state.apply(build)
