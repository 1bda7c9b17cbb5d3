"""Options of the wrong type and bad seeds (issue 24): an ``OptionsError`` naming the option
(the web server answers 400 with it, not 500), and seeds by gymnasium's rule (a
non-negative integer or None), anything else refused with a message naming the seed."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from catzoo.games.base import OptionsError, SeedError
from catzoo.games.registry import GAMES

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from catzoo.web import create_app


def make_env(game: str, **options):
    return GAMES[game].load_env_module().env(**options)


WRONG_TYPES = [
    ("cat_in_the_box", "row_order", 5),
    ("catsle_builders", "take_counts", "a,b"),
    ("catsle_builders", "column_limits", 3),
    ("catsle_builders", "perfect_bonus", 1),
    ("cat_tree", "bottom_height", 0.0),
    # beyond the issue
    ("cat_in_the_box", "row_order", ["blue", 1, "green", "red"]),
    ("catsle_builders", "take_counts", 3),
    ("catsle_builders", "hand_size", 2.0),
    ("lunar", "star_ranks", [[1]]),
    ("lunar", "star_ranks", [1, "a"]),
    ("lunar", "track_stars", 5),
    ("lunar", "star_suits", 3),
    ("lunar", "target", 30.0),
    ("cat_tree", "width", 8.0),
    ("ledges", "dexterity", "1"),
    ("ledges", "dexterity", "steady"),
    ("ledges", "max_bats", 2.0),
]


@pytest.mark.parametrize("game", sorted(GAMES))
@pytest.mark.parametrize("count", [2.0, [2], "2", True, None, {"n": 2}])
def test_num_players_of_the_wrong_type_is_named(game, count):
    with pytest.raises(OptionsError, match=re.escape(f"num_players={count!r}")):
        GAMES[game].engine_class().new(num_players=count)
    with pytest.raises(OptionsError, match="num_players"):
        make_env(game, num_players=count)


@pytest.mark.parametrize(("game", "option", "value"), WRONG_TYPES)
def test_an_option_of_the_wrong_type_is_named(game, option, value):
    with pytest.raises(OptionsError) as info:
        GAMES[game].engine_class().new(**{option: value})
    assert f"{option}={value!r}" in str(info.value)


@pytest.fixture(scope="module")
def client():
    with TestClient(create_app(bot_delay=0, max_games_per_client=100)) as c:
        yield c


# The web takes scalars only, and reads a string as the command line does ("1" is 1).
@pytest.mark.parametrize(("game", "option", "value"),
                         [w for w in WRONG_TYPES if not isinstance(w[2], list) and w[2] != "1"])
def test_the_web_server_answers_a_bad_option_with_400_and_the_message(client, game, option,
                                                                      value):
    seats = ["human"] + ["random"] * (GAMES[game].default_players - 1)
    r = client.post("/api/games", json={"game": game, "seats": seats,
                                        "options": {option: value}})
    assert r.status_code == 400, r.text
    assert option in r.json()["error"]


@pytest.mark.parametrize("seed", [-5, 1.5, "7", True, math.nan, [1], np.float64(3.0)])
def test_a_bad_seed_is_refused_naming_it_and_the_env_goes_on(seed):
    env = make_env("lunar")
    env.reset(seed=3)
    before = env.unwrapped.game.action_log()
    with pytest.raises(SeedError) as info:
        env.reset(seed=seed)
    assert f"seed={seed!r}" in str(info.value) and "non-negative integer or None" in str(info.value)
    assert env.unwrapped.game.action_log() == before  # the game in play is untouched
    env.reset()  # and unseeded resets still work (seed -5 used to break them)
    env.reset(seed=4)


def test_a_negative_seed_no_longer_deals_the_game_of_its_absolute_value():
    with pytest.raises(SeedError):
        GAMES["cat_in_the_box"].engine_class().new(seed=-5)


@pytest.mark.parametrize("seed", [0, 5, np.int64(5), 2**70, None])
def test_good_seeds_are_taken(seed):
    env = make_env("cat_tree")
    env.reset(seed=seed)
    if seed is not None:
        assert env.unwrapped.game.seed == int(seed)
        again = make_env("cat_tree")
        again.reset(seed=int(seed))
        assert again.unwrapped.game.action_log() == env.unwrapped.game.action_log()
